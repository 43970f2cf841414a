package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// TestWritesOnlyOutputsAndCache runs the built command in a sandbox folder
// that holds everything it could touch: the module, a --schema-dir folder,
// the schema cache, HOME and TMPDIR. After each run, every file or folder
// that appeared, changed or vanished must be an output the configuration
// names, or inside the cache; a --schema-dir folder and --check (with a
// warm cache) change nothing at all.
func TestWritesOnlyOutputsAndCache(t *testing.T) {
	bin := acpgenBinary(t)
	box := t.TempDir()
	mod, local, cache := filepath.Join(box, "mod"), filepath.Join(box, "local"), filepath.Join(box, "cache")
	for _, d := range []string{mod, local, filepath.Join(box, "home"), filepath.Join(box, "tmp"), filepath.Join(mod, "schema")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "acpgen.json"), []byte(`{"schema": {"dir": "schema", "version": "2.4.0"}, "metaDir": "meta",
  "channels": [{"name": "stable", "out": "acp"}]}`), 0o644)
	rel := fetched(t, "2.4.0")
	copyFile(filepath.Join(rel, source.LockFile), filepath.Join(mod, "schema", source.LockFile))
	for _, name := range []string{"schema.json", "schema.unstable.json", "lock.json"} {
		copyFile(filepath.Join(rel, name), filepath.Join(local, name))
	}
	os.MkdirAll(filepath.Dir(source.VersionDir(cache, "2.4.0")), 0o755)
	if out, err := exec.Command("cp", "-r", rel, source.VersionDir(cache, "2.4.0")).CombinedOutput(); err != nil {
		t.Fatalf("seeding the cache: %v\n%s", err, out)
	}

	run := func(args ...string) []string {
		t.Helper()
		before := snapshot(t, box)
		cmd := exec.Command(bin, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(box, "home"), "TMPDIR="+filepath.Join(box, "tmp"),
			"XDG_CACHE_HOME="+filepath.Join(box, "home", ".cache"), source.CacheEnv+"="+cache)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("acpgen %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		after := snapshot(t, box)
		var changed []string
		for p, v := range after {
			if w, ok := before[p]; !ok || w != v {
				changed = append(changed, p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				changed = append(changed, p)
			}
		}
		slices.Sort(changed)
		return changed
	}
	allowed := func(changed []string, prefixes ...string) {
		t.Helper()
		for _, p := range changed {
			ok := false
			for _, pre := range prefixes {
				if p == filepath.Join(box, pre) || strings.HasPrefix(p, filepath.Join(box, pre)+string(filepath.Separator)) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("wrote %s, which is neither an output nor the cache", p)
			}
		}
	}

	// The first run also keeps the standard library's type information in
	// the cache, for the type-check.
	allowed(run("generate"), "mod/acp", "mod/meta", "cache")
	if changed := run("generate", "--check"); len(changed) > 0 {
		t.Errorf("--check wrote %v", changed)
	}
	changed := run("generate", "--schema-dir", local, "--out", "stable=local-acp")
	allowed(changed, "mod/local-acp", "mod/meta")
	if len(changed) == 0 {
		t.Error("--schema-dir generated nothing")
	}
	// Without a lock, generate pins schema.version: the lock is an output.
	os.Remove(filepath.Join(mod, "schema", source.LockFile))
	allowed(run("generate"), "mod/schema/lock.json")
	if _, err := os.Stat(filepath.Join(mod, "schema", source.LockFile)); err != nil {
		t.Error("no lock written")
	}
	// With an empty cache the release is fetched into the cache, nowhere else.
	if _, err := exec.LookPath("npm"); err == nil {
		os.RemoveAll(cache)
		t.Setenv("npm_config_cache", t.TempDir())
		allowed(run("generate", "--check"), "cache")
		if _, err := os.Stat(filepath.Join(source.VersionDir(cache, "2.4.0"), "schema.json")); err != nil {
			t.Error("the release was not fetched into the cache")
		}
	}
}
