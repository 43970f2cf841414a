package corpus

import (
	"strings"
	"testing"
)

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		equal bool
		diff  string // fragment of the diff when unequal
	}{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, true, ""},
		{`{"a":null}`, `{}`, true, ""},
		{`{}`, `{"a":null}`, true, ""},
		{`{"x":{"y":[{"z":null,"k":1}]}}`, `{"x":{"y":[{"k":1}]}}`, true, ""},
		{`{"x":{"y":null}}`, `{"x":{}}`, true, ""},
		{`[null]`, `[]`, false, "(root): array of 1 items vs 0"},
		{`{"a":[null]}`, `{"a":[]}`, false, "/a: array of 1"},
		{`{"a":[]}`, `{}`, false, "/a: [] vs absent"},
		{`{"a":{}}`, `{"a":null}`, false, "/a: {} vs absent"},
		{`{"a":false}`, `{}`, false, "/a: false vs absent"},
		{`{"a":""}`, `{"a":null}`, false, `/a: "" vs absent`},
		{`1`, `1.0`, true, ""},
		{`1e2`, `100`, true, ""},
		{`100E-2`, `1`, true, ""},
		{`-0`, `0.0`, true, ""},
		{`0.875`, `8.75e-1`, true, ""},
		{`12345678901234567890`, `12345678901234567891`, false, "12345678901234567890 vs 12345678901234567891"},
		{`9007199254740993`, `9007199254740992`, false, "(root)"},
		{`1e999999999`, `1e999999999`, true, ""},
		{`1e999999999`, `1e999999998`, false, "(root)"},
		{`-1`, `1`, false, "(root)"},
		{`"1"`, `1`, false, `(root): "1" vs 1`},
		{`"café"`, `"cafe\u0301"`, false, "(root)"},
		{`"a\u00e9"`, `"aé"`, true, ""},
		{`[1,2]`, `[2,1]`, false, "/0: 1 vs 2"},
		{`{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, false, "/a~1b/c~0d: 1 vs 2"},
		{`{"b":1,"a":1}`, `{"b":2,"a":2}`, false, "/a: 1 vs 2"}, // first in member-name order
		{`true`, `false`, false, "(root): true vs false"},
		{`null`, `null`, true, ""},
		{`null`, `{}`, false, "(root): null vs {}"},
		{`{"a":{"b":1}}`, `{"a":[1]}`, false, `/a: {"b":1} vs [1]`},
	} {
		eq, diff, err := Equal([]byte(tc.a), []byte(tc.b))
		if err != nil {
			t.Errorf("Equal(%s, %s): %v", tc.a, tc.b, err)
			continue
		}
		if eq != tc.equal {
			t.Errorf("Equal(%s, %s) = %v (%s), want %v", tc.a, tc.b, eq, diff, tc.equal)
			continue
		}
		if eq && diff != "" {
			t.Errorf("Equal(%s, %s): equal but diff %q", tc.a, tc.b, diff)
		}
		if !eq && !strings.Contains(diff, tc.diff) {
			t.Errorf("Equal(%s, %s): diff %q does not contain %q", tc.a, tc.b, diff, tc.diff)
		}
		// Equality is symmetric.
		if eq2, _, _ := Equal([]byte(tc.b), []byte(tc.a)); eq2 != eq {
			t.Errorf("Equal(%s, %s) not symmetric", tc.a, tc.b)
		}
	}
}

func TestEqualRejectsBadJSON(t *testing.T) {
	for _, tc := range [][2]string{{`{`, `{}`}, {`{}`, `{} {}`}, {`[1,]`, `[1]`}, {``, `1`}} {
		if _, _, err := Equal([]byte(tc[0]), []byte(tc[1])); err == nil {
			t.Errorf("Equal(%q, %q): want an error", tc[0], tc[1])
		}
	}
}

// Every generated example equals itself re-encoded with its keys in another
// order, and differs once a member is dropped.
func TestEqualOnExamples(t *testing.T) {
	ex, err := Examples(readSchema(t, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex {
		v, err := decodeOne(e.JSON)
		if err != nil {
			t.Fatal(err)
		}
		again, err := encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if eq, diff, err := Equal(e.JSON, again); err != nil || !eq {
			t.Fatalf("%s %s: not equal to itself: %s %v", e.Def, e.Name, diff, err)
		}
		if m, ok := v.(map[string]any); ok && m[UnknownMember] != nil {
			delete(m, UnknownMember)
			less, _ := encode(m)
			if eq, diff, _ := Equal(e.JSON, less); eq || !strings.Contains(diff, "/"+UnknownMember) {
				t.Fatalf("%s %s: dropping a member went unnoticed (%s)", e.Def, e.Name, diff)
			}
		}
	}
}
