package schemacheck

import (
	"os"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/cputime"
)

func stable(tb testing.TB) *Validator {
	tb.Helper()
	b, err := os.ReadFile("../../gen/acp/testdata/schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	v, err := New(b)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// update is a session/update's params with 1 KiB of text, as
// inspect's BenchmarkObserveUpdate sends.
var update = []byte(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", 1024) + `"}}}`)

// benchValid runs valid on update, reporting CPU time per call too.
func benchValid(b *testing.B, valid func() (bool, error)) {
	if ok, err := valid(); !ok || err != nil {
		b.Fatal(ok, err)
	}
	b.ReportAllocs()
	start := cputime.Now()
	for b.Loop() {
		valid()
	}
	b.ReportMetric(float64(cputime.Now()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkValidate compares the three ways to judge one update's params:
// the interpreter (what Valid uses), the compiled JSON Schema validator
// (its fallback) and the reference.
func BenchmarkValidate(b *testing.B) {
	v := stable(b)
	const def = "SessionNotification"
	b.Run("interpreter", func(b *testing.B) {
		if v.def(def).node == nil {
			b.Fatal("not interpreted")
		}
		benchValid(b, func() (bool, error) { return v.Valid(def, update) })
	})
	b.Run("compiled", func(b *testing.B) {
		s, err := v.compiledSchema(v.def(def), def)
		if err != nil {
			b.Fatal(err)
		}
		benchValid(b, func() (bool, error) {
			doc, err := decode(update)
			if err != nil {
				return false, err
			}
			return s.Validate(doc) == nil, nil
		})
	})
	b.Run("reference", func(b *testing.B) {
		benchValid(b, func() (bool, error) { return v.ref.Valid(def, update) })
	})
}
