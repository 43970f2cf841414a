// Package goapi reports how the Go API acpgen generates changes between two
// schema revisions, with golang.org/x/exp/apidiff, so that a maintainer knows
// whether an SDK release is major, minor or patch.
package goapi

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/schemadiff"
	"golang.org/x/exp/apidiff"
)

// Level is a semantic-versioning increment.
type Level string

// Increments, from least to most severe.
const (
	Patch Level = "patch"
	Minor Level = "minor"
	Major Level = "major"
)

// ChannelReport is the API comparison of one channel's package.
type ChannelReport struct {
	Name         string
	Package      string
	Note         string // why it was not compared, when it was not
	Incompatible []string
	Compatible   []string
	// Provenance lists changed provenance constants (SchemaVersion, ...),
	// which change on every schema bump by design and are not counted.
	Provenance []string
}

// Report is the API comparison of every channel.
type Report struct {
	Old, New string
	Channels []ChannelReport
}

// Level is the release increment the changes require.
func (r *Report) Level() Level {
	l := Patch
	for _, ch := range r.Channels {
		if len(ch.Incompatible) > 0 {
			return Major
		}
		if len(ch.Compatible) > 0 {
			l = Minor
		}
	}
	return l
}

// handlerGrowth matches a method added to a generated handler interface.
var handlerGrowth = regexp.MustCompile(`^(?:\./\S+\.)?(\w+Handler)\.\w+: added$`)

// provenance matches apidiff's messages about the generated provenance
// constants.
var provenance = regexp.MustCompile(`^(\./\S+\.)?Schema(Package|Version|File|SHA256): `)

// Compare generates each channel's Go package from both revisions (without
// overlays) and compares their exported APIs. Type-checking resolves the
// generated code's import of acpgen's runtime from the current folder's
// module, which must be acpgen itself or require it.
func Compare(old, new schemadiff.Side, channels []generator.Channel) (*Report, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	r := &Report{Old: old.Label, New: new.Label}
	fset := token.NewFileSet()
	// One importer for both sides, so both see the same runtime package.
	imp := importer.ForCompiler(fset, "source", nil)
	for _, ch := range channels {
		ch.MetaFile, ch.Overlays = "", nil
		cr := ChannelReport{Name: ch.Name, Package: ch.ImportPath}
		_, errA := os.Stat(filepath.Join(old.Dir, ch.SchemaFile))
		_, errB := os.Stat(filepath.Join(new.Dir, ch.SchemaFile))
		if errA != nil || errB != nil {
			cr.Note = fmt.Sprintf("%s is not in both revisions: not compared", ch.SchemaFile)
			r.Channels = append(r.Channels, cr)
			continue
		}
		pa, err := build(fset, imp, cwd, old, ch)
		if err != nil {
			return nil, err
		}
		pb, err := build(fset, imp, cwd, new, ch)
		if err != nil {
			return nil, err
		}
		for _, c := range apidiff.Changes(pa, pb).Changes {
			switch {
			case provenance.MatchString(c.Message):
				cr.Provenance = append(cr.Provenance, c.Message)
			case c.Compatible:
				cr.Compatible = append(cr.Compatible, c.Message)
			case handlerGrowth.MatchString(c.Message) && pb.Scope().Lookup("Unimplemented"+handlerGrowth.FindStringSubmatch(c.Message)[1]) != nil:
				// Implementations embed Unimplemented<X>Handler, which gains
				// the method too: growing the interface breaks none of them.
				cr.Compatible = append(cr.Compatible, c.Message+" (Unimplemented"+handlerGrowth.FindStringSubmatch(c.Message)[1]+" covers it)")
			default:
				cr.Incompatible = append(cr.Incompatible, c.Message)
			}
		}
		r.Channels = append(r.Channels, cr)
	}
	return r, nil
}

// build generates one channel from side and type-checks it. The files are
// named as if in cwd, because the importer resolves imports relative to the
// importing file's folder.
func build(fset *token.FileSet, imp types.Importer, cwd string, side schemadiff.Side, ch generator.Channel) (*types.Package, error) {
	files, err := generator.Generate(generator.Config{SchemaDir: side.Dir, Channels: []generator.Channel{ch}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", side.Label, err)
	}
	var parsed []*ast.File
	for _, p := range generator.Paths(files) {
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(cwd, filepath.Base(p)), files[p], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("%s: generated %s: %w", side.Label, p, err)
		}
		parsed = append(parsed, f)
	}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(ch.ImportPath, fset, parsed, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: type-checking the generated %s package: %w (run apidiff inside a module that is or requires %s)", side.Label, ch.Name, err, generator.Module)
	}
	return pkg, nil
}

// Text writes the report.
func (r *Report) Text(w io.Writer) {
	fmt.Fprintf(w, "Go API diff %s -> %s\n", r.Old, r.New)
	for _, ch := range r.Channels {
		fmt.Fprintf(w, "\n%s (%s): ", ch.Name, ch.Package)
		switch {
		case ch.Note != "":
			fmt.Fprintln(w, ch.Note)
			continue
		case len(ch.Incompatible)+len(ch.Compatible) == 0:
			fmt.Fprintln(w, "no API changes")
		default:
			fmt.Fprintf(w, "%d incompatible, %d compatible\n", len(ch.Incompatible), len(ch.Compatible))
		}
		for _, m := range ch.Incompatible {
			fmt.Fprintln(w, "  incompatible: "+m)
		}
		for _, m := range ch.Compatible {
			fmt.Fprintln(w, "  compatible:   "+m)
		}
		if len(ch.Provenance) > 0 {
			fmt.Fprintf(w, "  (%d provenance constants changed, as on every schema bump; not counted)\n", len(ch.Provenance))
		}
	}
	fmt.Fprintf(w, "\nrelease: %s\n", r.Level())
}
