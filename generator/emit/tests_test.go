package emit_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/emit"
)

// testFiles generates the golden base with the runtime-context overlay from
// schemaDir into root/pkg/x and returns the generated test files.
func testFiles(t *testing.T, root, schemaDir, schemaFile string) map[string]string {
	t.Helper()
	files, err := generator.Generate(generator.Config{Root: root, SchemaDir: schemaDir, Channels: []generator.Channel{{
		Name: "unstable", SchemaFile: schemaFile, OutDir: "pkg/x", Package: "x", ImportPath: "example.com/m/pkg/x",
		Overlays: []string{filepath.Join("overlays", "runtime-context.json")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{}
	for name, b := range files {
		if strings.HasSuffix(name, "_test.go") {
			tests[path.Base(name)] = string(b)
		}
	}
	if tests["defs_test.go"] == "" || tests["gates_test.go"] == "" {
		t.Fatalf("generated tests: %v", generator.Paths(files))
	}
	// Only public imports, so the tests compile in any module.
	for name, src := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.Split(p, "/")[0], ".") && p != emit.TestPath && p != emit.WirePath {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
	return tests
}

// The generated tests carry their schema: the merged schema (the overlay's
// member in it, no description text) beside the package, named by a path
// relative to it and checked by its hash; the same bytes on every run,
// wherever the base schema was read from.
func TestGeneratedTestsCarryTheirSchema(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	// The base, with description text on a def and on a member named
	// "description" (a member, kept; its description text, left out).
	base, err := os.ReadFile(filepath.Join("golden", "testdata", "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	described := strings.Replace(string(base), `"text": {`, `"description": {"type": "string", "description": "words"}, "text": {`, 1)
	described = strings.Replace(described, `"$schema"`, `"description": "the base", "$schema"`, 1)
	if described == string(base) {
		t.Fatal("the base changed shape")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "base.json"), []byte(described), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := func(root string) map[string][]byte {
		files, err := generator.Generate(generator.Config{Root: root, SchemaDir: dir, Channels: []generator.Channel{{
			Name: "unstable", SchemaFile: "base.json", OutDir: "pkg/x", Package: "x", ImportPath: "example.com/m/pkg/x",
			Overlays: []string{filepath.Join("overlays", "runtime-context.json")},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	testFiles(t, t.TempDir(), filepath.Join("golden", "testdata"), "base.json")
	files := gen(t.TempDir())
	schema := files["pkg/x/"+emit.TestSchemaFile]
	if schema == nil {
		t.Fatalf("no %s among %v", emit.TestSchemaFile, generator.Paths(files))
	}
	sum := sha256.Sum256(schema)
	defs := string(files["pkg/x/defs_test.go"])
	want := `var schema = acpgentest.Schema{
	Channel: "unstable",
	Path:    "testdata/schema.json",
	SHA256:  "` + hex.EncodeToString(sum[:]) + `",
}`
	if !strings.Contains(defs, want) {
		t.Errorf("defs_test.go lacks\n%s\nin\n%s", want, defs[strings.Index(defs, "var schema"):])
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Defs["PromptRequest"].Properties["runtimeContext"]; !ok {
		t.Error("the overlay's member is not in the test schema")
	}
	if m := doc.Defs["TextContent"].Properties["description"]; string(bytes.Join(bytes.Fields(m), nil)) != `{"type":"string"}` {
		t.Errorf("the member named description: %s", m)
	}
	if bytes.Contains(schema, []byte(`"description": "`)) {
		t.Error("the test schema keeps description text")
	}
	if !bytes.HasPrefix(schema, []byte("{\n  \"")) || !bytes.HasSuffix(schema, []byte("}\n")) {
		t.Errorf("not indented: %.40q", schema)
	}
	if again := gen(t.TempDir())["pkg/x/"+emit.TestSchemaFile]; !bytes.Equal(again, schema) {
		t.Error("a second run writes other bytes")
	}
}
