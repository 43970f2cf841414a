package corpus

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/xeipuuv/gojsonschema"
)

// channels are the two pinned schemas (read from the schema cache) and the
// corpus directory for each.
var channels = []struct{ name, schema string }{
	{"stable", "schema.json"},
	{"unstable", "schema.unstable.json"},
}

func repoRoot() string { return filepath.Join("..", "..") }

// validator checks instances against parts of one ACP schema with
// gojsonschema. gojsonschema knows drafts 4 to 7 only, so the 2020-12 schema
// is loaded as draft 7: a wrapper whose root $ref points into the original
// $defs (JSON pointers resolve against the document, whatever the key is).
// Keywords draft 7 lacks (unevaluatedProperties, discriminator, x-*) are
// ignored, which only makes the check weaker, never wrongly strict.
type validator struct {
	raw  []byte
	defs json.RawMessage // the $defs object, spliced into every wrapper

	mu    sync.Mutex
	cache map[string]*gojsonschema.Schema
}

var (
	validatorsMu sync.Mutex
	validators   = map[string]*validator{}
)

func loadValidator(t testing.TB, file string) *validator {
	t.Helper()
	validatorsMu.Lock()
	defer validatorsMu.Unlock()
	if v, ok := validators[file]; ok {
		return v
	}
	raw := pinned.File(t, file)
	var doc struct {
		Defs json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parse schema %s: %v", file, err)
	}
	v := &validator{raw: raw, defs: doc.Defs, cache: map[string]*gojsonschema.Schema{}}
	validators[file] = v
	return v
}

func (v *validator) compile(pointer string) (*gojsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.cache[pointer]; ok {
		return s, nil
	}
	ref, _ := json.Marshal(pointer)
	wrapper := fmt.Sprintf(`{"$ref":%s,"$defs":%s}`, ref, v.defs)
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	s, err := sl.Compile(gojsonschema.NewBytesLoader([]byte(wrapper)))
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", pointer, err)
	}
	v.cache[pointer] = s
	return s, nil
}

// check validates instance against the schema at pointer (e.g.
// "#/$defs/ContentBlock") and returns the errors, empty when valid.
func (v *validator) check(pointer string, instance []byte) ([]string, error) {
	s, err := v.compile(pointer)
	if err != nil {
		return nil, err
	}
	r, err := s.Validate(gojsonschema.NewBytesLoader(instance))
	if err != nil {
		return nil, err
	}
	var errs []string
	for _, e := range r.Errors() {
		errs = append(errs, e.String())
	}
	if !r.Valid() && len(errs) == 0 {
		errs = []string{"invalid"}
	}
	return errs, nil
}

func defPointer(def string) string { return "#/$defs/" + def }

func readSchema(t testing.TB, file string) []byte {
	t.Helper()
	return loadValidator(t, file).raw
}

func joinErrs(errs []string) string { return strings.Join(errs, "; ") }
