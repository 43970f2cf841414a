package acpgentest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"sync"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/runtime/wire"
)

// perDef bounds the mutants tried per def, so the run stays within seconds
// while every def and every mutation kind is covered.
const perDef = 48

var formatsOnce sync.Once

// registerFormats teaches gojsonschema the formats it does not know: integer
// widths and double by value range; and it checks the string formats (uri,
// date-time, date, uuid, regex) with the functions the generated validators
// call, so both sides judge them alike.
func registerFormats() {
	formatsOnce.Do(func() {
		i := func(v int64) *big.Rat { return new(big.Rat).SetInt64(v) }
		u := new(big.Rat).SetInt(new(big.Int).SetUint64(math.MaxUint64))
		for _, f := range []struct {
			name   string
			lo, hi *big.Rat
		}{
			{"int32", i(math.MinInt32), i(math.MaxInt32)},
			{"uint16", i(0), i(math.MaxUint16)},
			{"uint32", i(0), i(math.MaxUint32)},
			{"int64", i(math.MinInt64), i(math.MaxInt64)},
			{"uint64", i(0), u},
		} {
			gojsonschema.FormatCheckers.Add(f.name, rangeChecker{f.lo, f.hi})
		}
		gojsonschema.FormatCheckers.Add("double", doubleChecker{})
		for name, check := range map[string]func(string) bool{
			"uri": wire.IsURI, "date-time": wire.IsDateTime, "date": wire.IsDate, "uuid": wire.IsUUID, "regex": wire.IsRegex,
		} {
			gojsonschema.FormatCheckers.Add(name, stringChecker(check))
		}
	})
}

type rangeChecker struct{ lo, hi *big.Rat }

func (c rangeChecker) IsFormat(input any) bool {
	r, ok := input.(*big.Rat)
	if !ok {
		return true // the format applies to numbers only
	}
	return r.Cmp(c.lo) >= 0 && r.Cmp(c.hi) <= 0
}

type doubleChecker struct{}

func (doubleChecker) IsFormat(input any) bool {
	r, ok := input.(*big.Rat)
	if !ok {
		return true
	}
	f, _ := r.Float64()
	return !math.IsInf(f, 0)
}

// stringChecker checks a string format with the function the generated
// validators call; the format applies to strings only.
type stringChecker func(string) bool

func (c stringChecker) IsFormat(input any) bool {
	s, ok := input.(string)
	return !ok || c(s)
}

// reference validates instances against defs of one schema document.
type reference struct {
	defs  json.RawMessage
	cache map[string]*gojsonschema.Schema
}

func newReference(schema []byte) (*reference, error) {
	var doc struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, err
	}
	defs, err := load.Parse(doc.Defs)
	if err != nil {
		return nil, err
	}
	for _, d := range defs.Members {
		draft7(d.Value)
	}
	return &reference{defs: defs.JSON(), cache: map[string]*gojsonschema.Schema{}}, nil
}

// draft7 renames the 2020-12 keywords draft 7 spells differently, so that
// gojsonschema checks them instead of ignoring them: dependentRequired is
// draft 7's dependencies (its array form). It walks only schema positions,
// so a member named like a keyword is left alone.
func draft7(s *load.Node) {
	if s == nil || s.Kind != load.Object {
		return
	}
	for i := range s.Members {
		m := &s.Members[i]
		switch m.Name {
		case "dependentRequired":
			m.Name = "dependencies"
		case "properties", "patternProperties", "$defs":
			if m.Value.Kind == load.Object {
				for _, p := range m.Value.Members {
					draft7(p.Value)
				}
			}
		case "items", "additionalProperties", "unevaluatedProperties", "not", "propertyNames":
			draft7(m.Value)
		case "allOf", "anyOf", "oneOf":
			for _, x := range m.Value.Items {
				draft7(x)
			}
		}
	}
}

// valid reports gojsonschema's verdict. gojsonschema knows drafts up to 7, so
// the 2020-12 schema is read as draft 7 through a wrapper whose $ref points
// into the original $defs.
func (r *reference) valid(def string, instance []byte) (bool, error) {
	s, ok := r.cache[def]
	if !ok {
		ref, _ := json.Marshal("#" + load.DefPointer(def))
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.AutoDetect = false
		var err error
		s, err = sl.Compile(gojsonschema.NewBytesLoader([]byte(fmt.Sprintf(`{"$ref":%s,"$defs":%s}`, ref, r.defs))))
		if err != nil {
			return false, err
		}
		r.cache[def] = s
	}
	return validate(s, instance)
}

// errReferencePanicked marks an instance gojsonschema cannot judge: v1.2.0
// dereferences nil when a number it cannot re-marshal (1e400) meets const.
var errReferencePanicked = errors.New("gojsonschema panicked")

func validate(s *gojsonschema.Schema, instance []byte) (valid bool, err error) {
	defer func() {
		if recover() != nil {
			valid, err = false, errReferencePanicked
		}
	}()
	res, err := s.Validate(gojsonschema.NewBytesLoader(instance))
	if err != nil {
		return false, err
	}
	return res.Valid(), nil
}

// Differential checks the generated validators against an independent JSON
// Schema validator, gojsonschema, on the same schema: for examples generated
// for every def and systematic mutations of them (members dropped, added and
// renamed, values replaced by null, wrong types, out-of-range and fractional
// numbers, empty, long and relative strings, unknown tags, array items
// dropped and repeated), strict decoding followed by Validate must accept
// exactly what gojsonschema accepts.
func Differential(t *testing.T, c Config) {
	registerFormats()
	schema := c.Schema.Load(t)
	ref, err := newReference(schema)
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
			muts = append(muts, mutants(ex)...)
		}
		cases = append(cases, sample(muts, perDef)...)
		for _, inst := range cases {
			want, err := ref.valid(def, inst)
			if err == errReferencePanicked {
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
