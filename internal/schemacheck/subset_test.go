package schemacheck

import (
	"fmt"
	"testing"
)

// A def outside the interpreted subset (patternProperties, if/then, a
// tuple items) is judged by the compiled validator, and an instance the
// interpreter is unsure of (a duplicate member) by the reference: both
// agree with the reference, and the interpreted defs stay interpreted.
func TestOutsideTheSubset(t *testing.T) {
	schema := []byte(`{"$defs":{
	  "Pat":{"type":"object","patternProperties":{"^x-":{"type":"integer"}}},
	  "Cond":{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}},
	  "Tuple":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},
	  "Plain":{"type":"object","properties":{"a":{"type":"string","minLength":2}},"required":["a"],"additionalProperties":false},
	  "Uses":{"type":"object","properties":{"p":{"$ref":"#/$defs/Pat"}}}
	}}`)
	v, err := New(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		def, inst   string
		interpreted bool
	}{
		{"Pat", `{"x-a":1}`, false}, {"Pat", `{"x-a":"s"}`, false}, {"Pat", `{"y":"s"}`, false},
		{"Cond", `{"a":1,"b":2}`, false}, {"Cond", `{"a":1}`, false}, {"Cond", `{}`, false},
		{"Tuple", `["a",1]`, false}, {"Tuple", `[1,"a"]`, false},
		{"Uses", `{"p":{"x-b":true}}`, false}, {"Uses", `{"p":{"x-b":2}}`, false},
		{"Plain", `{"a":"xy"}`, true}, {"Plain", `{"a":"x"}`, true}, {"Plain", `{"a":"xy","b":1}`, true},
		{"Plain", `{"a":"x","a":"xy"}`, true}, {"Plain", `{"a":"xy","a":"x"}`, true},
	} {
		want, err := v.ref.Valid(c.def, []byte(c.inst))
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Valid(c.def, []byte(c.inst))
		if err != nil || got != want {
			t.Errorf("%s %s: valid=%v (%v), the reference's %v", c.def, c.inst, got, err, want)
		}
		if interpreted := v.def(c.def).node != nil; interpreted != c.interpreted {
			t.Errorf("%s: interpreted=%v, want %v", c.def, interpreted, c.interpreted)
		}
	}
}

// What the runtime's scanner refuses (malformed JSON, trailing data, a
// string that is not UTF-8) is judged by the reference, error included.
func TestMalformedGoesToReference(t *testing.T) {
	v, err := New([]byte(`{"$defs":{"Plain":{"type":"object","properties":{"a":{"type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{"a":"x"} x`, `{"a":"x"`, `{"a":tru}`, "{\"a\":\"\xff\"}", `{"a":"x"}}`, `[`, ` {"a":"x"} `} {
		want, werr := v.ref.Valid("Plain", []byte(in))
		got, err := v.Valid("Plain", []byte(in))
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("%q: valid=%v err=%v, the reference's valid=%v err=%v", in, got, err, want, werr)
		}
	}
}

// Validators are shared by conform's goroutines: defs compiled and judged
// concurrently give the verdicts judged one at a time.
func TestConcurrentUse(t *testing.T) {
	v := stable(t)
	cases := []struct {
		def, inst string
		want      bool
	}{
		{"SessionNotification", string(update), true},
		{"SessionNotification", `{"sessionId":"s","update":{"sessionUpdate":"nope"}}`, false},
		{"ContentBlock", `{"type":"text","text":"x"}`, true},
		{"ContentBlock", `{"type":"image"}`, false},
	}
	done := make(chan string)
	for g := range 8 {
		go func() {
			for i := range 50 {
				c := cases[(g+i)%len(cases)]
				if got, err := v.Valid(c.def, []byte(c.inst)); err != nil || got != c.want {
					done <- fmt.Sprintf("%s %s: %v %v", c.def, c.inst, got, err)
					return
				}
			}
			done <- ""
		}()
	}
	for range 8 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
