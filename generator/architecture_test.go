package generator_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchitectureListsEveryPackage keeps ARCHITECTURE.md's package table
// complete: every Go package under generator/, runtime/, internal/ and cmd/
// is named there by its path, and every other folder with Go files is named
// by its path or a parent's.
func TestArchitectureListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := func(p string) bool { return strings.Contains(string(doc), "`"+p+"`") }
	dirs := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel("..", filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !dirs["runtime/wire"] || !dirs["generator/ir"] {
		t.Fatalf("the walk missed known packages: %v", dirs)
	}
	for dir := range dirs {
		if dir == "." {
			continue
		}
		top, _, _ := strings.Cut(dir, "/")
		switch top {
		case "generator", "runtime", "internal", "cmd":
			if !named(dir) {
				t.Errorf("ARCHITECTURE.md does not name package %s", dir)
			}
			continue
		}
		ok := false
		for p := dir; p != "." && !ok; p = filepath.ToSlash(filepath.Dir(p)) {
			ok = named(p)
		}
		if !ok {
			t.Errorf("ARCHITECTURE.md names neither %s nor a parent folder", dir)
		}
	}
}
