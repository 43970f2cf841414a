package emit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/pinned"
)

// The runnable example is built from the model: the pinned stable schema
// gets one; a schema whose session/new needs a member the example cannot
// fill gets none, and its package doc does not point at it.
func TestExampleFollowsModel(t *testing.T) {
	base := pinned.File(t, source.StableFile)
	gen := func(schema []byte) map[string][]byte {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "schema.json"), schema, 0o644); err != nil {
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
	files := gen(base)
	ex := string(files["acp/example_test.go"])
	for _, want := range []string{"package acp_test\n", `"example.com/acp"`, "func Example() {", "client.SessionPrompt(ctx", "acp.AgentMessageChunkText(t.Text)", "// Output:\n\t// agent: hello\n\t// stop reason: end_turn\n}"} {
		if !strings.Contains(ex, want) {
			t.Errorf("example_test.go lacks %q:\n%s", want, ex)
		}
	}
	if !strings.Contains(string(files["acp/doc.go"]), "Example (example_test.go)") {
		t.Error("package doc does not point at the example")
	}

	var doc map[string]any
	if err := json.Unmarshal(base, &doc); err != nil {
		t.Fatal(err)
	}
	ns := doc["$defs"].(map[string]any)["NewSessionRequest"].(map[string]any)
	ns["properties"].(map[string]any)["model"] = map[string]any{"type": "object"}
	ns["required"] = append(ns["required"].([]any), "model")
	data, _ := json.Marshal(doc)
	files = gen(data)
	if _, ok := files["acp/example_test.go"]; ok {
		t.Error("example generated although session/new requires a member it cannot fill")
	}
	if strings.Contains(string(files["acp/doc.go"]), "example_test.go") {
		t.Error("package doc points at a missing example")
	}
}
