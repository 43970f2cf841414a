//go:build unix

package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/internal/pinned"
)

var update = flag.Bool("update", false, "rewrite the table in docs/conform.md from results.json")

// The real-agent table in docs/conform.md is the one results.json renders,
// and every failing case in it says whose defect it is (no entry of
// defects missing or stale).
func TestDocTable(t *testing.T) {
	root := pinned.Root(t)
	res, err := readResults(filepath.Join(root, resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := render(res)
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(root, docFile)
	if *update {
		if err := updateDoc(doc, res); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tableOf(b)
	if err != nil {
		t.Fatalf("%s: %v", docFile, err)
	}
	if got != want {
		t.Errorf("%s: the real-agent table differs from the one %s renders (go test ./conform/realagents -update):\n--- doc\n%s\n--- rendered\n%s", docFile, resultsFile, got, want)
	}
}

// No agent of the committed results fails on an authentication refusal:
// a -32000 answer blocks cases (exit 4), and the agent's exit status 3
// comes from a MUST case that failed for another reason.
func TestAuthRefusalNeverFails(t *testing.T) {
	res, err := readResults(filepath.Join(pinned.Root(t), resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		must := 0
		for _, c := range r.Failing {
			if strings.Contains(c.Observed, "-32000") {
				t.Errorf("%s %s: %s/%s fails on a refusal: %s", r.Agent, r.Channel, c.Category, c.Case, c.Observed)
			}
			if c.Level == "MUST" {
				must++
			}
		}
		if (r.Exit == 3) != (must > 0) && r.NotRun == "" {
			t.Errorf("%s %s: exit %d with %d failing MUST cases", r.Agent, r.Channel, r.Exit, must)
		}
		if r.Hint != "" && r.Exit != 3 && r.Exit != 4 {
			t.Errorf("%s %s: refused (%s) but exit %d, want 4 (or 3 on a MUST failure)", r.Agent, r.Channel, r.Hint, r.Exit)
		}
	}
}

// splice replaces only what lies between the markers.
func TestSplice(t *testing.T) {
	doc := "intro\n" + beginMark + "\nold\n" + endMark + "\nafter\n"
	out, err := splice([]byte(doc), "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n" + beginMark + "\nnew\n" + endMark + "\nafter\n"; string(out) != want {
		t.Errorf("splice: %q, want %q", out, want)
	}
	if _, err := splice([]byte("no markers"), "x"); err == nil {
		t.Error("splice without markers: no error")
	}
}

// A failing case without a defect entry, and an entry no failing case
// matches, keep the table from rendering.
func TestDefectsJudgeEveryFailure(t *testing.T) {
	saved := defects
	defer func() { defects = saved }()
	res := &Results{Runs: []Run{{Agent: "a", Channel: "stable", Failing: []Case{{Category: "malformed", Case: "not JSON", Level: "SHOULD"}}}}}
	defects = nil
	if _, err := render(res); err == nil || !strings.Contains(err.Error(), "has no entry") {
		t.Errorf("no entry: err %v", err)
	}
	defects = []defect{{agent: "a", prefix: "malformed/", whose: "agent", what: "x"}, {agent: "a", prefix: "methods/", whose: "agent", what: "y"}}
	if _, err := render(res); err == nil || !strings.Contains(err.Error(), "stale") || strings.Contains(err.Error(), "has no entry") {
		t.Errorf("stale entry: err %v", err)
	}
	defects = defects[:1]
	if out, err := render(res); err != nil || !strings.Contains(out, "| agent: x |") {
		t.Errorf("render: %v\n%s", err, out)
	}
}

// The committed results were produced by an acpgen with today's MUST kinds
// and on today's agent versions: a change to either reruns
// `go run ./conform/realagents` in the same change (npm is available to CI
// machines), so the table cannot go stale.
func TestResultsCurrent(t *testing.T) {
	res, err := readResults(filepath.Join(pinned.Root(t), resultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.MustKinds, conform.MustKindsFingerprint(); got != want {
		t.Errorf("%s was produced with MUST kinds %q, conform's are %q now: rerun go run ./conform/realagents", resultsFile, got, want)
	}
	for _, a := range agents {
		for _, r := range res.Runs {
			if r.Agent == a.Name && r.Requested != a.Version {
				t.Errorf("%s: results for version %s, the table scores %s: rerun go run ./conform/realagents", a.Name, r.Requested, a.Version)
			}
		}
	}
}
