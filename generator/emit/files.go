// Package emit turns an IR model into a Go package's files with jennifer.
// Files is the entry: each file has its emitter (types.go: types; codec.go
// and tables.go: codecs over runtime/wire; validate.go, methods.go,
// dispatch.go, gates.go, api.go, extras.go, doc.go and the tests).
package emit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// WirePath is the import path of the runtime the generated code uses.
const WirePath = "github.com/acpgen/acpgen/runtime/wire"

// seenDepth is how many nested embedded unions a decoded object may have; each
// level tracks its own required members in one uint64 (wire.RequiredWords).
const seenDepth = 4

// maxAliased is how many members of one type may have aliases (the runtime
// loop keeps one wire.AliasHit per such member on its stack).
const maxAliased = 8

// Config says what to emit.
type Config struct {
	Package    string // Go package name
	ImportPath string // Go import path of the package
	// Provenance lines for the header, e.g. "source: @agentclientprotocol/sdk@2.4.0 schema.json sha256:...".
	Provenance []string
	// Descriptions copies the schema's description text into doc comments.
	// Off in this repo: our generated code carries only comments we generate.
	Descriptions                                           bool
	SchemaPackage, SchemaVersion, SchemaSHA256, SchemaFile string
	// ProtocolVersion is the wire protocol version of the schema (v1 files: 1).
	ProtocolVersion int
	// Overlays describes the overlays applied, for provenance in doc comments.
	Overlays []facts.OverlayInfo
	// Gates are the capability gates resolved against this model.
	Gates []*ir.Gate
	// Semantics are the overlays' typed meanings behind the helpers of extras.go.
	Semantics facts.Semantics
	// TestSchemaSHA256 is the hex sha256 of the package's TestSchemaFile,
	// which the generated tests check before they read it.
	TestSchemaSHA256 string
}

// provenance says which overlays added or changed a node.
func (e *emitter) provenance(ids []string) string {
	var parts []string
	for _, id := range ids {
		found := false
		for _, o := range e.o.Overlays {
			if o.ID == id {
				s := fmt.Sprintf("Added or changed by %q (%s", o.Title, o.Status)
				if o.URL != "" {
					s += ", " + o.URL
				}
				parts = append(parts, s+").")
				found = true
			}
		}
		if !found {
			parts = append(parts, fmt.Sprintf("Added or changed by overlay %q.", id))
		}
	}
	return strings.Join(parts, " ")
}

// Files emits the package's files: name -> gofmt'ed source.
func Files(m *ir.Model, o Config) (map[string][]byte, error) {
	e := &emitter{m: m, o: o, helpers: map[string]bool{}}
	if err := e.check(); err != nil {
		return nil, err
	}
	if err := e.checkExtras(); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	files := []struct {
		name string
		fn   func(*jen.File)
		test bool
	}{
		{"types.go", e.types, false},
		{"codec.go", e.codecs, false},
		{"methods.go", e.methodsFile, false},
		{"validate.go", e.validators, false},
		{"extras.go", e.extras, false},
		{"doc.go", e.packageDoc, false},
		{"api.go", e.api, false},
		{"defs_test.go", e.defsTest, true},
	}
	if e.hasGates() {
		files = append(files, struct {
			name string
			fn   func(*jen.File)
			test bool
		}{"gates.go", e.gates, false}, struct {
			name string
			fn   func(*jen.File)
			test bool
		}{"gates_test.go", e.gatesTest, true})
	}
	if e.hasDispatch() {
		files = append(files, struct {
			name string
			fn   func(*jen.File)
			test bool
		}{"dispatch.go", e.dispatch, false})
	}
	for _, f := range files {
		jf := jen.NewFilePathName(o.ImportPath, o.Package)
		for _, line := range e.header() {
			jf.HeaderComment(line)
		}
		jf.ImportName(WirePath, "wire")
		if f.test {
			jf.ImportName(TestPath, "acpgentest")
		}
		f.fn(jf)
		var buf bytes.Buffer
		if err := jf.Render(&buf); err != nil {
			// jennifer appends the whole unformatted source; one line is enough.
			msg, _, _ := strings.Cut(err.Error(), " while formatting source")
			return nil, fmt.Errorf("emit %s/%s: generated code does not format (a generator bug): %s", o.Package, f.name, msg)
		}
		out[f.name] = buf.Bytes()
	}
	if err := e.patternErr(); err != nil {
		return nil, err
	}
	if ex := e.exampleFile(); ex != nil {
		// An external test package: it uses the package as a caller does.
		jf := jen.NewFile(o.Package + "_test")
		for _, line := range e.header() {
			jf.HeaderComment(line)
		}
		jf.ImportName(o.ImportPath, o.Package)
		ex(jf)
		var buf bytes.Buffer
		if err := jf.Render(&buf); err != nil {
			msg, _, _ := strings.Cut(err.Error(), " while formatting source")
			return nil, fmt.Errorf("emit %s/example_test.go: generated code does not format (a generator bug): %s", o.Package, msg)
		}
		out["example_test.go"] = buf.Bytes()
	}
	return out, nil
}

type emitter struct {
	m       *ir.Model
	o       Config
	helpers map[string]bool
	pending []func(*jen.File)
	// flushed counts the pending helpers already written.
	flushed int
	// shapeChecks are the helpers that check raw values against a shape,
	// named in shapeNames.
	shapeChecks []jen.Code
	shapeNames  map[*ir.Ref]string
	patterns    []pattern
	// stringRules are the wire.StringRule values declared, by their fields.
	stringRules []stringRule
	// decls and kindNames: see unions.go.
	decls     map[string]bool
	kindNames map[*ir.Union]string
	// shorts are the text helpers (api.go), derived once.
	shorts []*shortcut
	// colds are the structs described by tables (tables.go), decided once.
	colds map[*ir.Type]bool
	// coldUnions are the object unions described by tables (uniontables.go).
	coldUnions map[*ir.Type]bool
}

func (e *emitter) header() []string {
	return append([]string{"Code generated by acpgen from the ACP JSON Schema. DO NOT EDIT."}, e.o.Provenance...)
}

// check rejects models the emitter cannot express.
func (e *emitter) check() error {
	for _, t := range e.m.Types {
		req := 0
		for _, f := range t.Fields {
			if f.Required {
				req++
			}
		}
		if req > 64 {
			return fmt.Errorf("%s#%s: more than 64 required members", t.File, t.Pointer)
		}
		if n := len(aliasedFields(t)); n > maxAliased {
			return fmt.Errorf("%s#%s: %d members have aliases; at most %d are supported", t.File, t.Pointer, n, maxAliased)
		}
		if d := unionDepth(t); d > seenDepth {
			return fmt.Errorf("%s#%s: embedded unions nest %d deep; at most %d are supported", t.File, t.Pointer, d, seenDepth)
		}
	}
	return nil
}

func unionDepth(t *ir.Type) int {
	if t.Union == nil || t.Kind == ir.ValueUnion {
		return 1
	}
	max := 0
	for _, v := range t.Union.Variants {
		if v.Object {
			if d := unionDepth(v.Payload.Type); d > max {
				max = d
			}
		}
	}
	if t.Kind == ir.Struct {
		return 1 + max
	}
	return max
}
