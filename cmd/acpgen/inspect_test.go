package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectExitStatus: inspect exits with the agent's status, and 2 when
// no agent is given; inspect report names a bad trace's file and line.
func TestInspectExitStatus(t *testing.T) {
	bin := acpgenBinary(t)
	root, _ := filepath.Abs("../..")
	config := filepath.Join(root, "acpgen.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"inspect", "--config", config, "--", "sh", "-c", "exit 5"}, 5, "the agent exited with status 5"},
		{[]string{"inspect", "--config", config, "--", "true"}, 0, ""},
		{[]string{"inspect"}, ExitStatusUsage, "no agent command given"},
		{[]string{"inspect", "report"}, ExitStatusUsage, "want one trace file"},
		{[]string{"inspect", "report", filepath.Join(t.TempDir(), "none.jsonl")}, 1, "none.jsonl"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("%q: exit %d, want %d; output %q lacks %q", c.args, code, c.code, out, c.want)
		}
	}
}
