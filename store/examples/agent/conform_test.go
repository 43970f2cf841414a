package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// conform --restart against this agent: on the SQLite store a session
// outlives the process, so session/load after a restart replays the
// recorded turn (the case passes, exit 0); on the memory store the
// restarted agent has forgotten it, so the MUST case fails (exit 3).
func TestConformRestartReplaysTheTurn(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.Abs("../../..")
	agent, acpgen := filepath.Join(dir, "agent"), filepath.Join(dir, "acpgen")
	for _, b := range []struct{ out, pkg, dir string }{{agent, ".", "."}, {acpgen, "./cmd/acpgen", root}} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = b.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	const name = "session/load after a restart replays the recorded turn"
	for _, c := range []struct {
		store   string
		verdict string
		code    int
	}{
		{"sqlite:" + filepath.Join(dir, "sessions.db"), "pass", 0},
		{"memory", "fail", 3},
	} {
		cmd := exec.Command(acpgen, "conform", "agent", "--config", filepath.Join(root, "acpgen.json"), "--json", "--restart",
			"--category", "persistence", "--timeout", "10s", "--", agent, "-store", c.store)
		cmd.Dir = dir
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Results []struct {
				Case, Level, Verdict, Observed string
			} `json:"results"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("-store %s: %v\n%s", c.store, err, out)
		}
		found := false
		for _, r := range rep.Results {
			if r.Case == name {
				found = true
				if r.Verdict != c.verdict || r.Level != "MUST" {
					t.Errorf("-store %s: %s %s (%s), want %s at MUST", c.store, r.Verdict, r.Level, r.Observed, c.verdict)
				}
			}
		}
		if !found || code != c.code {
			t.Errorf("-store %s: case found %v, exit %d, want %d\n%s", c.store, found, code, c.code, out)
		}
	}
}
