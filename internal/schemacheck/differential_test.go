package schemacheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/refschema"
)

// schemas are the merged schemas this repository generates from: the four
// channels of gen/ and the golden overlay packages.
func schemas(t testing.TB) map[string][]byte {
	t.Helper()
	var files []string
	for _, glob := range []string{"../../gen/acp/testdata/schema.json", "../../gen/acp/*/testdata/schema.json",
		"../../gen/acp/*/*/testdata/schema.json", "../../golden/testdata/*/testdata/schema.json", "../../golden/testdata/base.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 9 {
		t.Fatalf("found %d schemas, want the 4 channels and the golden ones: %v", len(files), files)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// agree checks one instance: the verdict must be the reference's; where the
// reference cannot judge (it panics on 1e400 against const), it is skipped.
func agree(t *testing.T, v *Validator, def string, inst []byte) (judged, valid bool) {
	t.Helper()
	want, err := v.ref.Valid(def, inst)
	if err == refschema.ErrPanicked {
		return false, false
	}
	if err != nil {
		t.Fatalf("%s: reference: %v", def, err)
	}
	got, err := v.Valid(def, inst)
	if err != nil {
		t.Fatalf("%s: %v\n%s", def, err, inst)
	}
	if got != want {
		t.Errorf("%s: reference valid=%v, schemacheck valid=%v:\n%s", def, want, got, inst)
	}
	if got, err := compiledValid(v, def, inst); err != nil || got != want {
		t.Errorf("%s: reference valid=%v, the compiled fallback valid=%v (%v):\n%s", def, want, got, err, inst)
	}
	return true, want
}

// perDef bounds the mutants tried per def (the reference takes about a
// millisecond each), spread over all of them so every kind is covered.
const perDef = 10

// spread picks n items evenly from xs.
func spread(xs [][]byte, n int) [][]byte {
	if len(xs) <= n {
		return xs
	}
	out := make([][]byte, 0, n)
	for i := range n {
		out = append(out, xs[i*len(xs)/n])
	}
	return out
}

// TestDifferential holds the verdicts to gojsonschema's on every def of
// every schema: its generated examples and all their systematic mutations.
func TestDifferential(t *testing.T) {
	for file, schema := range schemas(t) {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(file))), func(t *testing.T) {
			v, err := New(schema)
			if err != nil {
				t.Fatal(err)
			}
			exs, err := corpus.Examples(schema)
			if err != nil {
				t.Fatal(err)
			}
			total, valid := 0, 0
			defs := map[string]bool{}
			muts := map[string][][]byte{}
			var cases []corpus.Example
			for _, ex := range exs {
				defs[ex.Def] = true
				cases = append(cases, ex)
				muts[ex.Def] = append(muts[ex.Def], corpus.Mutants(ex.JSON)...)
			}
			for def, ms := range muts {
				for _, m := range spread(ms, perDef) {
					cases = append(cases, corpus.Example{Def: def, JSON: m})
				}
			}
			for _, ex := range cases {
				for _, inst := range [][]byte{ex.JSON} {
					if judged, ok := agree(t, v, ex.Def, inst); judged {
						total++
						if ok {
							valid++
						}
					}
				}
			}
			if valid == 0 || valid == total {
				t.Errorf("%d cases, %d valid: want both verdicts exercised", total, valid)
			}
			var fallback []string
			for def := range defs {
				if c := v.def(def); c.node == nil {
					fallback = append(fallback, def)
				}
			}
			sort.Strings(fallback)
			if len(fallback) > 0 {
				t.Errorf("defs outside the interpreted subset: %v", fallback)
			}
		})
	}
}

// TestCorpusAgrees holds the verdicts to the reference's on the hand-written
// message corpus, valid and invalid.
func TestCorpusAgrees(t *testing.T) {
	for _, ch := range []struct{ dir, schema string }{
		{"stable", "../../gen/acp/testdata/schema.json"},
		{"unstable", "../../gen/acp/unstable/testdata/schema.json"},
	} {
		b, err := os.ReadFile(ch.schema)
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(b)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := corpus.LoadMessages(filepath.Join("../../testdata/corpus", ch.dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatalf("no corpus messages in %s", ch.dir)
		}
		for _, m := range msgs {
			if judged, ok := agree(t, v, m.Def, m.Payload); judged && !ok {
				t.Errorf("%s: corpus message invalid", m.File)
			}
		}
	}
	b, err := os.ReadFile("../../gen/acp/unstable/testdata/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := corpus.LoadInvalid("../../testdata/corpus/invalid")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inv {
		if !json.Valid(in.JSON) {
			continue
		}
		agree(t, v, in.Def, in.JSON)
	}
}

// compiledValid is the verdict of the compiled JSON Schema validator, the
// fallback for what the interpreter does not judge.
func compiledValid(v *Validator, def string, inst []byte) (bool, error) {
	s, err := v.compiledSchema(v.def(def), def)
	if err != nil {
		return false, err
	}
	doc, err := decode(inst)
	if err != nil {
		return false, err
	}
	return s.Validate(doc) == nil, nil
}
