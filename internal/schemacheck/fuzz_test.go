package schemacheck

import (
	"encoding/json"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/refschema"
)

var (
	fuzzOnce sync.Once
	fuzzV    *Validator
	fuzzDefs []string
	fuzzErr  error
)

// fuzzSetup loads the unstable channel's schema (the widest) and its defs.
func fuzzSetup(tb testing.TB) (*Validator, []string, []corpus.Example) {
	b, err := os.ReadFile("../../gen/acp/unstable/testdata/schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	exs, err := corpus.Examples(b)
	if err != nil {
		tb.Fatal(err)
	}
	fuzzOnce.Do(func() {
		fuzzV, fuzzErr = New(b)
		seen := map[string]bool{}
		for _, ex := range exs {
			if !seen[ex.Def] {
				seen[ex.Def] = true
				fuzzDefs = append(fuzzDefs, ex.Def)
			}
		}
		sort.Strings(fuzzDefs)
	})
	if fuzzErr != nil {
		tb.Fatal(fuzzErr)
	}
	return fuzzV, fuzzDefs, exs
}

// FuzzVerdicts holds the verdict on any JSON document, against any def, to
// gojsonschema's. Where both find it invalid, the violations (pointers
// included) are the reference's by construction (Violations).
func FuzzVerdicts(f *testing.F) {
	v, defs, exs := fuzzSetup(f)
	index := map[string]uint16{}
	for i, d := range defs {
		index[d] = uint16(i)
	}
	for i, ex := range exs {
		if i%7 == 0 {
			f.Add(index[ex.Def], ex.JSON)
		}
	}
	f.Fuzz(func(t *testing.T, i uint16, inst []byte) {
		if !json.Valid(inst) {
			return
		}
		def := defs[int(i)%len(defs)]
		want, err := v.ref.Valid(def, inst)
		if err == refschema.ErrPanicked {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Valid(def, inst)
		if err != nil {
			t.Fatalf("%s: %v", def, err)
		}
		if got != want {
			t.Fatalf("%s: reference valid=%v, schemacheck valid=%v:\n%s", def, want, got, inst)
		}
		vs, err := v.Violations(def, inst)
		if err != nil || (len(vs) == 0) != want {
			t.Fatalf("%s: valid=%v but violations %v (%v)", def, want, vs, err)
		}
	})
}
