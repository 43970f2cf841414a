package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

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
	decl, member, conn := set("decl"), set("member"), set("conn")
	for _, dir := range []string{"gen/acp", "gen/acp/unstable", "golden/sandboxagent", "golden/zeroclaw"} {
		methods := map[string]map[string]bool{} // receiver type -> exported methods
		for file, f := range parseDir(t, filepath.Join("..", "..", dir)) {
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
				case !member[m] && !metaAccessor(m, methods):
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
