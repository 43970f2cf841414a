package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator"
)

// dispatch.go runs nothing at package init: every package-level variable
// is a composite literal (or a pointer to one) the compiler lays out
// statically, so the linker keeps only what a program reaches (an agent
// links no ClientConn routes).
func TestDispatchHasNoInitCode(t *testing.T) {
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
	f, err := parser.ParseFile(token.NewFileSet(), "dispatch.go", files["acp/dispatch.go"], 0)
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
					if c, ok := n.(*ast.CallExpr); ok {
						t.Errorf("var %s calls %s at package init", s.(*ast.ValueSpec).Names[i].Name, callee(c.Fun))
					}
					return true
				})
			}
		}
	}
	if vars == 0 {
		t.Fatal("dispatch.go has no package-level variables")
	}
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
