package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// rawDefs parses the $defs of a schema without the generator's help, so the
// coverage checks below are computed independently of it.
func rawDefs(t *testing.T, schema []byte) map[string]map[string]any {
	t.Helper()
	var doc struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Defs
}

func examplesFor(t *testing.T, schema []byte) map[string][]Example {
	t.Helper()
	ex, err := Examples(schema)
	if err != nil {
		t.Fatalf("Examples: %v", err)
	}
	by := map[string][]Example{}
	for _, e := range ex {
		by[e.Def] = append(by[e.Def], e)
	}
	return by
}

func TestExamplesValidate(t *testing.T) {
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			v := loadValidator(t, ch.schema)
			ex, err := Examples(v.raw)
			if err != nil {
				t.Fatalf("Examples: %v", err)
			}
			defs := map[string]bool{}
			for _, e := range ex {
				defs[e.Def] = true
				if !json.Valid(e.JSON) {
					t.Errorf("%s %s: not JSON: %s", e.Def, e.Name, e.JSON)
					continue
				}
				errs, err := v.check(defPointer(e.Def), e.JSON)
				if err != nil {
					t.Fatal(err)
				}
				if len(errs) > 0 {
					t.Errorf("%s %s is invalid: %s\n%s", e.Def, e.Name, joinErrs(errs), e.JSON)
				}
			}
			t.Logf("%s: %d defs, %d examples", ch.schema, len(defs), len(ex))
		})
	}
}

func TestExamplesCoverage(t *testing.T) {
	wantUpdates := map[string]int{"stable": 14, "unstable": 19} // from ACP-FACTS
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			v := loadValidator(t, ch.schema)
			defs := rawDefs(t, v.raw)
			by := examplesFor(t, v.raw)

			for name, def := range defs {
				exs := by[name]
				if len(exs) == 0 {
					t.Errorf("%s: no example", name)
					continue
				}
				// Every branch of a def-level union must be matched by some
				// example on its own.
				for _, kw := range []string{"oneOf", "anyOf"} {
					branches, _ := def[kw].([]any)
					for k := range branches {
						ptr := fmt.Sprintf("#/$defs/%s/%s/%d", name, kw, k)
						matched := false
						for _, e := range exs {
							errs, err := v.check(ptr, e.JSON)
							if err != nil {
								t.Fatal(err)
							}
							if len(errs) == 0 {
								matched = true
								break
							}
						}
						if !matched {
							t.Errorf("%s: no example for %s branch %d", name, kw, k)
						}
					}
				}
				checkOpenEnum(t, name, def, exs)
				checkCatchAll(t, name, def, exs)
				checkUnknownMember(t, name, def, exs)
			}

			for _, e := range by["ContentBlock"] {
				if strings.HasSuffix(e.Name, "/minimal") {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(e.JSON, &m); err != nil {
					t.Fatal(err)
				}
				if m["annotations"] == nil || m["_meta"] == nil {
					t.Errorf("ContentBlock %s lacks annotations or _meta: %s", e.Name, e.JSON)
				}
			}

			kinds := map[string]bool{}
			for _, e := range by["SessionUpdate"] {
				var m struct {
					Kind string `json:"sessionUpdate"`
				}
				if err := json.Unmarshal(e.JSON, &m); err != nil {
					t.Fatal(err)
				}
				kinds[m.Kind] = true
			}
			if len(kinds) != wantUpdates[ch.name] {
				t.Errorf("SessionUpdate examples cover %d kinds, want %d: %v", len(kinds), wantUpdates[ch.name], kinds)
			}
		})
	}
}

// checkOpenEnum: a union of consts with one free branch of the same type
// needs an example outside the listed consts (an unknown string, or an
// integer error code nobody defined).
func checkOpenEnum(t *testing.T, name string, def map[string]any, exs []Example) {
	t.Helper()
	branches, _ := def["anyOf"].([]any)
	consts := map[string]bool{}
	free := false
	for _, b := range branches {
		bm, _ := b.(map[string]any)
		if c, ok := bm["const"]; ok {
			cj, _ := json.Marshal(c)
			consts[string(cj)] = true
		} else if _, ok := bm["type"].(string); ok && bm["properties"] == nil && bm["items"] == nil {
			free = true
		}
	}
	if len(consts) == 0 || !free {
		return
	}
	seen := map[string]bool{}
	for _, e := range exs {
		seen[string(e.JSON)] = true
	}
	for c := range consts {
		if !seen[c] {
			t.Errorf("%s: const %s has no example", name, c)
		}
	}
	for s := range seen {
		if !consts[s] {
			return
		}
	}
	t.Errorf("%s: open enum has no example outside its consts", name)
}

// checkCatchAll: a union with a `not`-guarded catch-all needs an example
// carrying an unknown tag and an unknown member.
func checkCatchAll(t *testing.T, name string, def map[string]any, exs []Example) {
	t.Helper()
	branches, _ := def["anyOf"].([]any)
	for _, b := range branches {
		bm, _ := b.(map[string]any)
		if _, ok := bm["not"]; !ok {
			continue
		}
		for _, e := range exs {
			if bytes.Contains(e.JSON, []byte(`"`+FutureKind+`"`)) && bytes.Contains(e.JSON, []byte(`"`+UnknownMember+`"`)) {
				return
			}
		}
		t.Errorf("%s: no catch-all example with tag %q and member %q", name, FutureKind, UnknownMember)
	}
}

// checkUnknownMember: the full example of an object def whose extra members
// are unconstrained carries the unknown member at its top level.
func checkUnknownMember(t *testing.T, name string, def map[string]any, exs []Example) {
	t.Helper()
	if _, ok := def["properties"]; !ok {
		return
	}
	if ap, ok := def["additionalProperties"]; ok && ap != true {
		return
	}
	for _, e := range exs {
		if e.Name != "full" && !(strings.HasPrefix(e.Name, "variant:") && !strings.HasSuffix(e.Name, "/minimal")) {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e.JSON, &m); err != nil {
			t.Errorf("%s %s: not an object: %s", name, e.Name, e.JSON)
			continue
		}
		if _, ok := m[UnknownMember]; !ok {
			t.Errorf("%s %s lacks %s: %s", name, e.Name, UnknownMember, e.JSON)
		}
	}
}

func TestExamplesDeterministic(t *testing.T) {
	for _, ch := range channels {
		raw := readSchema(t, ch.schema)
		a, err := Examples(raw)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Examples(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d vs %d examples", ch.name, len(a), len(b))
		}
		for i := range a {
			if a[i].Def != b[i].Def || a[i].Name != b[i].Name || !bytes.Equal(a[i].JSON, b[i].JSON) {
				t.Fatalf("%s: example %d differs: %s %s vs %s %s", ch.name, i, a[i].Def, a[i].Name, b[i].Def, b[i].Name)
			}
		}
	}
}

// A full example must keep values a float64 would round: the round-trip
// test relies on them to catch lossy number types.
func TestExamplesExactNumbers(t *testing.T) {
	by := examplesFor(t, readSchema(t, "schema.json"))
	want := map[string]string{
		"UsageUpdate":     "18446744073709551615",
		"ResourceLink":    "9007199254740993",
		"ProtocolVersion": "65535",
	}
	for def, num := range want {
		found := false
		for _, e := range by[def] {
			if bytes.Contains(e.JSON, []byte(num)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no example contains %s", def, num)
		}
	}
}
