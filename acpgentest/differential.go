package acpgentest

import (
	"sort"
	"testing"

	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/refschema"
)

// perDef bounds the mutants tried per def, so the run stays within seconds
// while every def and every mutation kind is covered.
const perDef = 48

// Differential checks the generated validators against an independent JSON
// Schema validator, gojsonschema, on the same schema: for examples generated
// for every def and systematic mutations of them (members dropped, added and
// renamed, values replaced by null, wrong types, out-of-range and fractional
// numbers, empty, long and relative strings, unknown tags, array items
// dropped and repeated), strict decoding followed by Validate must accept
// exactly what gojsonschema accepts.
func Differential(t *testing.T, c Config) {
	schema := c.Schema.Load(t)
	ref, err := refschema.New(schema)
	if err != nil {
		t.Fatal(err)
	}
	examples, err := corpus.Examples(schema)
	if err != nil {
		t.Fatal(err)
	}
	byDef := map[string][][]byte{}
	for _, ex := range examples {
		byDef[ex.Def] = append(byDef[ex.Def], ex.JSON)
	}
	names := make([]string, 0, len(byDef))
	for name := range byDef {
		names = append(names, name)
	}
	sort.Strings(names)
	total, agree, validCases, unjudged := 0, 0, 0, 0
	for _, def := range names {
		d := c.Defs[def]
		if d.Check == nil {
			t.Errorf("no generated type for %s", def)
			continue
		}
		cases := byDef[def]
		var muts [][]byte
		for _, ex := range byDef[def] {
			muts = append(muts, corpus.Mutants(ex)...)
		}
		cases = append(cases, sample(muts, perDef)...)
		for _, inst := range cases {
			want, err := ref.Valid(def, inst)
			if err == refschema.ErrPanicked {
				unjudged++
				continue
			}
			if err != nil {
				t.Fatalf("%s: reference validator: %v", def, err)
			}
			gotErr := d.Check(inst)
			total++
			if want {
				validCases++
			}
			if (gotErr == nil) == want {
				agree++
				continue
			}
			if want {
				t.Errorf("%s: gojsonschema accepts, acpgen rejects: %v\n%s", def, gotErr, inst)
			} else {
				t.Errorf("%s: gojsonschema rejects, acpgen accepts:\n%s", def, inst)
			}
		}
	}
	t.Logf("%s: %d cases (%d valid, %d invalid) over %d defs; agreement %d/%d (%.2f%%); %d mutants gojsonschema could not judge (it panics on 1e400 against const)",
		c.Schema.Channel, total, validCases, total-validCases, len(names), agree, total, 100*float64(agree)/float64(max(total, 1)), unjudged)
}

// sample keeps at most n items, spread evenly, so every part of the list
// (every position and mutation kind) is represented.
func sample(items [][]byte, n int) [][]byte {
	if len(items) <= n {
		return items
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, items[i*len(items)/n])
	}
	return out
}
