package generator_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
)

// TestArchitectureListsEveryPackage keeps ARCHITECTURE.md's package table
// complete: every Go package under generator/, runtime/, internal/ and cmd/
// is named there by its path, and every other folder with Go files is named
// by its path or a parent's.
func TestArchitectureListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := func(p string) bool { return strings.Contains(string(doc), "`"+p+"`") }
	dirs := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel("..", filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !dirs["runtime/wire"] || !dirs["generator/ir"] {
		t.Fatalf("the walk missed known packages: %v", dirs)
	}
	for dir := range dirs {
		if dir == "." {
			continue
		}
		top, _, _ := strings.Cut(dir, "/")
		switch top {
		case "generator", "runtime", "internal", "cmd":
			if !named(dir) {
				t.Errorf("ARCHITECTURE.md does not name package %s", dir)
			}
			continue
		}
		ok := false
		for p := dir; p != "." && !ok; p = filepath.ToSlash(filepath.Dir(p)) {
			ok = named(p)
		}
		if !ok {
			t.Errorf("ARCHITECTURE.md names neither %s nor a parent folder", dir)
		}
	}
}

// TestEmitReadsOnlyTheIR keeps the pipeline load -> IR -> emit: emit's
// source imports from this module only the IR, the load.Node values the IR
// carries (constants, enum values), the plain data of generator/facts
// (what overlays declare beyond the schema) and pointer escaping, so
// whatever emit needs from overlays or the protocol arrives as data.
func TestEmitReadsOnlyTheIR(t *testing.T) {
	allowed := map[string]bool{
		generator.Module + "/generator/ir":        true,
		generator.Module + "/generator/load":      true,
		generator.Module + "/generator/facts":     true,
		generator.Module + "/runtime/jsonpointer": true,
		// Patterns compiled to runtime/wire's program values.
		generator.Module + "/internal/reprog": true,
		generator.Module + "/runtime/wire":    true,
	}
	for _, imp := range moduleImports(t, "emit") {
		if !allowed[imp.path] {
			t.Errorf("%s imports %s; emit reads the IR, not the stages before it", imp.file, imp.path)
		}
	}
}

// TestOverlayMakesData keeps overlays a stage before the IR: the overlay
// engine returns its merged tree and unbound declarations, and ir binds
// them, so overlay never builds or reads a model.
func TestOverlayMakesData(t *testing.T) {
	for _, imp := range moduleImports(t, "overlay") {
		if imp.path == generator.Module+"/generator/ir" {
			t.Errorf("%s imports %s; overlays return data for ir to bind", imp.file, imp.path)
		}
	}
}

// TestGeneratedTestsAreHermetic keeps the generated tests' support package
// off the generator: acpgentest imports no generator package, so the tests
// read the schema the package was generated from beside it and never apply
// overlays or fetch a release. Through internal/corpus and
// internal/refschema it reaches generator/load, the strict JSON reader both
// parse with, which reads bytes only; nothing else under generator/.
func TestGeneratedTestsAreHermetic(t *testing.T) {
	for _, imp := range moduleImports(t, filepath.Join("..", "acpgentest")) {
		if strings.HasPrefix(imp.path, generator.Module+"/generator/") {
			t.Errorf("%s imports %s; the generated tests' support reads only what generate wrote beside the package", imp.file, imp.path)
		}
	}
	out, err := exec.Command("go", "list", "-deps", generator.Module+"/acpgentest").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	allowed := map[string]bool{generator.Module + "/generator/load": false}
	for _, dep := range strings.Fields(string(out)) {
		if _, ok := allowed[dep]; ok {
			allowed[dep] = true
		} else if strings.HasPrefix(dep, generator.Module+"/generator/") {
			t.Errorf("acpgentest depends on %s", dep)
		}
	}
	for dep, used := range allowed {
		if !used {
			t.Errorf("%s is allowed but acpgentest no longer depends on it: drop it from the list", dep)
		}
	}
}

type sourceImport struct{ file, path string }

// moduleImports lists the imports of this module's packages in the non-test
// sources of dir (relative to generator/).
func moduleImports(t *testing.T, dir string) []sourceImport {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in %s: %v", dir, err)
	}
	var out []sourceImport
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, generator.Module+"/") {
				out = append(out, sourceImport{file, p})
			}
		}
	}
	return out
}

// The runtime packages generated code imports stay free of package net: the
// type-check of generated code before writing imports them from source, and
// net would make it run cgo and write outside the outputs and the cache
// (cmd/acpgen's TestWritesOnlyOutputsAndCache); agents built on them stay
// smaller too.
func TestGeneratedRuntimeAvoidsNet(t *testing.T) {
	for _, pkg := range []string{"runtime/wire", "runtime/jsonrpc", "runtime/dispatch", "runtime/jsonpointer"} {
		out, err := exec.Command("go", "list", "-deps", generator.Module+"/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net" || dep == "runtime/cgo" {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// runtime/jsonrpc is the one home of JSON-RPC's vocabulary: request ids
// are keyed one way (jsonrpc.IDKey: a string and a number with the same
// text differ, escapes are decoded), a session is read from raw params one
// way (jsonrpc.SessionID), a message is a request, a notification or a
// response by jsonrpc.Envelope's predicates, and an id's length has one
// bound (jsonrpc.MaxIDLength), and the requests a reader holds unanswered
// have one set of named limits (jsonrpc.DefaultMaxInFlight,
// DefaultMaxRelayed, MaxAwaited). Outside runtime/jsonrpc, a function named
// for one of them must call runtime/jsonrpc's, and no constant or variable
// is named for an id-length bound or an in-flight limit.
func TestOneJSONRPCVocabulary(t *testing.T) {
	inFlightName := regexp.MustCompile(`max(inflight|pending|relayed|awaited)$`)
	calls := []struct{ named, call string }{
		{"idkey", "jsonrpc.IDKey"},
		{"sessionidof", "jsonrpc.SessionID"},
		{"isrequest", ".IsRequest()"},
		{"isnotification", ".IsNotification()"},
		{"isresponse", ".IsResponse()"},
	}
	for _, root := range []string{"../runtime", "../conform", "../inspect", "../internal", "../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(filepath.ToSlash(path), "runtime/jsonrpc/") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					if n.Body == nil {
						return false
					}
					name := strings.ToLower(n.Name.Name)
					body := string(src[n.Body.Pos()-1 : n.Body.End()-1])
					for _, c := range calls {
						if strings.Contains(name, c.named) && !strings.Contains(body, c.call) {
							t.Errorf("%s: %s is JSON-RPC vocabulary of its own: call %s", path, n.Name.Name, c.call)
						}
					}
				case *ast.ValueSpec:
					for _, id := range n.Names {
						name := strings.ToLower(id.Name)
						if strings.Contains(name, "maxid") || strings.Contains(name, "idlen") {
							t.Errorf("%s: %s bounds ids itself: use jsonrpc.MaxIDLength", path, id.Name)
						}
						if inFlightName.MatchString(name) {
							t.Errorf("%s: %s bounds requests in flight itself: use one of runtime/jsonrpc's in-flight limits", path, id.Name)
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
