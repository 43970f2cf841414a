// Package typecheck type-checks generated Go packages in memory, before
// anything is written: a schema whose names or shapes the emitter cannot
// turn into valid Go (a member named like a generated method, a def named
// like a generated declaration, a cycle of required members) fails
// generation with an error that names the def or member, instead of
// replacing good output with code that does not compile.
//
// Imports are resolved without the network: the standard library from
// export data kept in acpgen's cache (see stdcache.go), made on a miss from
// GOROOT's sources (go/importer's "source" importer, which skips function
// bodies), and acpgen's runtime packages (github.com/acpgen/acpgen/runtime/...)
// from the sources beside this package in the acpgen module, function bodies
// skipped. The generated packages are checked in full, function bodies
// included. What is loaded is kept for later checks in the same process.
package typecheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// RuntimePrefix is the import path prefix of acpgen's runtime packages,
// which are checked from source.
const RuntimePrefix = "github.com/acpgen/acpgen/runtime/"

// Check type-checks the Go packages among files (slash-separated path ->
// content, as generator.Generate returns them): the non-test .go files of
// each folder form one package. schemaDir is where the schema files named
// in the generated headers live; errors point into them. The error names
// the schema def (and member) behind the first declaration that does not
// compile, with the Go error; nil means every package compiles.
func Check(files map[string][]byte, schemaDir string) error {
	pkgs := map[string][]string{} // folder -> file paths
	for p := range files {
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			pkgs[path.Dir(p)] = append(pkgs[path.Dir(p)], p)
		}
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		names := pkgs[d]
		sort.Strings(names)
		if err := checkPackage(d, names, files, schemaDir); err != nil {
			return err
		}
	}
	return nil
}

// loader holds what is loaded once per process: the file set, the standard
// library importer and the runtime packages. Checks run one at a time.
var loader struct {
	mu      sync.Mutex
	fset    *token.FileSet
	std     *stdImporter
	runtime map[string]*types.Package
	// cache is the folder given to UseCache; useCache says one was given.
	cache    string
	useCache bool
	noRead   bool // a cache entry could not be read: entries are only written
}

// importerFunc adapts a function to types.Importer.
type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(p string) (*types.Package, error) { return f(p) }

// setup makes the loader ready. Called with loader.mu held.
func setup() {
	if loader.fset == nil {
		loader.fset = token.NewFileSet()
		dir := ""
		switch {
		case !loader.useCache:
			dir = cacheDir()
		case loader.cache != "":
			dir = filepath.Join(loader.cache, CacheSub, currentToolchain().key())
		}
		loader.std = newStdImporter(loader.fset, dir, !loader.noRead)
		loader.runtime = map[string]*types.Package{}
	}
}

// reset drops what the loader holds; the next check loads afresh. Called
// with loader.mu held.
func reset() {
	loader.fset, loader.std, loader.runtime = nil, nil, nil
}

// UseCache makes later checks keep the standard library's type information
// under cache, a schema cache folder as source.CacheDir returns it, instead
// of source.CacheDir(""); "" keeps none.
func UseCache(cache string) {
	loader.mu.Lock()
	defer loader.mu.Unlock()
	loader.cache, loader.useCache = cache, true
	if loader.std != nil {
		loader.std.dir = ""
		if cache != "" {
			loader.std.dir = filepath.Join(cache, CacheSub, currentToolchain().key())
		}
	}
}

// load imports a package for a generated one: acpgen's runtime from source,
// anything else from the standard library. Called with loader.mu held.
func load(p string) (*types.Package, error) {
	setup()
	if !strings.HasPrefix(p, RuntimePrefix) {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			return nil, fmt.Errorf("typecheck: import %q: only the standard library and %s... can be resolved", p, RuntimePrefix)
		}
		return loader.std.Import(p)
	}
	if pkg, ok := loader.runtime[p]; ok {
		return pkg, nil
	}
	dir, err := runtimeDir(strings.TrimPrefix(p, RuntimePrefix))
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("typecheck: %s: %w", p, err)
	}
	var asts []*ast.File
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(loader.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("typecheck: %s: %w", p, err)
		}
		asts = append(asts, f)
	}
	conf := types.Config{Importer: importerFunc(load), IgnoreFuncBodies: true}
	pkg, err := conf.Check(p, loader.fset, asts, nil)
	if err != nil {
		return nil, fmt.Errorf("typecheck: %s: %w", p, err)
	}
	loader.runtime[p] = pkg
	return pkg, nil
}

// runtimeDir finds the source folder of the runtime package rel (e.g.
// "wire"): beside this package in the acpgen module when its sources are
// where it was built from, else where the go command says (offline).
func runtimeDir(rel string) (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "..", "runtime", filepath.FromSlash(rel))
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, nil
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", RuntimePrefix+rel)
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("typecheck: cannot find the sources of %s%s (go list: %v)", RuntimePrefix, rel, err)
}

// checkPackage type-checks the generated files names, the package in folder
// dir.
func checkPackage(dir string, names []string, files map[string][]byte, schemaDir string) error {
	loader.mu.Lock()
	defer loader.mu.Unlock()
	// Comments only serve to explain an error: the files are parsed
	// without them, and again with them when the package does not compile.
	asts, errs, err := checkFiles(dir, names, files, 0)
	if loader.std.broken != nil {
		// A cache entry that passed its checksum could not be read, and
		// the packages read so far may be incomplete: check again from
		// scratch, from GOROOT's sources, rewriting the entries.
		loader.noRead = true
		reset()
		asts, errs, err = checkFiles(dir, names, files, 0)
	}
	if err != nil && asts != nil {
		asts, errs, err = checkFiles(dir, names, files, parser.ParseComments)
	}
	fset := loader.fset
	if err == nil {
		return nil
	}
	if asts == nil {
		return err
	}
	if len(errs) == 0 {
		var te types.Error
		if !errors.As(err, &te) {
			return fmt.Errorf("%s: type-checking the generated Go: %w", dir, err)
		}
		errs = append(errs, te)
	}
	idx := index(asts)
	schema := filepath.Join(schemaDir, idx.schemaFile)
	// Report the error that says most about the schema: one explained in
	// schema terms, else one inside a def's declarations, else the first.
	best, bestRank := errs[0], 0
	for _, e := range errs {
		if r := rank(fset, idx, e); r > bestRank {
			best, bestRank = e, r
		}
	}
	msg := explain(fset, idx, best)
	if more := len(errs) - 1; more > 0 {
		msg += fmt.Sprintf(" (and %d more Go error", more)
		if more > 1 {
			msg += "s"
		}
		msg += ")"
	}
	return errors.New(schema + msg)
}

// checkFiles parses (with mode's comments) and type-checks one generated
// package: its files, the hard errors, and the error of types.Config.Check
// (nil if it compiles); files nil means it did not parse. Called with
// loader.mu held.
func checkFiles(dir string, names []string, files map[string][]byte, mode parser.Mode) ([]*ast.File, []types.Error, error) {
	setup()
	// Load the imports first, and drop what a cache miss checked from
	// source, before the package's syntax trees take their memory. An
	// import that fails fails again, and is reported, in the check.
	for _, n := range names {
		f, err := parser.ParseFile(token.NewFileSet(), n, files[n], parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil {
				load(p)
			}
		}
	}
	loader.std.release()
	defer loader.std.release()
	var asts []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(loader.fset, n, files[n], mode|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: generated Go does not parse: %v", dir, err)
		}
		asts = append(asts, f)
	}
	var errs []types.Error
	conf := types.Config{
		Importer: importerFunc(load),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && !te.Soft {
				errs = append(errs, te)
			}
		},
	}
	_, err := conf.Check(dir, loader.fset, asts, nil)
	return asts, errs, err
}

// decls indexes a generated package: which def each declaration comes from.
type decls struct {
	schemaFile string                     // from the generated header
	defOf      map[string]string          // Go type name -> $defs name
	structs    map[string]*ast.StructType // Go type name -> its struct
	files      []*ast.File
}

var (
	defComment = regexp.MustCompile(`Schema: \$defs/([^\s.]+(?:\.[^\s.]+)*)\.`)
	headerLine = regexp.MustCompile(`(?m)^// Source: [^,]+, ([^ ,]+) \(`)
)

func index(files []*ast.File) *decls {
	d := &decls{defOf: map[string]string{}, structs: map[string]*ast.StructType{}, files: files, schemaFile: "schema.json"}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if m := headerLine.FindStringSubmatch(c.Text); m != nil {
					d.schemaFile = m[1]
				}
			}
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil {
					doc = gd.Doc
				}
				if doc != nil {
					if m := defComment.FindStringSubmatch(doc.Text()); m != nil {
						if _, seen := d.defOf[ts.Name.Name]; !seen {
							d.defOf[ts.Name.Name] = m[1]
						}
					}
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					if _, seen := d.structs[ts.Name.Name]; !seen {
						d.structs[ts.Name.Name] = st
					}
				}
			}
		}
	}
	return d
}

// enclosing returns the names of the top-level declaration at pos: the
// declared name and, for a method, its receiver's type.
func (d *decls) enclosing(fset *token.FileSet, pos token.Pos) (name, recv string) {
	for _, f := range d.files {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		for _, decl := range f.Decls {
			if pos < decl.Pos() || pos > decl.End() {
				continue
			}
			switch x := decl.(type) {
			case *ast.FuncDecl:
				if x.Recv != nil && len(x.Recv.List) == 1 {
					recv = typeName(x.Recv.List[0].Type)
				}
				return x.Name.Name, recv
			case *ast.GenDecl:
				for _, s := range x.Specs {
					if pos < s.Pos() || pos > s.End() {
						continue
					}
					switch s := s.(type) {
					case *ast.TypeSpec:
						return s.Name.Name, ""
					case *ast.ValueSpec:
						if len(s.Names) > 0 {
							return s.Names[0].Name, ""
						}
					}
				}
			}
		}
	}
	return "", ""
}

func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return typeName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return typeName(x.X)
	}
	return ""
}

// member returns the JSON name of the field goName of the struct type t.
func (d *decls) member(t, goName string) (string, bool) {
	st := d.structs[t]
	if st == nil {
		return "", false
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name != goName {
				continue
			}
			if f.Tag != nil {
				tag, _ := strconv.Unquote(f.Tag.Value)
				if j, ok := lookupTag(tag, "json"); ok && j != "-" {
					j, _, _ = strings.Cut(j, ",")
					return j, true
				}
			}
			return goName, true
		}
	}
	return "", false
}

func lookupTag(tag, key string) (string, bool) {
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		k, rest, ok := strings.Cut(tag, ":\"")
		if !ok {
			return "", false
		}
		v, after, ok := strings.Cut(rest, "\"")
		if !ok {
			return "", false
		}
		if k == key {
			return v, true
		}
		tag = after
	}
	return "", false
}

var (
	sameName  = regexp.MustCompile(`field and method with the same name (\w+)`)
	redecl    = regexp.MustCompile(`^(\w+) redeclared in this block`)
	recursive = regexp.MustCompile(`^invalid recursive type:? (\w+)`)
	ident     = regexp.MustCompile(`\b[A-Z]\w*\b`)
)

// rank says how much an error tells about the schema: 2 for the shapes
// explain describes in schema terms, 1 inside a def's declarations.
func rank(fset *token.FileSet, d *decls, e types.Error) int {
	switch {
	case recursive.MatchString(e.Msg), sameName.MatchString(e.Msg):
		return 2
	case redecl.MatchString(e.Msg):
		if _, ok := d.defOf[redecl.FindStringSubmatch(e.Msg)[1]]; ok {
			return 2
		}
	}
	name, recv := d.enclosing(fset, e.Pos)
	if _, ok := d.defOf[recv]; ok {
		return 1
	}
	if _, ok := d.defOf[name]; ok {
		return 1
	}
	return 0
}

// explain turns a go/types error into a message that starts with the JSON
// pointer of the def (and member) it comes from, when it can be told.
func explain(fset *token.FileSet, d *decls, e types.Error) string {
	at := fset.Position(e.Pos)
	goErr := fmt.Sprintf("%s:%d:%d: %s", at.Filename, at.Line, at.Column, e.Msg)
	ptr := func(def string) string { return "#/$defs/" + def }
	switch {
	case recursive.MatchString(e.Msg):
		return cycle(d, recursive.FindStringSubmatch(e.Msg)[1], goErr)
	case sameName.MatchString(e.Msg):
		field := sameName.FindStringSubmatch(e.Msg)[1]
		_, recv := d.enclosing(fset, e.Pos)
		if def, ok := d.defOf[recv]; ok {
			if m, ok := d.member(recv, field); ok {
				return fmt.Sprintf("%s/properties/%s: member %q becomes the Go field %s.%s, which clashes with the generated method %s; rename the member with an overlay (generated Go does not compile: %s)",
					ptr(def), m, m, recv, field, field, goErr)
			}
			return fmt.Sprintf("%s: %s (generated Go does not compile: %s)", ptr(def), e.Msg, goErr)
		}
	case redecl.MatchString(e.Msg):
		name := redecl.FindStringSubmatch(e.Msg)[1]
		if def, ok := d.defOf[name]; ok {
			return fmt.Sprintf("%s: def %q becomes the Go type %s, which clashes with a declaration acpgen generates; rename the def with an overlay (generated Go does not compile: %s)",
				ptr(def), def, name, goErr)
		}
	}
	// Anything else: the def of the enclosing declaration, or of a name the
	// error mentions.
	name, recv := d.enclosing(fset, e.Pos)
	for _, n := range append([]string{recv, name}, ident.FindAllString(e.Msg, -1)...) {
		if def, ok := d.defOf[n]; ok {
			return fmt.Sprintf("%s: generated Go does not compile: %s", ptr(def), goErr)
		}
	}
	return fmt.Sprintf(": generated Go does not compile: %s", goErr)
}

// cycle explains an invalid recursive type: the defs and required members
// that contain each other, and how to break the cycle.
func cycle(d *decls, start, goErr string) string {
	// Follow the fields that hold a value (not a pointer, slice or map) of
	// another struct type, from start back to start.
	var path []string // "Def.member"
	seen := map[string]bool{}
	var walk func(t string) bool
	walk = func(t string) bool {
		if seen[t] {
			return t == start
		}
		seen[t] = true
		st := d.structs[t]
		if st == nil {
			return false
		}
		for _, f := range st.Fields.List {
			next := valueType(f.Type)
			if next == "" || d.structs[next] == nil {
				continue
			}
			for _, n := range f.Names {
				m, _ := d.member(t, n.Name)
				path = append(path, fmt.Sprintf("%s member %q", defName(d, t), m))
				if walk(next) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	def := defName(d, start)
	if !walk(start) {
		return fmt.Sprintf("#/$defs/%s: the def contains itself through required members; make one of them optional (generated Go does not compile: %s)", def, goErr)
	}
	return fmt.Sprintf("#/$defs/%s: the def contains itself through required members: %s -> %s; a value would be infinite, so make one of these members optional in the schema (with an overlay) to break the cycle (generated Go does not compile: %s)",
		def, strings.Join(path, " -> "), def, goErr)
}

func defName(d *decls, goType string) string {
	if def, ok := d.defOf[goType]; ok {
		return def
	}
	return goType
}

// valueType returns the named type a field holds by value, "" for
// pointers, slices, maps and others (which break a recursion).
func valueType(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
