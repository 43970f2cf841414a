package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/config"
)

// TestInit: init writes a configuration that validates and resolves, with
// its JSON Schema beside it, and never overwrites.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("go.mod", []byte("module example.com/sdk\n\ngo 1.26\n"), 0o644)
	out, err := run(t, "init", "--version", "2.2.0", "--channel", "stable", "--channel", "unstable", "--out", "pkg/acp")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "wrote acpgen.json and acpgen.schema.json", "next: acpgen generate")
	schema, _ := os.ReadFile(schemaFileName)
	if string(schema) != string(config.Schema) {
		t.Error("acpgen.schema.json is not the configuration's schema")
	}
	r, err := config.Open("", config.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "2.2.0" || len(r.Config.Channels) != 2 || r.LockPath() != filepath.Join("schema", "lock.json") {
		t.Fatalf("resolved %+v", r)
	}
	for i, want := range []string{"example.com/sdk/pkg/acp", "example.com/sdk/pkg/acp/unstable"} {
		if got := r.Config.Channels[i].ImportPath; got != want {
			t.Errorf("channel %d: import path %s, want %s", i, got, want)
		}
	}
	before, _ := os.ReadFile(config.FileName)
	if _, err := run(t, "init"); err == nil || !strings.Contains(err.Error(), "init never overwrites") {
		t.Fatalf("second init: %v", err)
	}
	if after, _ := os.ReadFile(config.FileName); string(after) != string(before) {
		t.Error("second init changed acpgen.json")
	}
	if _, err := run(t, "init", "--channel", "beta"); err == nil || !strings.Contains(err.Error(), "channels[0].name") {
		t.Fatalf("bad channel: %v", err)
	}
}
