package emit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/output"
)

// TestVocabulary generates testdata/vocabulary/schema.json (the JSON Schema
// keywords beyond the pinned schema's: array, number and object-wide
// constraints, content annotations, inline enums, nullable and any-value
// variants, names that clash) into a package inside this module and runs
// its tests: the generated round-trip and differential tests (the
// validators against gojsonschema on mutated examples) and the hand-written
// testdata/vocabulary/behaviour_test.go, which covers what gojsonschema
// cannot judge and the exact messages.
func TestVocabulary(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a generated package")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	// Under testdata, so ./... never sees it; inside the module, so the
	// generated code imports this checkout's runtime.
	tmp, err := os.MkdirTemp(filepath.Join("generator", "emit", "testdata"), "vocab-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rel := filepath.ToSlash(tmp)
	cfg := generator.Config{SchemaDir: "generator/emit/testdata/vocabulary", Channels: []generator.Channel{{
		Name: "stable", SchemaFile: "schema.json", OutDir: rel, Package: "vocab", ImportPath: generator.Module + "/" + rel,
	}}}
	files, err := generator.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := output.WriteContext(t.Context(), ".", files, cfg.Owned()); err != nil {
		t.Fatal(err)
	}
	behaviour, err := os.ReadFile(filepath.Join("generator", "emit", "testdata", "vocabulary", "behaviour_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "behaviour_test.go"), behaviour, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "test", "-count=1", "-v", "-run", "TestRoundTrip|TestDifferential|TestBehaviour", "./"+rel).CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./%s: %v\n%s", rel, err, out)
	}
	// The differential test must have judged cases, not skipped them.
	if !strings.Contains(string(out), "--- PASS: TestDifferential") || !strings.Contains(string(out), "--- PASS: TestBehaviour") {
		t.Errorf("the generated package's tests did not all run:\n%s", out)
	}
}
