package ir

import (
	"strings"
	"testing"
)

// The naming rule (names.go) in each scope: clashes are qualified by what
// the names stand for, then numbered; acpgen's own names stay.
func TestNamingRule(t *testing.T) {
	m, err := build(t, `{"$defs": {
		"Options": {"anyOf": [
			{"type": "array", "items": {"$ref": "#/$defs/Option"}},
			{"type": "array", "items": {"$ref": "#/$defs/Group"}}]},
		"Titled": {"anyOf": [{"title": "Foo", "type": "string"}, {"title": "Foo", "type": "integer"}, {"title": "Validate", "type": "boolean"}]},
		"Same": {"anyOf": [{"title": "A", "type": "array", "items": {"type": "string"}, "minItems": 1}, {"title": "A", "type": "array", "items": {"type": "string"}, "maxItems": 0}]},
		"Option": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
		"Group": {"type": "object", "properties": {"group": {"type": "string"}}, "required": ["group"]},
		"S": {"type": "object", "properties": {
			"sessionId": {"type": "string"}, "session_id": {"type": "integer"},
			"validate": {"type": "string"}, "unknown": {"$ref": "#/$defs/Option"}, "appendJSON": {"type": "boolean"}}},
		"AgentConn": {"type": "object"},
		"MethodPing": {"type": "string"},
		"Kind": {"oneOf": [{"const": "end_turn", "type": "string"}, {"const": "endTurn", "type": "string"}, {"const": "option", "type": "string"}]},
		"KindOption": {"type": "string"},
		"Outer": {"type": "object", "properties": {"inner": {"type": "object", "properties": {"a": {"type": "string"}}}}},
		"OuterInner": {"type": "string"}
	}}`)
	if err != nil {
		t.Fatal(err)
	}
	variants := func(def string) string {
		var out []string
		for _, v := range m.TypeByDef(def).Union.Variants {
			out = append(out, v.Name)
		}
		return strings.Join(out, ",")
	}
	fields := func(def string) string {
		var out []string
		for _, f := range m.TypeByDef(def).Fields {
			out = append(out, f.Name)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct{ what, got, want string }{
		// npm 0.12.0's SessionConfigSelectOptions: untitled arrays named by their items.
		{"untitled variants", variants("Options"), "OptionArray,GroupArray"},
		{"titled variants", variants("Titled"), "FooString,FooInteger,ValidateBoolean"},
		{"same shape", variants("Same"), "AStringArray1,AStringArray2"},
		{"members", fields("S"), "SessionIDString,SessionIDInteger,ValidateString,UnknownOption,AppendJSONBoolean"},
		{"def named like a generated type", m.TypeByDef("AgentConn").Name, "AgentConnType"},
		{"def named like a method constant", m.TypeByDef("MethodPing").Name, "MethodPing"},
		{"inline type named like a def", m.TypeByDef("Outer").Fields[0].Ref.Type.Name, "OuterInnerType"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.what, c.got, c.want)
		}
	}
	var consts []string
	for _, v := range m.TypeByDef("Kind").EnumValues {
		consts = append(consts, v.Name)
	}
	if got := strings.Join(consts, ","); got != "KindEndTurnValue1,KindEndTurnValue2,KindOptionValue" {
		t.Errorf("enum constants %s", got)
	}
}

// A def named like the constant of a method the schema has is qualified;
// so is a method named like a connection's own method.
func TestNamingRuleMethods(t *testing.T) {
	m, err := build(t, routedSchema([]string{"RunRequest"}, []string{"RunResponse"},
		`"RunRequest": {"type": "object", "x-method": "run", "x-side": "agent"}, "RunResponse": {"type": "object", "x-method": "run", "x-side": "agent"},
			"MethodRun": {"type": "string"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.TypeByDef("MethodRun").Name; got != "MethodRunType" {
		t.Errorf("def MethodRun named %s", got)
	}
	if got := m.Methods[0].Name; got != "RunRequest" {
		t.Errorf("method run named %s, want RunRequest (Run is the connection's)", got)
	}
}
