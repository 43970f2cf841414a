package generator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/internal/pinned"
)

// The golden base schema has no session/delete, so the table's row for it
// applies to no channel: an error with StrictGates, a report line without.
func TestStaleTableRows(t *testing.T) {
	t.Chdir("..")
	const row = "v1 session/delete params -> agentCapabilities.sessionCapabilities.delete (table): unstable: no method session/delete"
	cfg := generator.Config{Root: t.TempDir(), SchemaDir: "golden/testdata", StrictGates: true, Channels: []generator.Channel{{
		Name: "unstable", SchemaFile: "base.json", OutDir: "gen", Package: "acp", ImportPath: generator.Module + "/gen",
	}}}
	files, err := generator.Generate(cfg)
	if err == nil || !strings.HasPrefix(err.Error(), "capability gates that match nothing:\n  ") || !strings.Contains(err.Error()+"\n", "\n  "+row+"\n") || files != nil {
		t.Fatalf("strict: got %d files, error %v; want the stale row %q", len(files), err, row)
	}
	var report bytes.Buffer
	cfg.StrictGates, cfg.Report = false, &report
	files, err = generator.Generate(cfg)
	if err != nil || len(files) == 0 {
		t.Fatalf("lenient: got %d files, error %v", len(files), err)
	}
	if !strings.Contains(report.String(), "gate skipped: "+row+"\n") {
		t.Errorf("lenient report lacks %q:\n%s", row, report.String())
	}
}

// LoadChannel builds the channel's model once and binds the overlays' def
// gates on it: a gate on a member of SessionInfo becomes a presence row on
// session/list's result, where SessionInfo sits in an array.
func TestLoadChannelBindsOverlayGates(t *testing.T) {
	t.Chdir("..")
	ld, err := generator.LoadChannel("golden/testdata/base.json", []string{"overlays/additional-directories.json"}, "unstable")
	if err != nil {
		t.Fatal(err)
	}
	if ld.Model.Channel != "unstable" {
		t.Errorf("model channel %q, want unstable", ld.Model.Channel)
	}
	var rows []string
	for _, g := range ld.Gates {
		rows = append(rows, ir.GateString(g))
	}
	for _, want := range []string{
		"session/list result/sessions/*/additionalDirectories required by agentCapabilities.sessionCapabilities.additionalDirectories (additional-directories)",
		"session/new params/additionalDirectories -> agentCapabilities.sessionCapabilities.additionalDirectories (additional-directories)",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("no row %q in\n%s", want, strings.Join(rows, "\n"))
		}
	}
}

// A gate an overlay declares on a def no method carries is an error naming
// the overlay file and change.
func TestOverlayGateOnUnusedDef(t *testing.T) {
	dir := t.TempDir()
	ov := filepath.Join(dir, "g.json")
	err := os.WriteFile(ov, []byte(`{"acpgenOverlay": 1, "id": "g", "title": "G", "status": "draft", "kind": "rfd", "changes": [
		{"op": "property", "defs": ["TextContent"], "name": "n", "schema": {"type": "integer"}, "gate": {"capability": "agentCapabilities.n"}}]}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, err = generator.LoadChannel("../golden/testdata/base.json", []string{ov}, "unstable")
	if err == nil || !strings.Contains(err.Error(), ov+"#/changes/0: gate on $defs/TextContent, which is the params or result of no method") {
		t.Fatalf("got %v", err)
	}
}

// A schema whose prompt result no longer has stopReason (as if upstream
// renamed it) leaves the cancel conversion with nothing to act on: an error
// with StrictGates naming the channel and the fact, a report line without.
func TestLifecycleGaps(t *testing.T) {
	base, err := os.ReadFile("../golden/testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	renamed := strings.ReplaceAll(string(base), `"stopReason"`, `"stopCause"`)
	if err := os.WriteFile(filepath.Join(dir, "base.json"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	const gap = "unstable: session/prompt's result has no required stopReason"
	cfg := generator.Config{Root: t.TempDir(), SchemaDir: dir, StrictGates: true, Channels: []generator.Channel{{
		Name: "unstable", SchemaFile: "base.json", OutDir: "gen", Package: "acp", ImportPath: generator.Module + "/gen",
	}}}
	files, err := generator.Generate(cfg)
	if err == nil || err.Error() != "ACP lifecycle facts (generator/ir/protocol.go) that match nothing:\n  "+gap || files != nil {
		t.Fatalf("strict: got %d files, error %v; want the gap %q", len(files), err, gap)
	}
	var report bytes.Buffer
	cfg.StrictGates, cfg.Report = false, &report
	if files, err = generator.Generate(cfg); err != nil || len(files) == 0 {
		t.Fatalf("lenient: got %d files, error %v", len(files), err)
	}
	if !strings.Contains(report.String(), "lifecycle not handled: "+gap+"\n") {
		t.Errorf("lenient report lacks %q:\n%s", gap, report.String())
	}
}

// Generated output is owned per configured folder: generate rewrites the Go
// files and testdata/schema.json there and leaves other testdata alone; a
// channel dropped from the configuration keeps its whole folder.
func TestDroppedChannelKeepsItsFolder(t *testing.T) {
	t.Chdir("..")
	root := t.TempDir()
	ch := func(name, dir string) generator.Channel {
		return generator.Channel{Name: name, SchemaFile: "base.json", OutDir: dir, Package: "x", ImportPath: "example.com/m/" + dir}
	}
	write := func(cfg generator.Config) {
		t.Helper()
		files, err := generator.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := output.WriteContext(t.Context(), root, files, cfg.Owned()); err != nil {
			t.Fatal(err)
		}
	}
	cfg := generator.Config{Root: root, SchemaDir: "golden/testdata", Channels: []generator.Channel{ch("unstable", "a"), ch("unstable", "b")}}
	write(cfg)
	corpus := filepath.Join(root, "a", "testdata", "fuzz", "FuzzX", "seed")
	if err := os.MkdirAll(filepath.Dir(corpus), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(corpus, []byte("go test fuzz v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Channels = cfg.Channels[:1]
	write(cfg)
	for _, f := range []string{"a/testdata/schema.json", "a/testdata/fuzz/FuzzX/seed", "b/testdata/schema.json", "b/types.go", "b/defs_test.go"} {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
			t.Error(err)
		}
	}
}

// A pinned schema whose session/update no longer has a streamed variant (as
// if upstream renamed agent_thought_chunk) leaves an ir.StreamedUpdates
// entry matching nothing: an error with StrictGates naming the protocol and
// the tag.
func TestStreamedUpdateRenamed(t *testing.T) {
	dir := t.TempDir()
	renamed := bytes.ReplaceAll(pinned.File(t, "schema.json"), []byte(`"agent_thought_chunk"`), []byte(`"agent_reasoning_chunk"`))
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := generator.Config{Root: t.TempDir(), SchemaDir: dir, StrictGates: true, Channels: []generator.Channel{{
		Name: "stable", SchemaFile: "schema.json", OutDir: "gen", Package: "acp", ImportPath: generator.Module + "/gen",
	}}}
	const stale = `v1: no channel's session/update has the streamed variant "agent_thought_chunk" (ir.StreamedUpdates)`
	files, err := generator.Generate(cfg)
	if err == nil || !strings.Contains(err.Error(), "\n  "+stale) || files != nil {
		t.Fatalf("got %d files, error %v; want the stale entry %q", len(files), err, stale)
	}
}

// Against the pinned schema every method has a gate decision: a method the
// tables neither gate nor list as ungated is an error naming the channel
// and the method, and so is an Ungated entry no channel has (a method
// upstream renamed).
func TestEveryMethodHasAGateDecision(t *testing.T) {
	dir := t.TempDir()
	cfg := generator.Config{Root: t.TempDir(), SchemaDir: dir, StrictGates: true}
	for _, name := range []string{"stable", "unstable"} {
		file := map[string]string{"stable": "schema.json", "unstable": "schema.unstable.json"}[name]
		if err := os.WriteFile(filepath.Join(dir, file), pinned.File(t, file), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Channels = append(cfg.Channels, generator.Channel{Name: name, SchemaFile: file, OutDir: name, Package: "acp", ImportPath: generator.Module + "/" + name})
	}
	keep := facts.UngatedV1
	t.Cleanup(func() { facts.UngatedV1 = keep })
	for _, c := range []struct {
		name    string
		ungated []facts.Ungated
		want    string
	}{
		{"undecided", slices.DeleteFunc(slices.Clone(keep), func(u facts.Ungated) bool { return u.Method == "session/set_mode" }), "\n  stable: session/set_mode (agent)"},
		{"stale", append(slices.Clone(keep), facts.Ungated{Method: "session/frobnicate", Reason: "test"}), "\n  v1: facts.Ungated names session/frobnicate, which no channel has"},
	} {
		facts.UngatedV1 = c.ungated
		files, err := generator.Generate(cfg)
		if err == nil || !strings.HasPrefix(err.Error(), "methods without a gate decision") || !strings.Contains(err.Error(), c.want) || files != nil {
			t.Errorf("%s: got %d files, error %v; want %q", c.name, len(files), err, c.want)
		}
	}
}
