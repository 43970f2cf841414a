package load

import (
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ name, schema, want string }{
		{"invalid JSON", `{"$defs": {`, "x.json#: invalid JSON"},
		{"unknown keyword", `{"$defs": {"A": {"type": "object", "if": {}}}}`, `x.json#/$defs/A/if: unknown keyword "if"`},
		{"boolean exclusiveMinimum (draft 4)", `{"$defs": {"A": {"type": "integer", "exclusiveMinimum": true}}}`, `x.json#/$defs/A/exclusiveMinimum: exclusiveMinimum must be a number`},
		{"multipleOf zero", `{"$defs": {"A": {"type": "number", "multipleOf": 0}}}`, `x.json#/$defs/A/multipleOf: multipleOf must be a number greater than 0`},
		{"negative minItems", `{"$defs": {"A": {"type": "array", "minItems": -1}}}`, `x.json#/$defs/A/minItems: minItems must be a non-negative integer`},
		{"pattern RE2 cannot compile", `{"$defs": {"A": {"type": "string", "pattern": "^(?!x)"}}}`, `x.json#/$defs/A/pattern: pattern "^(?!x)" is not supported by Go's regexp`},
		{"patternProperties key RE2 cannot compile", `{"$defs": {"A": {"type": "object", "patternProperties": {"(?<=a)b": {}}}}}`, `x.json#/$defs/A/patternProperties/(?<=a)b: pattern`},
		{"dependentRequired not names", `{"$defs": {"A": {"type": "object", "dependentRequired": {"a": [1]}}}}`, `x.json#/$defs/A/dependentRequired: dependentRequired must map member names to arrays of member names`},
		{"unknown keyword inside patternProperties", `{"$defs": {"A": {"type": "object", "patternProperties": {"^x": {"then": {}}}}}}`, `x.json#/$defs/A/patternProperties/^x/then: unknown keyword "then"`},
		{"dangling ref inside propertyNames", `{"$defs": {"A": {"type": "object", "propertyNames": {"$ref": "#/$defs/B"}}}}`, `x.json#/$defs/A/propertyNames/$ref: dangling reference`},
		{"unknown x- keyword", `{"$defs": {"A": {"type": "string", "x-new-thing": true}}}`, `x.json#/$defs/A/x-new-thing: unknown keyword`},
		{"dangling ref", `{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}}}`, `x.json#/$defs/A/properties/b/$ref: dangling reference "#/$defs/B"`},
		{"remote ref", `{"$defs": {"A": {"$ref": "other.json#/A"}}}`, `x.json#/$defs/A/$ref: unsupported reference`},
		{"unknown type", `{"$defs": {"A": {"type": "text"}}}`, `x.json#/$defs/A/type: unknown type "text"`},
		{"unknown format", `{"$defs": {"A": {"type": "string", "format": "email"}}}`, `x.json#/$defs/A/format: unknown format "email"`},
		{"empty x-method", `{"$defs": {"A": {"type": "object", "x-method": ""}}}`, `x.json#/$defs/A/x-method: x-method must be a non-empty string`},
		{"bad x-side", `{"$defs": {"A": {"type": "object", "x-side": "server"}}}`, `x.json#/$defs/A/x-side: unknown x-side "server"`},
		{"schema not object", `{"$defs": {"A": 3}}`, `x.json#/$defs/A: a schema must be an object or a boolean`},
		{"nested $defs", `{"$defs": {"A": {"$defs": {}}}}`, `x.json#/$defs/A/$defs: $defs is only allowed at the document root`},
		{"duplicate member", `{"$defs": {"A": {"type": "string", "type": "number"}}}`, `duplicate member "type"`},
		{"escaped pointer", `{"$defs": {"a/b~c": {"bogus": 1}}}`, `x.json#/$defs/a~1b~0c/bogus: unknown keyword`},
		{"nested $schema", `{"$defs": {"A": {"$schema": "x"}}}`, `x.json#/$defs/A/$schema: $schema is only allowed at the document root`},
		{"type not a string", `{"$defs": {"A": {"type": [1]}}}`, `x.json#/$defs/A/type: type must be a string or an array of strings`},
		{"required not strings", `{"$defs": {"A": {"required": ["a", 2]}}}`, `x.json#/$defs/A/required: required must be an array of strings`},
		{"empty anyOf", `{"$defs": {"A": {"anyOf": []}}}`, `x.json#/$defs/A/anyOf: anyOf must be a non-empty array of schemas`},
		{"bad schema in oneOf", `{"$defs": {"A": {"oneOf": [{}, {"if": {}}]}}}`, `x.json#/$defs/A/oneOf/1/if: unknown keyword "if"`},
		{"empty enum", `{"$defs": {"A": {"enum": []}}}`, `x.json#/$defs/A/enum: enum must be a non-empty array`},
		{"string minimum", `{"$defs": {"A": {"minimum": "1"}}}`, `x.json#/$defs/A/minimum: minimum must be a number`},
		{"negative maxLength", `{"$defs": {"A": {"maxLength": -2}}}`, `x.json#/$defs/A/maxLength: maxLength must be a non-negative integer`},
		{"discriminator keyword", `{"$defs": {"A": {"discriminator": {"mapping": {}}}}}`, `x.json#/$defs/A/discriminator: unknown discriminator keyword "mapping"`},
		{"discriminator without name", `{"$defs": {"A": {"discriminator": {}}}}`, `x.json#/$defs/A/discriminator: discriminator needs propertyName`},
		{"discriminator name not a string", `{"$defs": {"A": {"discriminator": {"propertyName": 1}}}}`, `x.json#/$defs/A/discriminator: discriminator must be a string`},
		{"x-deserialize flag not boolean", `{"$defs": {"A": {"x-deserialize-default-on-null": "yes"}}}`, `x.json#/$defs/A/x-deserialize-default-on-null: x-deserialize-default-on-null must be a boolean`},
		{"x-acpgen-meta not an object", `{"$defs": {"A": {"x-acpgen-meta": []}}}`, `x.json#/$defs/A/x-acpgen-meta: x-acpgen-meta must map namespace keys to schemas`},
		{"bad schema in x-acpgen-meta", `{"$defs": {"A": {"x-acpgen-meta": {"a/b": 3}}}}`, `x.json#/$defs/A/x-acpgen-meta/a~1b: a schema must be an object or a boolean`},
		{"x-acpgen-overlay not strings", `{"$defs": {"A": {"x-acpgen-overlay": [true]}}}`, `x.json#/$defs/A/x-acpgen-overlay: x-acpgen-overlay must be an array of strings`},
		{"properties not an object", `{"$defs": {"A": {"properties": []}}}`, `x.json#/$defs/A/properties: properties must be an object`},
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

// The vocabulary beyond the pinned schema's keywords is read into typed
// fields; the content keywords and other annotations are kept, not enforced.
func TestVocabularyTyped(t *testing.T) {
	doc, err := Load("x.json", []byte(`{"$defs": {
		"A": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
		"N": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.25},
		"O": {"type": "object", "propertyNames": {"maxLength": 8}, "patternProperties": {"^x-": {"type": "string"}, "^n-": {"type": "integer"}},
			"dependentRequired": {"a": ["b", "c"]}, "properties": {"a": {"type": "string"}, "b": {}, "c": {}}},
		"B": {"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png", "$comment": "c", "deprecated": true, "readOnly": true, "writeOnly": false, "examples": ["aGk="]}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	a := doc.Def("A")
	if *a.MinItems != 1 || *a.MaxItems != 3 || !a.UniqueItems {
		t.Errorf("array keywords: %+v", a.Vocabulary)
	}
	n := doc.Def("N")
	if n.ExclusiveMinimum.String() != "0" || n.ExclusiveMaximum.String() != "1.5" || n.MultipleOf.String() != "0.25" {
		t.Errorf("number keywords: %+v", n.Vocabulary)
	}
	o := doc.Def("O")
	if *o.PropertyNames.MaxLength != 8 || len(o.PatternProperties) != 2 || o.PatternProperties[1].Name != "^n-" || !o.PatternProperties[1].Schema.HasType("integer") {
		t.Errorf("object keywords: %+v", o.Vocabulary)
	}
	if len(o.DependentRequired) != 1 || o.DependentRequired[0].Name != "a" || strings.Join(o.DependentRequired[0].Requires, ",") != "b,c" {
		t.Errorf("dependentRequired: %+v", o.DependentRequired)
	}
	b := doc.Def("B")
	if b.ContentEncoding != "base64" || b.ContentMediaType != "image/png" || b.Comment != "c" || !b.Deprecated || !b.ReadOnly || b.WriteOnly || len(b.Examples) != 1 {
		t.Errorf("annotations: %+v", b.Vocabulary)
	}
	// Walk reaches the schemas under the new keywords.
	var ptrs []string
	Walk(o, func(s *Schema) bool { ptrs = append(ptrs, s.Pointer); return true })
	got := strings.Join(ptrs, " ")
	for _, want := range []string{"/$defs/O/propertyNames", "/$defs/O/patternProperties/^x-", "/$defs/O/patternProperties/^n-"} {
		if !strings.Contains(got, want) {
			t.Errorf("Walk misses %s: %s", want, got)
		}
	}
}

// A def name with "/" or "~" survives the trip to a $ref and back.
func TestDefPointerRefName(t *testing.T) {
	for _, name := range []string{"ContentBlock", "a/b", "x~y"} {
		ref := "#" + DefPointer(name)
		got, ok := RefName(ref)
		if !ok || got != name {
			t.Errorf("RefName(%q) = %q, %v; want %q, true", ref, got, ok, name)
		}
	}
	if got := DefPointer("a/b"); got != "/$defs/a~1b" {
		t.Errorf("DefPointer(a/b) = %q", got)
	}
	if _, ok := RefName("other.json#/$defs/X"); ok {
		t.Error("RefName accepted a reference into another document")
	}
}
