package emit_test

import (
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/acpgen/acpgen/generator/source"
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

func sum(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The generated tests name the schema by where it came from: a local
// folder by a path relative to the package, a release by its version, and
// a file in the schema cache that no lock pins by a failure.
func TestGeneratedTestsLocateTheSchema(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	base := filepath.Join("golden", "testdata", "base.json")
	cache := t.TempDir()
	t.Setenv(source.CacheEnv, cache)

	t.Run("local folder", func(t *testing.T) {
		root := t.TempDir()
		wd, _ := os.Getwd()
		rel, err := filepath.Rel(filepath.Join(root, "pkg", "x"), wd)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		defs := testFiles(t, root, filepath.Dir(base), "base.json")["defs_test.go"]
		for _, want := range []string{
			`Path:     "` + rel + `/golden/testdata/base.json"`,
			`Overlays: []string{"` + rel + `/overlays/runtime-context.json"}`,
			`SHA256:   SchemaSHA256`,
		} {
			if !strings.Contains(defs, want) {
				t.Errorf("defs_test.go lacks %s:\n%s", want, defs[strings.Index(defs, "var schema"):])
			}
		}
		if strings.Contains(defs, "Version:") || strings.Contains(defs, "Unavailable:") {
			t.Error("a local schema is named as something else")
		}
	})
	t.Run("release", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, base, filepath.Join(dir, source.UnstableFile))
		l := &source.Lock{Package: source.Package, Version: "9.9.9", Integrity: "sha512-" + strings.Repeat("A", 86) + "==",
			Files: map[string]string{source.UnstableFile: "sha256:" + sum(t, base)}}
		if err := l.Write(filepath.Join(dir, source.LockFile)); err != nil {
			t.Fatal(err)
		}
		defs := testFiles(t, t.TempDir(), dir, source.UnstableFile)["defs_test.go"]
		for _, want := range []string{"Version:  SchemaVersion", "Package:  SchemaPackage", "Overlays: []string{"} {
			if !strings.Contains(defs, want) {
				t.Errorf("defs_test.go lacks %s", want)
			}
		}
		if strings.Contains(defs, "Path:") || strings.Contains(defs, "Unavailable:") {
			t.Error("a release is named as something else")
		}
	})
	t.Run("cache without a lock", func(t *testing.T) {
		dir := filepath.Join(cache, "somewhere")
		copyFile(t, base, filepath.Join(dir, "base.json"))
		defs := testFiles(t, t.TempDir(), dir, "base.json")["defs_test.go"]
		if !strings.Contains(defs, `Unavailable: "base.json was read from acpgen's schema cache, but no lock.json there pins it`) {
			t.Errorf("defs_test.go does not fail:\n%s", defs[strings.Index(defs, "var schema"):])
		}
		if strings.Contains(defs, "Path:") || strings.Contains(defs, cache) {
			t.Error("the generated test names a path into the cache")
		}
	})
}
