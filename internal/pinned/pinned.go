// Package pinned gives this repository's tests the schema release that
// schema/lock.json pins. The files live in acpgen's schema cache, never in
// the repository; a test fetches them (with npm) when the cache lacks them,
// exactly as `acpgen generate` does.
package pinned

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// Root is the repository root: the folder with go.mod above the test's folder.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isAcpgen(data) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no acpgen go.mod above the test folder")
		}
		dir = parent
	}
}

func isAcpgen(gomod []byte) bool {
	return len(gomod) > 0 && string(gomod[:min(len(gomod), 32)]) == "module github.com/acpgen/acpgen\n"
}

var (
	once   sync.Once
	dir    string
	errDir error
)

// Dir is the cache folder holding the pinned release's schema files.
func Dir(t testing.TB) string {
	t.Helper()
	root := Root(t)
	once.Do(func() {
		cache, err := source.CacheDir("")
		if err != nil {
			errDir = err
			return
		}
		dir, _, errDir = source.Pinned(context.Background(), filepath.Join(root, "schema", source.LockFile),
			source.FetchOptions{Cache: cache, Stderr: os.Stderr})
	})
	if errDir != nil {
		t.Fatal(errDir)
	}
	return dir
}

// Path is the path of one pinned schema file (schema.json, schema.unstable.json).
func Path(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Dir(t), name)
}

// File reads one pinned schema file.
func File(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
