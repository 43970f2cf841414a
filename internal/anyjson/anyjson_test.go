package anyjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var seeds = []string{
	`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`,
	`{"a":1,"a":2}`,
	`"\ud800"`, `"\u00e9\n"`, "\"\xff\"", `{"\u0061":1}`,
	`1e400`, `-0`, `[1,]`, `{"a" 1}`, ` [ ] `, `{}`, `nul`, `"a`, `[[[[]]]]`,
}

// agrees checks one input: the same value as encoding/json, or an error
// where encoding/json gives one.
func agrees(t *testing.T, in []byte) {
	t.Helper()
	var want any
	werr := json.Unmarshal(in, &want)
	got, err := Unmarshal(in)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", in, err, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: %#v, encoding/json reads %#v", in, got, want)
	}
}

func TestAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		agrees(t, []byte(s))
	}
}

func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(agrees)
}

// BenchmarkUnmarshal compares with encoding/json on a session/update's
// params carrying 1 KiB of text.
func BenchmarkUnmarshal(b *testing.B) {
	in := []byte(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", 1024) + `"}}}`)
	b.Run("anyjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Unmarshal(in)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v any
			json.Unmarshal(in, &v)
		}
	})
}
