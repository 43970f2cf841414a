package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/ir"
)

// The naming rule keeps acpgen's own names and qualifies schema names that
// clash with them, so ir.Reserved must list every name the emitters declare
// besides the model's. This reads the committed generated packages and
// fails when an emitter declares a name the list lacks.
func TestReservedNamesAreComplete(t *testing.T) {
	set := func(scope string) map[string]bool {
		m := map[string]bool{}
		for _, n := range ir.Reserved(scope) {
			m[n] = true
		}
		return m
	}
	decl, member, variant, conn := set("decl"), set("member"), set("variant"), set("conn")
	pkgs := vendorPackages(t)
	for _, dir := range []string{"gen/acp", "gen/acp/unstable"} {
		pkgs[dir] = parseDir(t, filepath.Join("..", "..", dir))
	}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		methods := map[string]map[string]bool{} // receiver type -> exported methods
		for file, f := range pkgs[dir] {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv != nil && d.Name.IsExported() {
						recv := receiver(d)
						if methods[recv] == nil {
							methods[recv] = map[string]bool{}
						}
						methods[recv][d.Name.Name] = true
					} else if d.Recv == nil && ours(file) && d.Name.IsExported() && !decl[d.Name.Name] {
						t.Errorf("%s/%s declares func %s, which ir.Reserved(\"decl\") lacks", dir, file, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, n := range declNames(d) {
						if ours(file) && ast.IsExported(n) && !decl[n] && !strings.HasPrefix(n, "Method") {
							t.Errorf("%s/%s declares %s, which ir.Reserved(\"decl\") lacks", dir, file, n)
						}
					}
				}
			}
		}
		for recv, ms := range methods {
			for m := range ms {
				switch {
				case recv == "AgentConn" || recv == "ClientConn":
					peer := map[string]string{"AgentConn": "UnimplementedClientHandler", "ClientConn": "UnimplementedAgentHandler"}[recv]
					if !conn[m] && !methods[peer][m] {
						t.Errorf("%s: %s.%s is neither a call nor in ir.Reserved(\"conn\")", dir, recv, m)
					}
				case decl[recv] || !ast.IsExported(recv): // acpgen's own types
				case !member[m] && !variant[m] && !(m == "String" && strings.HasSuffix(recv, "Kind")) && !metaAccessor(m, methods):
					t.Errorf("%s: method %s.%s is not in ir.Reserved(\"member\")", dir, recv, m)
				}
			}
		}
	}
}

// ours reports the files that hold acpgen's declarations rather than the model's.
func ours(file string) bool {
	switch file {
	case "dispatch.go", "gates.go", "methods.go", "extras.go":
		return true
	}
	return false
}

// metaAccessor reports the getter and setter of a typed _meta namespace,
// named after the namespace's type (checked against members by the emitter).
func metaAccessor(m string, methods map[string]map[string]bool) bool {
	_, isType := methods[strings.TrimPrefix(m, "Set")]
	return isType
}

func receiver(d *ast.FuncDecl) string {
	x := d.Recv.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func declNames(d *ast.GenDecl) []string {
	var out []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			out = append(out, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

func parseDir(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	out := map[string]*ast.File{}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = f
	}
	if len(out) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return out
}

// vendorPackages generates the vendor overlays' packages as go test ./golden
// does (golden/testdata/base.json with the overlays, in the case folders)
// and parses their files, tests left out, by folder.
func vendorPackages(t *testing.T) map[string]map[string]*ast.File {
	t.Helper()
	root := filepath.Join("..", "..")
	var chans []generator.Channel
	for _, v := range []struct {
		dir, pkg string
		overlays []string
	}{
		{"sandbox-agent", "sandboxagent", []string{"additional-directories.json", "runtime-context.json", "vendor/sandbox-agent.json"}},
		{"zeroclaw", "zeroclaw", []string{"vendor/zeroclaw.json"}},
	} {
		var overlays []string
		for _, o := range v.overlays {
			overlays = append(overlays, filepath.Join(root, "overlays", o))
		}
		chans = append(chans, generator.Channel{
			Name: "unstable", SchemaFile: "base.json", OutDir: "golden/testdata/" + v.dir, Package: v.pkg,
			ImportPath: generator.Module + "/golden/testdata/" + v.dir, Overlays: overlays,
		})
	}
	files, err := generator.Generate(generator.Config{SchemaDir: filepath.Join(root, "golden", "testdata"), Channels: chans})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]*ast.File{}
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if out[path.Dir(name)] == nil {
			out[path.Dir(name)] = map[string]*ast.File{}
		}
		out[path.Dir(name)][path.Base(name)] = f
	}
	return out
}
