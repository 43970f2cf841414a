// Package refschema is acpgen's independent validator: gojsonschema judging
// instances against the $defs of an ACP schema document. It is the reference
// the generated validators are compared with (acpgentest.Differential) and the
// validator acpgen conform checks a peer's frames with, so both read the same
// schema the same way.
package refschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
	"github.com/acpgen/acpgen/runtime/wire"
)

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

// Validator validates instances against defs of one schema document. It is
// safe for concurrent use (conform validates on its reader goroutine too).
type Validator struct {
	mu    sync.Mutex
	defs  json.RawMessage
	cache map[string]*gojsonschema.Schema
}

// New reads the $defs of a (merged) schema document.
func New(schema []byte) (*Validator, error) {
	registerFormats()
	defs, err := Draft7Defs(schema)
	if err != nil {
		return nil, err
	}
	return &Validator{defs: defs, cache: map[string]*gojsonschema.Schema{}}, nil
}

// Draft7Defs returns the $defs of a (merged) schema document as this
// validator reads them: with the 2020-12 keywords draft 7 spells
// differently renamed. Another validator given them in draft 7 mode judges
// by the same rules.
func Draft7Defs(schema []byte) (json.RawMessage, error) {
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
	return defs.JSON(), nil
}

// IsFormat reports whether input (a string, or a number as *big.Rat) is of
// the named format as this validator judges formats: true for a format it
// does not know.
func IsFormat(name string, input any) bool {
	registerFormats()
	return gojsonschema.FormatCheckers.IsFormat(name, input)
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

// Valid reports gojsonschema's verdict. gojsonschema knows drafts up to 7, so
// the 2020-12 schema is read as draft 7 through a wrapper whose $ref points
// into the original $defs.
func (r *Validator) Valid(def string, instance []byte) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.compiled(def)
	if err != nil {
		return false, err
	}
	return validate(s, instance)
}

func (r *Validator) compiled(def string) (*gojsonschema.Schema, error) {
	if s, ok := r.cache[def]; ok {
		return s, nil
	}
	ref, _ := json.Marshal("#" + load.DefPointer(def))
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	s, err := sl.Compile(gojsonschema.NewBytesLoader([]byte(fmt.Sprintf(`{"$ref":%s,"$defs":%s}`, ref, r.defs))))
	if err != nil {
		return nil, err
	}
	r.cache[def] = s
	return s, nil
}

// ErrPanicked marks an instance gojsonschema cannot judge: v1.2.0
// dereferences nil when a number it cannot re-marshal (1e400) meets const.
var ErrPanicked = errors.New("gojsonschema panicked")

func validate(s *gojsonschema.Schema, instance []byte) (valid bool, err error) {
	defer func() {
		if recover() != nil {
			valid, err = false, ErrPanicked
		}
	}()
	res, err := s.Validate(gojsonschema.NewBytesLoader(instance))
	if err != nil {
		return false, err
	}
	return res.Valid(), nil
}

// Violation is one reason an instance is invalid, located by a JSON pointer.
type Violation struct {
	Pointer string
	Reason  string
}

// Violations returns why instance is invalid against def (none when valid).
func (r *Validator) Violations(def string, instance []byte) ([]Violation, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, err := r.compiled(def)
	if err != nil {
		return nil, err
	}
	var res *gojsonschema.Result
	func() {
		defer func() {
			if recover() != nil {
				err = ErrPanicked
			}
		}()
		res, err = s.Validate(gojsonschema.NewBytesLoader(instance))
	}()
	if err != nil {
		return nil, err
	}
	var out []Violation
	for _, e := range res.Errors() {
		p := pointer(e.Field())
		if e.Type() == "required" {
			if name, ok := e.Details()["property"].(string); ok {
				p += "/" + jsonpointer.Escape(name)
			}
		}
		out = append(out, Violation{Pointer: p, Reason: e.Description()})
	}
	return out, nil
}

// pointer turns gojsonschema's dotted field ("prompt.0.text", "(root)") into
// a JSON pointer. Member names holding a dot are split wrongly; ACP's defs
// name none.
func pointer(field string) string {
	if field == "(root)" || field == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(field, ".") {
		b.WriteString("/" + jsonpointer.Escape(tok))
	}
	return b.String()
}
