// Package acpgentest runs the tests acpgen generates beside each package it
// emits: defs_test.go (every $defs type round-trips; the validators agree
// with gojsonschema) and gates_test.go (every capability gate, positive and
// negative). The generated tests import only this package, the standard
// library and runtime/wire, so they compile in any module that generates its
// own SDK with acpgen; Go would refuse acpgen's internal packages there.
//
// The tests are hermetic: they read the schema the package was generated
// from out of the package's own testdata folder, where acpgen generate
// writes it, and need no schema cache, no npm and no network.
package acpgentest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// Schema is the schema a package was generated from, as acpgen generate
// wrote it beside the package: the merged schema (overlays applied) with its
// description text left out. go test runs a package's tests in its folder,
// which Path starts from.
type Schema struct {
	Channel string // "stable", "unstable", "v2" or "v2-unstable"
	// Path is the file relative to the package's folder, slash-separated:
	// testdata/schema.json.
	Path string
	// SHA256 is the hex sha256 of the file as generated.
	SHA256 string
}

// Load returns the schema. The test fails when the file is missing or is
// not the file the package was generated from.
func (s Schema) Load(t testing.TB) []byte {
	t.Helper()
	if s.Path == "" {
		t.Fatal("acpgentest.Schema names no file (Path)")
	}
	file := filepath.FromSlash(s.Path)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the schema this package was generated from: %v; run acpgen generate", err)
	}
	if got := hash(data); got != s.SHA256 {
		t.Fatalf("%s has sha256 %s, but the package was generated with sha256 %s: run acpgen generate, or restore the file", file, got, s.SHA256)
	}
	return data
}

func hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
