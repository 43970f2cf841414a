package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/templates"
)

// The code people copy (docs, examples, scaffolds) sets an optional member
// to a value with new(value), as Go 1.26 allows, not by taking the address
// of a local that only holds that value: `Title: new("x")`, not
// `t := "x"` and `Title: &t`.
func TestOptionalValuesUseNew(t *testing.T) {
	repo := repoRoot(t)
	sources := map[string]string{}
	err := filepath.WalkDir(filepath.Join(repo, "examples"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		sources[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range templates.Kinds() {
		for _, http := range []bool{false, true} {
			files, err := templates.Render(kind, templates.Data{Name: "x", Import: "example.com/acp", HTTP: http && kind != "proxy", GoVersion: "1.26.0"})
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range files {
				if strings.HasSuffix(name, ".go") {
					sources[filepath.Join("templates", kind, name)] = string(b)
				}
			}
		}
	}
	docs, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	docs = append(docs, filepath.Join(repo, "README.md"))
	inline := regexp.MustCompile("`[^`\n]*= &[a-z][A-Za-z0-9]*\\)?`")
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inline.FindAllString(string(b), -1) {
			t.Errorf("%s: %s takes the address of a local: write new(value)", doc, m)
		}
		for i, block := range goBlocks(string(b)) {
			sources[doc+"#"+string(rune('0'+i))] = block
		}
	}
	for name, src := range sources {
		f := parseSnippet(src)
		if f == nil {
			t.Errorf("%s: does not parse as Go", name)
			continue
		}
		for _, v := range addressedConstants(f) {
			t.Errorf("%s: %s holds a constant only to be addressed: write new(value)", name, v)
		}
	}
}

// goBlocks are the ```go blocks of a Markdown text.
func goBlocks(md string) []string {
	var out []string
	for _, part := range strings.Split(md, "```go\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		out = append(out, block)
	}
	return out
}

// parseSnippet parses a Go file, or declarations, or statements (after
// imports); "{ ... }" stands for a block left out.
func parseSnippet(src string) *ast.File {
	src = strings.ReplaceAll(src, "{ ... }", "{}")
	var imports, rest []string
	for _, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, "import ") {
			imports = append(imports, l)
		} else {
			rest = append(rest, l)
		}
	}
	head, body := strings.Join(imports, "\n"), strings.Join(rest, "\n")
	for _, full := range []string{src, "package p\n" + src, "package p\n" + head + "\nfunc _() {\n" + body + "\n}"} {
		f, err := parser.ParseFile(token.NewFileSet(), "", full, parser.SkipObjectResolution)
		if err == nil {
			return f
		}
	}
	return nil
}

// addressedConstants names the locals declared as `v := CONSTANT` (a
// literal, true or false, or a qualified name) whose every use is &v.
func addressedConstants(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		body, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for _, st := range body.List {
			as, ok := st.(*ast.AssignStmt)
			if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !constantLike(as.Rhs[0]) {
				continue
			}
			name := as.Lhs[0].(*ast.Ident).Name
			uses, addressed := 0, 0
			ast.Inspect(body, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.UnaryExpr:
					if id, ok := m.X.(*ast.Ident); ok && m.Op == token.AND && id.Name == name {
						addressed++
					}
				case *ast.Ident:
					if m.Name == name && m != as.Lhs[0] {
						uses++
					}
				}
				return true
			})
			if uses > 0 && uses == addressed {
				out = append(out, name)
			}
		}
		return true
	})
	return out
}

func constantLike(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return e.Name == "true" || e.Name == "false"
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	}
	return false
}
