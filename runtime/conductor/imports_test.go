package conductor

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The conductor is built from the standard library, acpgen's runtime and
// the module's small standard-library helpers (shared), only: no generated
// package (it reads envelopes, never params) and no third-party module.
func TestImportsOnlyRuntime(t *testing.T) {
	shared := map[string]bool{
		"github.com/acpgen/acpgen/internal/procgroup":  true,
		"github.com/acpgen/acpgen/internal/syncwriter": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !strings.HasPrefix(path, "github.com/acpgen/acpgen/runtime/") && !shared[path] {
				t.Errorf("%s imports %s: the conductor uses the standard library and runtime/ only", f, path)
			}
		}
	}
}
