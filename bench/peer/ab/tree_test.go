package main

import (
	"archive/tar"
	"bytes"
	"strings"
	"testing"
)

// Imports of the module and its packages move under the side's module path;
// other imports, and every byte besides the import paths (a string literal
// naming the module included), stay.
func TestRewriteImportsChangesOnlyModuleImports(t *testing.T) {
	src := `package p

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
	w2 "github.com/acpgen/acpgen/runtime/wire/internal/x"
	"github.com/acpgen/acpgenx/other"
)

const s = "github.com/acpgen/acpgen/runtime/wire"
`
	got, err := rewriteImports("p.go", []byte(src), "github.com/acpgen/acpgen", "acpgen.old")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, `	"github.com/acpgen/acpgen/runtime/wire"`, `	"acpgen.old/runtime/wire"`, 1)
	want = strings.Replace(want, `w2 "github.com/acpgen/acpgen/runtime/wire/internal/x"`, `w2 "acpgen.old/runtime/wire/internal/x"`, 1)
	if string(got) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
}

// A tar entry naming a path outside the folder is refused, not written.
func TestUntarRefusesPathsOutsideTheFolder(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "../escape.go", Typeflag: tar.TypeReg, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	dir := t.TempDir()
	if err := untar(&buf, dir); err == nil || !strings.Contains(err.Error(), "outside the tree") {
		t.Errorf("err = %v", err)
	}
}
