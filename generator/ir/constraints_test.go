package ir

import (
	"testing"
)

// The vocabulary beyond the pinned schema's keywords reaches the IR as
// constraints, object rules and shapes.
func TestVocabularyInIR(t *testing.T) {
	m, err := build(t, `{"$defs": {
		"S": {"type": "object", "properties": {
				"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
				"ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.25},
				"blob": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png", "maxLength": 8},
				"rpc": {"type": "string", "enum": ["2.0"]},
				"level": {"enum": [1, 2, null]},
				"env": {"type": "object", "patternProperties": {"^[A-Z_]+$": {"type": "string"}}, "additionalProperties": false},
				"mixed": {"type": "object", "patternProperties": {"^n-": {"type": "integer"}}, "additionalProperties": {"type": "string"}, "propertyNames": {"maxLength": 16}}},
			"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"},
			"dependentRequired": {"ratio": ["tags"]}},
		"U": {"anyOf": [{"title": "Str", "type": ["string", "null"]}, {"title": "Num", "type": "integer"}]},
		"Any": {"anyOf": [{"$ref": "#/$defs/S"}, {"title": "Ext"}]}
	}}`)
	if err != nil {
		t.Fatal(err)
	}
	s := m.TypeByDef("S")
	f := map[string]*Field{}
	for _, x := range s.Fields {
		f[x.JSON] = x
	}
	if r := f["tags"].Ref; *r.MinItems != 1 || *r.MaxItems != 3 || !r.UniqueItems {
		t.Errorf("tags: %+v", r)
	}
	if r := f["ratio"].Ref; *r.ExclusiveMinimum != "0" || *r.ExclusiveMaximum != "1" || *r.MultipleOf != "0.25" {
		t.Errorf("ratio: %+v", r)
	}
	if r := f["blob"].Ref; r.ContentEncoding != "base64" || r.ContentMediaType != "image/png" || *r.MaxLength != 8 {
		t.Errorf("blob: %+v", r)
	}
	if r := f["rpc"].Ref; r.Kind != String || len(r.Enum) != 1 || r.Enum[0].String != "2.0" {
		t.Errorf("rpc: %+v", r)
	}
	if r := f["level"]; r.Ref.Kind != Int || len(r.Ref.Enum) != 2 || !r.Nullable {
		t.Errorf("level: %+v nullable %v", r.Ref, r.Nullable)
	}
	// A closed map with one pattern types its values by the pattern.
	if r := f["env"].Ref; r.Kind != Map || r.Elem.Kind != String || !r.Rules.Closed || r.Rules.Patterns[0].Ref != nil {
		t.Errorf("env: %+v rules %+v", r, r.Rules)
	}
	// Values that differ by name are kept raw and checked by shape.
	if r := f["mixed"].Ref; r.Kind != Map || r.Elem.Kind != Raw || r.Rules.Patterns[0].Ref.Kind != Int || r.Rules.Additional.Kind != String || r.Rules.Names.Kind != String || *r.Rules.Names.MaxLength != 16 {
		t.Errorf("mixed: %+v rules %+v", r, r.Rules)
	}
	if o := s.Rules; o == nil || o.Patterns[0].Ref.Kind != String || o.Additional.Kind != Bool || len(o.Dependent) != 1 {
		t.Errorf("struct rules: %+v", o)
	}
	// A nullable variant adds the union's null variant.
	var names []string
	for _, v := range m.TypeByDef("U").Union.Variants {
		names = append(names, v.Name)
	}
	if got := len(names); got != 3 || names[2] != "Null" || !m.TypeByDef("U").Union.Variants[2].Null {
		t.Errorf("U variants %v", names)
	}
	// A variant of any value is the union's catch-all.
	if a := m.TypeByDef("Any"); a.Kind != ValueUnion || !isAnyValue(a.Union.Variants[1].Payload) {
		t.Errorf("Any: %+v", a)
	}
}

// A routing union written as a bare union of method defs (npm 0.4.5 to
// 0.8.0) is method-routed, extension methods included, and classifies its
// methods.
func TestBareRoutingUnion(t *testing.T) {
	m, err := build(t, `{"$defs": {
		"ReadRequest": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "x-method": "fs/read", "x-side": "client"},
		"WriteRequest": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "x-method": "fs/write", "x-side": "client"},
		"ReadResponse": {"type": "object", "x-method": "fs/read", "x-side": "client"},
		"WriteResponse": {"type": "object", "x-method": "fs/write", "x-side": "client"},
		"AgentRequest": {"anyOf": [{"$ref": "#/$defs/ReadRequest"}, {"$ref": "#/$defs/WriteRequest"}, {"title": "ExtMethodRequest"}]},
		"ClientResponse": {"anyOf": [{"$ref": "#/$defs/ReadResponse"}, {"$ref": "#/$defs/WriteResponse"}]}
	}}`)
	if err != nil {
		t.Fatal(err)
	}
	r := m.TypeByDef("AgentRequest").Target
	if r == nil || r.Kind != Routed || len(r.Routes) != 2 || !r.OpenRoute {
		t.Fatalf("AgentRequest: %+v", m.TypeByDef("AgentRequest"))
	}
	if len(m.Methods) != 2 || m.Methods[0].Side != "client" || m.Methods[0].Result.Def != "ReadResponse" {
		t.Errorf("methods: %+v", m.Methods)
	}
}
