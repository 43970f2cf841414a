package generator_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
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

// The overlay step builds the model when it binds gates; the model it hands
// over is the channel's.
func TestLoadChannelModelNamesTheChannel(t *testing.T) {
	t.Chdir("..")
	ld, err := generator.LoadChannel("golden/testdata/base.json", []string{"overlays/additional-directories.json"}, "unstable")
	if err != nil {
		t.Fatal(err)
	}
	if ld.Merged.Model == nil || ld.Model != ld.Merged.Model {
		t.Fatal("the overlay step built no model, or LoadChannel built another")
	}
	if ld.Model.Channel != "unstable" {
		t.Errorf("model channel %q, want unstable", ld.Model.Channel)
	}
}
