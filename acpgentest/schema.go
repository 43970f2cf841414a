// Package acpgentest runs the tests acpgen generates beside each package it
// emits: defs_test.go (every $defs type round-trips; the validators agree
// with gojsonschema) and gates_test.go (every capability gate, positive and
// negative). The generated tests import only this package, the standard
// library and runtime/wire, so they compile in any module that generates its
// own SDK with acpgen; Go would refuse acpgen's internal packages there.
package acpgentest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/generator/source"
)

// Schema locates the schema a package was generated from, so its tests
// check exactly that schema. The generator fills it in; go test runs the
// tests in the package's folder, which relative paths start from.
type Schema struct {
	Channel string // "stable" or "unstable"
	File    string // the schema file's name, e.g. schema.json
	SHA256  string // hex sha256 of the file, before overlays
	// Package and Version name the published release the file belongs to.
	// When set, the file is read from acpgen's schema cache ($ACPGEN_CACHE,
	// else the user's cache folder) and fetched into it with npm when
	// missing, as acpgen generate does.
	Package, Version string
	// Path is the file relative to the package's folder (slash-separated),
	// for a package generated from a local schema folder.
	Path string
	// Overlays are the overlay files generation applied, in order, relative
	// to the package's folder (slash-separated).
	Overlays []string
	// Unavailable, when set, says why the generator could not tell the
	// tests where the schema is; every test that needs it fails with it.
	Unavailable string
}

// Load returns the schema with the overlays applied. The test fails when the
// file cannot be found or is not the file the package was generated from.
func (s Schema) Load(t testing.TB) []byte {
	t.Helper()
	var file string
	var data []byte
	switch {
	case s.Unavailable != "":
		t.Fatalf("the schema of this package cannot be located: %s", s.Unavailable)
	case s.Version != "":
		file, data = s.cached(t)
	case s.Path != "":
		file = filepath.FromSlash(s.Path)
		var err error
		if data, err = os.ReadFile(file); err != nil {
			t.Fatalf("the schema this package was generated from: %v", err)
		}
	default:
		t.Fatal("acpgentest.Schema names neither a release (Version) nor a file (Path)")
	}
	if got := hash(data); got != s.SHA256 {
		t.Fatalf("%s has sha256 %s, but the package was generated from sha256 %s: regenerate the package, or restore the schema it was generated from", file, got, s.SHA256)
	}
	if len(s.Overlays) == 0 {
		return data
	}
	files := make([]string, len(s.Overlays))
	for i, f := range s.Overlays {
		files[i] = filepath.FromSlash(f)
	}
	r, err := overlay.ApplyFiles(data, file, "", files)
	if err != nil {
		t.Fatal(err)
	}
	return r.Schema
}

// cached reads the release's file from the schema cache, fetching the
// release when the file is missing or differs (a damaged copy is replaced;
// an intact one is kept, and the caller reports the difference).
func (s Schema) cached(t testing.TB) (string, []byte) {
	t.Helper()
	if s.Package != source.Package {
		t.Fatalf("schema package %q: acpgen fetches only %s", s.Package, source.Package)
	}
	cache, err := source.CacheDir("")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(source.VersionDir(cache, s.Version), s.File)
	data, err := os.ReadFile(file)
	if err == nil && hash(data) == s.SHA256 {
		return file, data
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if _, _, err := source.Fetch(t.Context(), source.FetchOptions{Cache: cache, Stderr: os.Stderr}, nil, s.Version); err != nil {
		t.Fatalf("fetching the schema this package was generated from: %v", err)
	}
	if data, err = os.ReadFile(file); err != nil {
		t.Fatalf("%s@%s: %v", s.Package, s.Version, err)
	}
	return file, data
}

func hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
