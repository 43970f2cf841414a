package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// conform --restart against this agent, on each protocol version: on the
// SQLite store a session outlives the process, so after a restart v1
// session/load and v2 session/resume with replayFrom replay the recorded
// turn (the cases pass, exit 0); on the memory store the restarted agent
// has forgotten it, so the case fails: v1's at MUST (exit 3), v2's at
// SHOULD (the schema's "should replay all retained conversation history";
// exit 0).
func TestConformRestartReplaysTheTurn(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.Abs("../../..")
	agent, acpgen := agentBinary(t), filepath.Join(dir, "acpgen")
	cmd := exec.Command("go", "build", "-o", acpgen, "./cmd/acpgen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/acpgen: %v\n%s", err, out)
	}
	const (
		v1Load   = "session/load after a restart replays the recorded turn"
		v2Resume = "v2 session/resume replayFrom start after a restart replays the recorded turn"
		v2Order  = "v2 session/resume after a restart: replay, then state_update, then the response"
	)
	type want struct{ level, verdict string }
	for _, c := range []struct {
		channel, store string
		cases          map[string]want
		code           int
	}{
		{"", "sqlite:" + filepath.Join(dir, "v1.db"), map[string]want{v1Load: {"MUST", "pass"}}, 0},
		{"", "memory", map[string]want{v1Load: {"MUST", "fail"}}, 3},
		{"v2", "sqlite:" + filepath.Join(dir, "v2.db"), map[string]want{v2Resume: {"SHOULD", "pass"}, v2Order: {"MUST", "pass"}}, 0},
		// The resume is refused (-32002), so there is no replay to order.
		{"v2", "memory", map[string]want{v2Resume: {"SHOULD", "fail"}}, 0},
	} {
		args := []string{"conform", "agent", "--config", filepath.Join(root, "acpgen.json"), "--json", "--restart",
			"--category", "persistence", "--timeout", "10s"}
		if c.channel != "" {
			args = append(args, "--channel", c.channel)
		}
		cmd := exec.Command(acpgen, append(args, "--", agent, "-store", c.store)...)
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
			t.Fatalf("channel %q -store %s: %v\n%s", c.channel, c.store, err, out)
		}
		got := map[string]want{}
		for _, r := range rep.Results {
			got[r.Case] = want{r.Level, r.Verdict}
			if w, ok := c.cases[r.Case]; ok && (w != want{r.Level, r.Verdict}) {
				t.Errorf("channel %q -store %s: %q %s %s (%s), want %s %s", c.channel, c.store, r.Case, r.Level, r.Verdict, r.Observed, w.level, w.verdict)
			}
		}
		for name := range c.cases {
			if _, ok := got[name]; !ok {
				t.Errorf("channel %q -store %s: no case %q\n%s", c.channel, c.store, name, out)
			}
		}
		if len(got) != len(c.cases) || code != c.code {
			t.Errorf("channel %q -store %s: cases %v, exit %d; want %d cases, exit %d\n%s", c.channel, c.store, got, code, len(c.cases), c.code, out)
		}
	}
}
