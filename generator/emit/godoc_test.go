package emit_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/pinned"
)

// The package doc of a generated package with a connection tells a handler
// author how to reach the connection, what cancellation does, how decoding
// is lenient or strict, and how errors are answered; the turn paragraph is
// there only where the model says session/cancel ends a turn.
func TestPackageDocForHandlerAuthors(t *testing.T) {
	for _, c := range []struct {
		file string
		turn bool
	}{{source.StableFile, true}, {source.V2StableFile, false}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "schema.json"), pinned.File(t, c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		protocol := 1
		if !c.turn {
			protocol = 2
		}
		files, err := generator.Generate(generator.Config{Root: t.TempDir(), SchemaDir: dir, Channels: []generator.Channel{{
			Name: "stable", Protocol: protocol, SchemaFile: "schema.json", OutDir: "acp", Package: "acp", ImportPath: "example.com/acp",
		}}})
		if err != nil {
			t.Fatal(err)
		}
		text := packageDoc(t, files["acp/doc.go"])
		for _, want := range []string{
			"# Reaching the connection", "a.conn = acp.NewAgentConn(a, os.Stdin, os.Stdout, acp.ConnOptions{})",
			"# Cancellation", "is answered -32800",
			"# Decoding", "ConnOptions.Strict", "wire.Decode(data, v, wire.Strict)",
			"# Errors", "*RPCError", "-32603",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: package doc lacks %q:\n%s", c.file, want, text)
			}
		}
		turn := `answered with stopReason "cancelled"`
		if strings.Contains(text, turn) != c.turn {
			t.Errorf("%s: turn paragraph present = %v, want %v", c.file, !c.turn, c.turn)
		}
	}
}

// packageDoc is the package comment of doc.go as go doc reads it.
func packageDoc(t *testing.T, src []byte) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doc.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.NewFromFiles(fset, []*ast.File{f}, "example.com/acp")
	if err != nil {
		t.Fatal(err)
	}
	return p.Doc
}

// Every exported function and method of a generated package has a doc
// comment that opens with its own name (go doc shows a comment the emitter
// wrote after a function as the next one's doc), and no comment lies
// between declarations unattached; the client's SessionPrompt keeps its
// cancellation paragraph.
func TestFuncDocsBelongToTheirFunc(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), pinned.File(t, source.StableFile), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(generator.Config{Root: t.TempDir(), SchemaDir: dir, Channels: []generator.Channel{{
		Name: "stable", Protocol: 1, SchemaFile: "schema.json", OutDir: "acp", Package: "acp", ImportPath: "example.com/acp",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		attached := map[*ast.CommentGroup]bool{f.Doc: true}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				attached[d.Doc] = true
				key := d.Name.Name
				if d.Recv != nil {
					key = recvName(d.Recv.List[0].Type) + "." + key
				}
				docs[key] = d.Doc.Text()
				if d.Name.IsExported() && !strings.HasPrefix(d.Doc.Text(), d.Name.Name+" ") {
					t.Errorf("%s: %s's doc opens %.60q", name, key, d.Doc.Text())
				}
			case *ast.GenDecl:
				attached[d.Doc] = true
			}
		}
		for _, cg := range f.Comments {
			if cg.Pos() > f.Package && !attached[cg] && !insideDecl(f, cg) {
				t.Errorf("%s:%d: comment belongs to no declaration: %.60q", name, fset.Position(cg.Pos()).Line, cg.Text())
			}
		}
	}
	if d := docs["ClientConn.SessionPrompt"]; !strings.Contains(d, "When ctx ends first, it sends session/cancel") {
		t.Errorf("ClientConn.SessionPrompt's doc lacks its cancellation paragraph:\n%s", d)
	}
}

func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// insideDecl reports whether cg lies within a declaration of f (a field's
// or statement's comment).
func insideDecl(f *ast.File, cg *ast.CommentGroup) bool {
	for _, d := range f.Decls {
		if d.Pos() <= cg.Pos() && cg.End() <= d.End() {
			return true
		}
	}
	return false
}
