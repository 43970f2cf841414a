package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/goapi"
	"github.com/acpgen/acpgen/generator/source"
)

func samplePlan() *Plan {
	e := sampleEntry()
	return &Plan{Old: &source.Lock{Package: e.Package, Version: e.From}, New: &source.Lock{Package: e.Package, Version: e.To},
		Schema: e.Schema, API: e.API, Proposal: e.Proposal, Module: e.Module}
}

// Print reports the move, each channel's schema changes by class, the Go
// API verdict and the proposed version.
func TestPlanPrint(t *testing.T) {
	var b strings.Builder
	samplePlan().Print(&b)
	want := "@agentclientprotocol/sdk 2.2.0 -> 2.4.0\n" +
		"schema changes:\n" +
		"  stable: only in 2.4.0 (2.2.0 has no schema.json): not compared\n" +
		"  unstable: 3 additive, 1 docs\n" +
		"Go API: minor\n" +
		"  stable (example.com/sdk/acp): schema.json is not in both revisions: not compared\n" +
		"  unstable (example.com/sdk/acp/unstable): 0 incompatible, 1 compatible\n" +
		"version: no release tag (read as v0.0.0) -> v0.4.0 (compatible Go API additions: minor)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A major release names the new module path it needs.
func TestMajorRefusal(t *testing.T) {
	pl := samplePlan()
	pl.Proposal = Propose(Version{1, 2, 0}, goapi.Major)
	pl.NewModule = MajorPath(pl.Module, pl.Proposal.Next.Major)
	want := "2.2.0 -> 2.4.0 breaks the Go API and v1.2.0 is past v1: rerun with --allow-major to release v2.0.0 under the module path example.com/sdk/v2 (now example.com/sdk); nothing written"
	if got := pl.MajorRefusal(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// PrintNext spells the regeneration as the user runs acpgen.
func TestPrintNext(t *testing.T) {
	pl := samplePlan()
	pl.NewModule = "example.com/sdk/v2"
	var b strings.Builder
	pl.PrintNext(&b, &config.Resolved{File: "acpgen.json"}, "go tool acpgen")
	for _, want := range []string{"then `go tool acpgen generate`\n", "  2. review: git diff\n", "  4. git tag v0.4.0\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}

// keepForRestore puts back a file as it was (its mode too) and removes one
// that did not exist.
func TestKeepForRestore(t *testing.T) {
	dir := t.TempDir()
	kept, absent := filepath.Join(dir, "lock.json"), filepath.Join(dir, "new.json")
	if err := os.WriteFile(kept, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	restore, err := keepForRestore(kept, absent)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{kept, absent} {
		if err := os.WriteFile(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "old" {
		t.Errorf("kept file: %q, %v", b, err)
	}
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kept file mode: %v, %v", fi, err)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Errorf("a file that did not exist is still there: %v", err)
	}
}

// The changelog entry is refused when the changelog has one for the version.
func TestPlanChangelog(t *testing.T) {
	path := filepath.Join(t.TempDir(), ChangelogName)
	pl := samplePlan()
	b, err := pl.changelog(path)
	if err != nil || !strings.HasPrefix(string(b), "# Changelog\n\n## v0.4.0 — ") {
		t.Fatalf("%q, %v", b, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pl.changelog(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a second v0.4.0 entry: %v", err)
	}
}
