package corpus

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// validateSynthetic checks every example of a small hand-made schema with
// gojsonschema, like the real schemas are checked.
func validateSynthetic(t *testing.T, schema string) map[string][]Example {
	t.Helper()
	ex, err := Examples([]byte(schema))
	if err != nil {
		t.Fatalf("Examples: %v", err)
	}
	var doc struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		t.Fatal(err)
	}
	by := map[string][]Example{}
	for _, e := range ex {
		by[e.Def] = append(by[e.Def], e)
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.AutoDetect = false
		s, err := sl.Compile(gojsonschema.NewStringLoader(`{"$ref":"#/$defs/` + e.Def + `","$defs":` + string(doc.Defs) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Validate(gojsonschema.NewBytesLoader(e.JSON))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Valid() {
			t.Errorf("%s %s invalid: %v\n%s", e.Def, e.Name, r.Errors(), e.JSON)
		}
	}
	return by
}

func TestExamplesRecursionTerminates(t *testing.T) {
	by := validateSynthetic(t, `{"$defs":{
		"Tree":{"type":"object","required":["name"],"properties":{
			"name":{"type":"string"},
			"children":{"type":"array","items":{"$ref":"#/$defs/Tree"}},
			"parent":{"anyOf":[{"$ref":"#/$defs/Tree"},{"type":"null"}]}}}}}`)
	full := by["Tree"][0]
	if full.Name != "full" || !bytes.Contains(full.JSON, []byte(`"children":[{`)) {
		t.Errorf("full Tree should nest children: %s", full.JSON)
	}
	if depth := strings.Count(string(full.JSON), `"parent":{`); depth > softDepth+1 {
		t.Errorf("nesting %d exceeds the depth limit", depth)
	}
}

func TestExamplesRequiredRecursionFails(t *testing.T) {
	_, err := Examples([]byte(`{"$defs":{"Loop":{"type":"object","required":["next"],"properties":{"next":{"$ref":"#/$defs/Loop"}}}}}`))
	if err == nil || !strings.Contains(err.Error(), "Loop") {
		t.Fatalf("want an error naming Loop, got %v", err)
	}
}

func TestExamplesBoundsAndMaps(t *testing.T) {
	by := validateSynthetic(t, `{"$defs":{
		"Port":{"type":"integer","format":"uint16","minimum":1024,"maximum":49151},
		"Ratio":{"type":"number","format":"double","minimum":1},
		"Name":{"type":"string","minLength":3},
		"Env":{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}},
		"Kind":{"anyOf":[{"type":"string","const":"a"},{"title":"other","type":"string"}]},
		"Code":{"anyOf":[{"type":"integer","const":0},{"type":"integer","const":2147483647},{"title":"Other","type":"integer","format":"int32"}]}}}`)
	got := func(def string) []string {
		var out []string
		for _, e := range by[def] {
			out = append(out, string(e.JSON))
		}
		return out
	}
	if g := strings.Join(got("Port"), " "); g != "49151 1024" {
		t.Errorf("Port examples %q", g)
	}
	if g := strings.Join(got("Ratio"), " "); g != "1" {
		t.Errorf("Ratio examples %q", g)
	}
	for _, s := range got("Name") {
		if len(s) < 5 {
			t.Errorf("Name %s shorter than minLength", s)
		}
	}
	full := got("Env")[0]
	if !strings.Contains(full, `"env":{"NO_COLOR":`) || strings.Contains(full, `"env":{"`+UnknownMember) {
		t.Errorf("Env map should have two string entries and no unknown member: %s", full)
	}
	if !strings.Contains(full, `,"`+UnknownMember+`":`) {
		t.Errorf("Env object itself should carry the unknown member: %s", full)
	}
	if g := strings.Join(got("Kind"), " "); g != `"a" "`+FutureKind+`"` {
		t.Errorf("Kind examples %q", g)
	}
	// The free branch must avoid every listed const, even its own boundary.
	for _, s := range got("Code")[2:] {
		if s == "0" || s == "2147483647" {
			t.Errorf("Code free branch reused a listed const: %s", s)
		}
	}
}

func TestExamplesRejectsBadInput(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"not json", `{`, "parse schema"},
		{"no defs", `{"definitions":{}}`, "no $defs"},
		{"dangling ref", `{"$defs":{"A":{"$ref":"#/$defs/B"}}}`, "dangling"},
		{"unsupported not", `{"$defs":{"A":{"anyOf":[{"type":"object","not":{"required":["x"]}}]}}}`, "unsupported `not`"},
		{"empty type", `{"$defs":{"A":{"type":"string","allOf":[{"type":"integer"}]}}}`, "empty intersection"},
	} {
		_, err := Examples([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want error containing %q, got %v", tc.name, tc.want, err)
		}
	}
}
