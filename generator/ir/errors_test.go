package ir

import (
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/load"
)

func build(t *testing.T, schema string) (*Model, error) {
	t.Helper()
	doc, err := load.Load("x.json", []byte(schema))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return Build(doc, "stable")
}

// routedSchema is a schema whose ClientRequest envelope routes the requests
// and whose AgentResponse routes the responses to the agent, beside defs.
func routedSchema(requests, responses []string, defs string) string {
	members := func(names []string) string {
		var out []string
		for _, n := range names {
			out = append(out, `{"allOf": [{"$ref": "#/$defs/`+n+`"}]}`)
		}
		// An extension catch-all keeps the union non-empty.
		return strings.Join(append(out, `{"title": "Ext"}`), ", ")
	}
	return `{"$defs": {
		"ClientRequest": {"type": "object", "properties": {"id": {}, "method": {"type": "string"}, "params": {"anyOf": [` + members(requests) + `]}}},
		"AgentResponse": {"type": "object", "properties": {"id": {}, "result": {"anyOf": [` + members(responses) + `]}}},
		` + defs + `}}`
}

func TestBuildErrors(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"two defs one Go name", `{"$defs": {"SessionId": {"type": "string"}, "SessionID": {"type": "string"}}}`,
			`x.json#/$defs/SessionID: Go name SessionID is already taken by x.json#/$defs/SessionId`},
		{"request without response", routedSchema([]string{"PingRequest"}, nil, `"PingRequest": {"type": "object", "x-method": "ping", "x-side": "agent"}`),
			`x.json#/$defs/PingRequest: request "ping" handled by agent has no response def`},
		{"method twice", routedSchema([]string{"A", "B"}, []string{"R"},
			`"A": {"type": "object", "x-method": "ping", "x-side": "agent"}, "B": {"type": "object", "x-method": "ping", "x-side": "agent"}, "R": {"type": "object", "x-method": "ping", "x-side": "agent"}`),
			`x.json#/$defs/B: method "ping" is defined twice as a request handled by agent`},
		{"x-method without side", `{"$defs": {"A": {"type": "object", "x-method": "ping"}}}`, `x.json#/$defs/A: x-method "ping" without x-side`},
		{"orphan x-method", `{"$defs": {"A": {"type": "object", "x-method": "ping", "x-side": "agent"}}}`, `is referenced by no routing union`},
		{"unknown tag shape", `{"$defs": {"U": {"oneOf": [{"type": "object", "properties": {"k": {"type": "string", "const": "a"}}, "required": ["k"]},
			{"type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]}]}}}`, `neither a const, null, nor an open string`},
		{"indistinguishable shapes", `{"$defs": {"U": {"anyOf": [{"title": "A", "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
			{"title": "B", "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}]}}}`, `has no required member that tells it apart`},
		{"false schema", `{"$defs": {"S": {"type": "object", "properties": {"a": false}}}}`, `the false schema accepts nothing`},
		{"allOf with members", `{"$defs": {"B": {"type": "object"}, "S": {"allOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/B"}]}}}`, `allOf is understood only as a one-element $ref wrapper`},
		{"ref cycle without object", `{"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/A"}]}}}`, `x.json#/$defs/A: $ref cycle with no object in between`},
		{"response answers nothing", routedSchema([]string{"A"}, []string{"R"},
			`"A": {"type": "object", "x-method": "ping", "x-side": "agent"}, "R": {"type": "object", "x-method": "pong", "x-side": "agent"}`),
			`x.json#/$defs/R: response with x-method "pong" and x-side "agent" answers no request`},
		{"cycle through a union", `{"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}}}`, `variant A of A has no single JSON type`},
		{"two variants of any value", `{"$defs": {"Any": {}, "U": {"anyOf": [{"title": "S", "type": "string"}, {"$ref": "#/$defs/Any"}, {"title": "T"}]}}}`, `U has two variants that accept any value`},
		{"indistinguishable by required sets", `{"$defs": {"U": {"anyOf": [{"title": "A", "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
			{"title": "B", "type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}, "required": ["x"]}]}}}`, `variant B of U has no required member that tells it apart`},
		{"propertyNames not strings", `{"$defs": {"S": {"type": "object", "propertyNames": {"type": "integer"}, "additionalProperties": {"type": "string"}}}}`, `propertyNames must describe strings`},
		{"inline enum of mixed types", `{"$defs": {"S": {"type": "object", "properties": {"a": {"enum": ["x", 1]}}}}}`, `enum values of several JSON types need a union`},
		{"inline enum against its type", `{"$defs": {"S": {"type": "object", "properties": {"a": {"type": "string", "enum": [1]}}}}}`, `enum values do not match type string`},
		{"required not declared", `{"$defs": {"S": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}}}`, `required member "b" is not declared`},
		{"alias that is a member", `{"$defs": {"S": {"type": "object", "properties": {"a": {"type": "string", "x-acpgen-aliases": ["b"]}, "b": {"type": "string"}}}}}`,
			`x.json#/$defs/S: alias "b" of member "a" is a member of S`},
		{"alias of two members", `{"$defs": {"S": {"type": "object", "properties": {"a": {"type": "string", "x-acpgen-aliases": ["c"]}, "b": {"type": "string", "x-acpgen-aliases": ["c"]}}}}}`,
			`alias "c" of member "b" is also an alias of "a"`},
		{"aliases on a union variant", `{"$defs": {"P": {"type": "object", "properties": {"k": {"type": "string", "const": "p"}, "a": {"type": "string", "x-acpgen-aliases": ["b"]}}, "required": ["k"]},
			"U": {"discriminator": {"propertyName": "k"}, "oneOf": [{"$ref": "#/$defs/P"}]}}}`, `P has member aliases but is a variant of U`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := build(t, c.schema)
			if err == nil {
				t.Fatalf("built without error; want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestShapesOfPinnedSchema(t *testing.T) {
	m := loadModel(t, "schema.unstable.json", "unstable")
	kind := func(def string) *Type {
		ty := m.TypeByDef(def)
		if ty == nil {
			t.Fatalf("no type for %s", def)
		}
		return ty
	}
	roles := func(def string) string {
		ty := kind(def)
		var out []string
		for _, v := range ty.Union.Variants {
			out = append(out, v.Name+":"+[]string{"tagged", "fallback", "catchall", "absent", "shape"}[v.Role])
		}
		return strings.Join(out, ",")
	}
	for def, want := range map[string]string{
		"McpServer":                  "HTTP:tagged,SSE:tagged,ACP:tagged,Stdio:fallback",
		"AuthMethod":                 "Terminal:tagged,Agent:fallback",
		"MultiSelectItems":           "String:tagged,Other:catchall,Titled:fallback",
		"RequestId":                  "Null:shape,Number:shape,Str:shape",
		"EmbeddedResourceResource":   "TextResourceContents:shape,BlobResourceContents:shape",
		"RequestPermissionOutcome":   "Cancelled:tagged,Selected:tagged",
		"SessionConfigSelectOptions": "Ungrouped:shape,Grouped:shape",
	} {
		if got := roles(def); got != want {
			t.Errorf("%s variants %s, want %s", def, got, want)
		}
	}
	if k := kind("ErrorCode"); k.Kind != Enum || !k.EnumOpen || k.EnumBase.Format != "int32" || len(k.EnumValues) != 8 {
		t.Errorf("ErrorCode is not an open int32 enum of 8 named values: %+v", k)
	}
	if k := kind("StopReason"); k.Kind != Enum || k.EnumOpen {
		t.Errorf("StopReason is not a closed enum")
	}
	// IdleStateUpdate: an object whose tag member is owned by its embedded union,
	// with a variant for the tag being absent or null.
	idle := kind("IdleStateUpdate")
	if idle.Kind != Struct || idle.Union == nil || idle.Union.Discriminator != "stopReason" {
		t.Fatalf("IdleStateUpdate: %+v", idle)
	}
	for _, f := range idle.Fields {
		if f.JSON == "stopReason" {
			t.Error("stopReason kept as a field beside the union that owns it")
		}
	}
	if !strings.Contains(roles2(idle.Union), "None:absent") || !strings.Contains(roles2(idle.Union), "Other:catchall") {
		t.Errorf("IdleStateUpdate variants: %s", roles2(idle.Union))
	}
	if kind("SessionUpdate").Kind != ObjectUnion || len(kind("SessionUpdate").Union.Variants) != 19 {
		t.Error("unstable SessionUpdate is not a 19-variant object union")
	}
	if r := fieldRef(t, kind("AgentRequest"), "params"); r.Kind != Routed {
		t.Error("routing union params is not method-routed")
	}
}

func roles2(u *Union) string {
	var out []string
	for _, v := range u.Variants {
		out = append(out, v.Name+":"+[]string{"tagged", "fallback", "catchall", "absent", "shape"}[v.Role])
	}
	return strings.Join(out, ",")
}

func fieldRef(t *testing.T, ty *Type, json string) *Ref {
	for _, f := range ty.Fields {
		if f.JSON == json {
			return f.Ref
		}
	}
	t.Fatalf("%s has no member %s", ty.Name, json)
	return nil
}

// A recursive object type (through a member) is legitimate.
func TestRecursiveObjectIsFine(t *testing.T) {
	m, err := build(t, `{"$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, "parent": {"anyOf": [{"$ref": "#/$defs/Alias"}, {"type": "null"}]}}}, "Alias": {"$ref": "#/$defs/Node"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if m.TypeByDef("Node").Kind != Struct || m.TypeByDef("Alias").Kind != Alias {
		t.Fatal("unexpected kinds")
	}
}
