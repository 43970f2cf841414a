package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestInspectExitStatus: inspect exits with the agent's status, and 2 when
// no agent is given (or over the network, without both --listen and
// --connect); it refuses to listen on an address other than loopback;
// inspect report names a bad trace's file and line.
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
		{[]string{"inspect", "--listen", "127.0.0.1:0"}, ExitStatusUsage, "give both --listen ADDR and --connect URL"},
		{[]string{"inspect", "--listen", "127.0.0.1:0", "--connect", "ws://127.0.0.1:1/acp", "--", "true"}, ExitStatusUsage, "and no agent command"},
		{[]string{"inspect", "--config", config, "--listen", "0.0.0.0:0", "--connect", "ws://127.0.0.1:1/acp"}, 1, "refusing to serve without Options.Auth"},
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

// inspect --listen prints the address it bound on stderr and serves until
// SIGINT or SIGTERM; then it drains, prints a one-line summary and exits 0.
func TestInspectListening(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		cmd := exec.Command(acpgenBinary(t), "inspect", "--config", filepath.Join(root, "acpgen.json"),
			"--listen", "127.0.0.1:0", "--connect", "ws://127.0.0.1:1/acp")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stderr)
		line, _ := r.ReadString('\n')
		for strings.HasPrefix(line, "acpgen: fetching") { // the schema, on first use
			line, _ = r.ReadString('\n')
		}
		if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:[1-9][0-9]*/acp\n$`).MatchString(line) {
			t.Errorf("stderr %q, want the bound URL", line)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(r) // to its end: the process exited
		want := "acpgen inspect: stopped; connections: 0, findings: 0 MUST, 0 SHOULD, 0 INFO\n"
		if cmd.Wait(); cmd.ProcessState.ExitCode() != 0 || string(rest) != want {
			t.Errorf("stopped by %v: %v, stderr %q; want exit 0 and %q", sig, cmd.ProcessState, rest, want)
		}
	}
}
