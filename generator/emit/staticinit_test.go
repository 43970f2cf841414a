package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
)

// dispatch.go and gates.go run nothing at package init: every
// package-level variable is a composite literal (or a pointer to one) the
// compiler lays out statically, so the linker keeps only what a program
// reaches (an agent links no ClientConn routes).
func TestDispatchHasNoInitCode(t *testing.T) {
	files := generateBase(t)
	for _, name := range []string{"dispatch.go", "gates.go"} {
		if vars := staticVars(t, name, files["acp/"+name]); vars == 0 {
			t.Errorf("%s has no package-level variables", name)
		}
	}
}

// staticVars counts the package-level variables of a generated file,
// reporting each that calls a function to get its value; a nil pointer
// naming a type, (*T)(nil), is laid out statically.
func staticVars(t *testing.T, name string, src []byte) int {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	vars := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			for i, v := range s.(*ast.ValueSpec).Values {
				vars++
				ast.Inspect(v, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok && !nilPointerOfType(c) {
						t.Errorf("%s: var %s calls %s at package init", name, s.(*ast.ValueSpec).Names[i].Name, callee(c.Fun))
					}
					return true
				})
			}
		}
	}
	return vars
}

// generateBase generates golden/testdata/base.json as one stable package.
func generateBase(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	base, err := os.ReadFile(filepath.Join("..", "..", "golden", "testdata", "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), base, 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(generator.Config{Root: t.TempDir(), SchemaDir: dir, Channels: []generator.Channel{{
		Name: "stable", SchemaFile: "schema.json", OutDir: "acp", Package: "acp", ImportPath: "example.com/acp",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The types' tables (wire.Object, wire.Union, wire.Enum, wire.Scalar) run nothing at package
// init either: composite literals whose only conversions are nil pointers
// naming a type, (*T)(nil), which the compiler lays out statically too.
func TestTablesHaveNoInitCode(t *testing.T) {
	files := generateBase(t)
	f, err := parser.ParseFile(token.NewFileSet(), "codec.go", files["acp/codec.go"], 0)
	if err != nil {
		t.Fatal(err)
	}
	wireVars := packageVars(t, filepath.Join("..", "..", "runtime", "wire"))
	tables := map[string]int{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			kind := tableKind(vs.Names[0].Name)
			if kind == "" {
				continue
			}
			tables[kind]++
			addressed := map[ast.Node]bool{}
			ast.Inspect(vs.Values[0], func(n ast.Node) bool {
				if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
					addressed[u.X] = true
				}
				if c, ok := n.(*ast.CallExpr); ok && !nilPointerOfType(c) {
					t.Errorf("table %s calls %s at package init", vs.Names[0].Name, callee(c.Fun))
				}
				// The value of another package's variable is copied at init;
				// its address is not.
				if sel, ok := n.(*ast.SelectorExpr); ok && wireVars[sel.Sel.Name] && !addressed[sel] {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "wire" {
						t.Errorf("table %s copies the variable wire.%s at package init", vs.Names[0].Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
	for _, kind := range tableKinds {
		if tables[kind] == 0 {
			t.Errorf("codec.go has no %s tables", kind)
		}
	}
}

// packageVars are the package-level variables of the Go package in dir.
func packageVars(t *testing.T, dir string) map[string]bool {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						for _, n := range s.(*ast.ValueSpec).Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

// tableKinds are the prefixes of the tables' variables: wire.Object,
// wire.Union, wire.Enum and wire.Scalar.
var tableKinds = []string{"object", "union", "enum", "scalar"}

// tableKind is the kind of table a package variable of codec.go holds, by
// its name's prefix ("" for none).
func tableKind(name string) string {
	for _, kind := range tableKinds {
		if strings.HasPrefix(name, kind) {
			return kind
		}
	}
	return ""
}

// nilPointerOfType reports a conversion (*T)(nil).
func nilPointerOfType(c *ast.CallExpr) bool {
	p, ok := c.Fun.(*ast.ParenExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	_, star := p.X.(*ast.StarExpr)
	arg, isIdent := c.Args[0].(*ast.Ident)
	return star && isIdent && arg.Name == "nil"
}

func callee(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return callee(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	case *ast.IndexListExpr:
		return callee(e.X)
	case *ast.IndexExpr:
		return callee(e.X)
	}
	return "a function"
}
