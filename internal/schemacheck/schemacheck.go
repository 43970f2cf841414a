// Package schemacheck judges instances against the $defs of an ACP schema
// document at codec speed, for the checkers that read the schema at run time
// (acpgen conform and inspect), which cannot link generated code.
//
// Each def is compiled once into a tree of draft 7 keywords, read as
// internal/refschema reads the schema (its draft 7 reading of the defs, its
// format checks), and interpreted over the instance's bytes with the
// runtime's scanner: no decoded document, one read of each object however
// many branches of a union look at it. A def that uses a keyword outside the
// interpreted subset goes to a compiled JSON Schema validator
// (santhosh-tekuri/jsonschema in draft 7 mode) instead; an instance the
// interpreter is unsure of (a duplicate member, a string that is not UTF-8,
// a number beyond float64 against a const) goes to the reference.
// Only the verdict comes from here: an invalid instance is explained by
// refschema, so a violation reads exactly as the reference's. The
// differential tests hold the verdicts to the reference's.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/internal/refschema"
	"github.com/acpgen/acpgen/runtime/wire"
)

// resource is the URL the defs are compiled under.
const resource = "acpgen:///schema.json"

// Validator validates instances against defs of one schema document. It is
// safe for concurrent use.
type Validator struct {
	ref *refschema.Validator

	mu       sync.Mutex
	nodes    *compiler
	compiler *jsonschema.Compiler
	defs     map[string]*compiled
	pool     sync.Pool // *state
}

// compiled is one def: its interpreted tree, or the compiled schema when
// the tree cannot express it.
type compiled struct {
	node *node
	s    *jsonschema.Schema
	err  error
}

// New reads the $defs of a (merged) schema document.
func New(schema []byte) (*Validator, error) {
	ref, err := refschema.New(schema)
	if err != nil {
		return nil, err
	}
	defs, err := refschema.Draft7Defs(schema)
	if err != nil {
		return nil, err
	}
	nodes, err := newCompiler(defs)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"$defs":` + string(defs) + `}`)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	for name := range formatNames(doc, map[string]bool{}) {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: formatCheck(name)})
	}
	if err := c.AddResource(resource, doc); err != nil {
		return nil, err
	}
	v := &Validator{ref: ref, nodes: nodes, compiler: c, defs: map[string]*compiled{}}
	v.pool.New = func() any { return &state{} }
	return v, nil
}

// Reference is the reference validator the verdicts agree with.
func (v *Validator) Reference() *refschema.Validator { return v.ref }

// formatNames collects every format a schema names, so that each is judged
// as the reference judges it (a format the reference does not know passes
// there, so it must pass here too).
func formatNames(node any, into map[string]bool) map[string]bool {
	switch n := node.(type) {
	case map[string]any:
		for k, x := range n {
			if s, ok := x.(string); ok && k == "format" {
				into[s] = true
			}
			formatNames(x, into)
		}
	case []any:
		for _, x := range n {
			formatNames(x, into)
		}
	}
	return into
}

// formatCheck checks a format with refschema's checker: a string as it is,
// a number as the exact rational the reference hands its checkers; other
// values pass, as the reference checks formats of strings and numbers only.
func formatCheck(name string) func(any) error {
	return func(v any) error {
		var in any
		switch x := v.(type) {
		case string:
			in = x
		case json.Number:
			r, ok := new(big.Rat).SetString(string(x))
			if !ok {
				return nil
			}
			in = r
		default:
			return nil
		}
		if !refschema.IsFormat(name, in) {
			return fmt.Errorf("not a valid %s", name)
		}
		return nil
	}
}

// def compiles def once: its tree, else its compiled schema.
func (v *Validator) def(def string) *compiled {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.defs[def]
	if !ok {
		c = &compiled{}
		c.node, c.err = v.nodes.def(def)
		if errors.Is(c.err, errUnsupported) {
			c.node = nil
			c.s, c.err = v.compiler.Compile(resource + "#" + load.DefPointer(def))
		}
		v.defs[def] = c
	}
	return c
}

// compiledSchema is def's compiled JSON Schema: what judges a def outside
// the interpreted subset (compiled on first use otherwise, for the tests
// that compare it too).
func (v *Validator) compiledSchema(c *compiled, def string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c.s == nil {
		var err error
		if c.s, err = v.compiler.Compile(resource + "#" + load.DefPointer(def)); err != nil {
			return nil, err
		}
	}
	return c.s, nil
}

// crossCheck, set by ACPGEN_SCHEMACHECK_CROSSCHECK=1, makes every verdict
// also the reference's, and a disagreement a panic: for running a test
// suite (conform's, inspect's) with every message it exchanges compared.
var crossCheck = os.Getenv("ACPGEN_SCHEMACHECK_CROSSCHECK") == "1"

// Valid reports whether instance is valid against def. An instance that is
// not one JSON document is an error.
func (v *Validator) Valid(def string, instance []byte) (bool, error) {
	ok, err := v.valid(def, instance)
	if crossCheck && err == nil {
		if want, rerr := v.ref.Valid(def, instance); rerr == nil && want != ok {
			panic(fmt.Sprintf("schemacheck: %s: verdict %v, the reference's %v, on %s", def, ok, want, instance))
		}
	}
	return ok, err
}

func (v *Validator) valid(def string, instance []byte) (bool, error) {
	c := v.def(def)
	if c.err != nil {
		return false, c.err
	}
	// The runtime's scanner refuses what encoding/json reads with
	// replacement characters (a string that is not UTF-8): the reference
	// judges what it refuses, and rejects what is not JSON.
	// An object is checked as its members are read (judge).
	if c.node == nil || !isObject(instance) {
		var d wire.Decoder
		d.Reset(instance, wire.Strict)
		if d.Skip() != nil || d.Finish() != nil {
			return v.ref.Valid(def, instance)
		}
	}
	if c.node != nil {
		s := v.pool.Get().(*state)
		s.data = instance
		verdict := s.judge(c.node)
		s.data, s.unsure, s.lastEnd = nil, false, 0
		clear(s.objects)
		clear(s.arrays)
		v.pool.Put(s)
		if verdict == unsure {
			return v.ref.Valid(def, instance)
		}
		return verdict == valid, nil
	}
	sch, err := v.compiledSchema(c, def)
	if err != nil {
		return false, err
	}
	doc, err := decode(instance)
	if err != nil {
		return v.ref.Valid(def, instance)
	}
	return sch.Validate(doc) == nil, nil
}

// Violations returns why instance is invalid against def (none when
// valid), as the reference reports them.
func (v *Validator) Violations(def string, instance []byte) ([]refschema.Violation, error) {
	if ok, err := v.Valid(def, instance); ok && err == nil {
		return nil, nil
	}
	return v.ref.Violations(def, instance)
}

// isObject reports whether the document starts an object.
func isObject(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '{'
}
