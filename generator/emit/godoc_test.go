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
