package load

import (
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"invalid JSON", `{"$defs": {`, "x.json#: invalid JSON"},
		{"unknown keyword", `{"$defs": {"A": {"type": "object", "patternProperties": {}}}}`, `x.json#/$defs/A/patternProperties: unknown keyword "patternProperties"`},
		{"unknown x- keyword", `{"$defs": {"A": {"type": "string", "x-new-thing": true}}}`, `x.json#/$defs/A/x-new-thing: unknown keyword`},
		{"dangling ref", `{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}}}`, `x.json#/$defs/A/properties/b/$ref: dangling reference "#/$defs/B"`},
		{"remote ref", `{"$defs": {"A": {"$ref": "other.json#/A"}}}`, `x.json#/$defs/A/$ref: unsupported reference`},
		{"unknown type", `{"$defs": {"A": {"type": "text"}}}`, `x.json#/$defs/A/type: unknown type "text"`},
		{"unknown format", `{"$defs": {"A": {"type": "string", "format": "email"}}}`, `x.json#/$defs/A/format: unknown format "email"`},
		{"bad x-side", `{"$defs": {"A": {"type": "object", "x-side": "server"}}}`, `x.json#/$defs/A/x-side: unknown x-side "server"`},
		{"schema not object", `{"$defs": {"A": 3}}`, `x.json#/$defs/A: a schema must be an object or a boolean`},
		{"nested $defs", `{"$defs": {"A": {"$defs": {}}}}`, `x.json#/$defs/A/$defs: $defs is only allowed at the document root`},
		{"duplicate member", `{"$defs": {"A": {"type": "string", "type": "number"}}}`, `duplicate member "type"`},
		{"escaped pointer", `{"$defs": {"a/b~c": {"bogus": 1}}}`, `x.json#/$defs/a~1b~0c/bogus: unknown keyword`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("x.json", []byte(c.schema))
			if err == nil {
				t.Fatalf("loaded without error; want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

// Property names that look like keywords are property names, not keywords.
func TestPropertiesNamedLikeKeywords(t *testing.T) {
	doc, err := Load("x.json", []byte(`{"$defs": {"S": {"type": "object", "properties": {
		"pattern": {"type": ["string", "null"]}, "format": {"type": "string"}, "enum": {"type": "array", "items": {"type": "string"}},
		"oneOf": {"type": "array"}, "x-whatever": {"type": "string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Def("S")
	var names []string
	for _, p := range s.Properties {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "pattern,format,enum,oneOf,x-whatever" {
		t.Fatalf("properties %s", got)
	}
	if s.HasPattern || s.Format != "" || s.Enum != nil {
		t.Fatal("a property name was taken for a keyword")
	}
}

func TestKeywordsTyped(t *testing.T) {
	doc, err := Load("x.json", []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
		"N": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535, "x-deserialize-default-on-error": true},
		"T": {"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}], "discriminator": {"propertyName": "k"}}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	n := doc.Def("N")
	if n.Format != "uint16" || n.Minimum.String() != "0" || n.Maximum.String() != "65535" || !n.XDefaultOnError {
		t.Fatalf("keywords not typed: %+v", n)
	}
	if doc.Def("T").Discriminator != "k" {
		t.Fatal("discriminator not read")
	}
}
