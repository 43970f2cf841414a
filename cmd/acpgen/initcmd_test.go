package main

import (
	"errors"
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
	// A bad --channel is reported as the flag, with the nearest channel.
	for value, want := range map[string]string{
		"beta":    "--channel beta: not a channel (stable, unstable, v2, v2-unstable)",
		"chanels": "--channel chanels: not a channel (stable, unstable, v2, v2-unstable)",
		"stabel":  "--channel stabel: not a channel (stable, unstable, v2, v2-unstable); did you mean stable?",
	} {
		t.Chdir(t.TempDir())
		var u usageError
		if _, err := run(t, "init", "--channel", value); err == nil || err.Error() != want || !errors.As(err, &u) {
			t.Errorf("--channel %s: %v, want the usage error %q", value, err, want)
		}
		if _, err := os.Stat(config.FileName); err == nil {
			t.Errorf("--channel %s: init wrote %s", value, config.FileName)
		}
	}
}

// init --version V for a release npm does not have writes nothing and
// suggests the nearest cached release.
func TestInitUnknownVersion(t *testing.T) {
	fetched(t, "2.4.0")
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho 'npm error code ETARGET' >&2\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin)
	t.Chdir(t.TempDir())
	_, err := run(t, "init", "--version", "2.40", "--cache-dir", testCache)
	if err == nil || !strings.HasPrefix(err.Error(), "--version 2.40: ") || !strings.HasSuffix(err.Error(), "; did you mean 2.4.0?") {
		t.Errorf("got %v", err)
	}
	if _, err := os.Stat(config.FileName); err == nil {
		t.Errorf("init wrote %s", config.FileName)
	}
}

// init --version V without --channel configures a channel the release
// ships: the v1 unstable one for a release before 2.0.0, read from the
// schema cache, or by the version rule when the release cannot be read.
func TestInitPicksAShippedChannel(t *testing.T) {
	fetched(t, "1.5.0")
	channel := func(args ...string) (string, string) {
		t.Helper()
		t.Chdir(t.TempDir())
		out, err := run(t, append([]string{"init"}, args...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		f, err := config.Load(config.FileName)
		if err != nil {
			t.Fatal(err)
		}
		return f.Channels[0].Name, out
	}
	if ch, out := channel("--version", "1.5.0", "--cache-dir", testCache); ch != "unstable" || !strings.Contains(out, "1.5.0 ships only the v1 unstable schema") {
		t.Errorf("1.5.0 from the cache: %s\n%s", ch, out)
	}
	if ch, _ := channel("--version", "2.4.0", "--cache-dir", testCache); ch != "stable" {
		t.Errorf("2.4.0: %s", ch)
	}
	// Neither cached nor fetchable (no npm on the PATH): the rule by version.
	t.Setenv("PATH", t.TempDir())
	if ch, out := channel("--version", "1.4.0", "--cache-dir", t.TempDir()); ch != "unstable" || !strings.Contains(out, "releases before 2.0.0 ship only the v1 unstable schema") {
		t.Errorf("1.4.0 offline: %s\n%s", ch, out)
	}
	if ch, _ := channel("--version", "1.4.0", "--channel", "stable", "--cache-dir", t.TempDir()); ch != "stable" {
		t.Errorf("--channel wins: %s", ch)
	}
}

// Every command taking --channel checks the name before it starts anything:
// a misspelt channel is the same usage error, with the nearest channel.
func TestEveryChannelFlagSuggests(t *testing.T) {
	want := "--channel stabel: not a channel (stable, unstable, v2, v2-unstable); did you mean stable?"
	for _, argv := range [][]string{
		{"inspect", "--channel", "stabel", "--", "true"},
		{"conform", "agent", "--channel", "stabel", "--", "true"},
		{"conform", "client", "--channel", "stabel", "--", "true"},
		{"generate", "--channel", "stabel"},
		{"init", "--channel", "stabel"},
	} {
		t.Chdir(t.TempDir())
		var u usageError
		if _, err := run(t, argv...); err == nil || err.Error() != want || !errors.As(err, &u) {
			t.Errorf("%s: %v, want the usage error %q", strings.Join(argv, " "), err, want)
		}
	}
}
