package main

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate --from-url PATH fills an empty schema cache from a tarball on
// disk (a machine without npm) and writes the lock and the package.
func TestGenerateFromLocalTarball(t *testing.T) {
	rel := fetched(t, "2.4.0")
	tgz := filepath.Join(t.TempDir(), "sdk-2.4.0.tgz")
	schema, err := os.ReadFile(filepath.Join(rel, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	packTarball(t, tgz, map[string][]byte{
		"package/package.json":          []byte(`{"name": "@agentclientprotocol/sdk", "version": "2.4.0"}`),
		"package/schema/v1/schema.json": schema,
	})
	dir := t.TempDir()
	cfg := `{"schema": {"version": "2.4.0"}, "channels": [{"name": "stable", "importPath": "example.com/x/acp"}]}`
	if err := os.WriteFile(filepath.Join(dir, "acpgen.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runIn(t, dir, "generate", "--cache-dir", t.TempDir(), "--from-url", tgz)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"schema/lock.json", "acp/types.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "schema", "lock.json"))
	mustContain(t, string(lock), `"version": "2.4.0"`)
	if strings.Contains(string(lock), tgz) {
		t.Error("the lock records the local path")
	}
}

// packTarball writes a gzipped tar of the files (name -> contents).
func packTarball(t *testing.T, to string, files map[string][]byte) {
	t.Helper()
	f, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
