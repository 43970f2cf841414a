package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestConductExitStatus: conduct exits 0 when the editor closes stdin
// first, ExitStatusChainEnded (naming the component and its status) when a
// component exits first, 2 for a chain it cannot split, 1 when a component
// cannot start, or for --proxy-names it does not know.
func TestConductExitStatus(t *testing.T) {
	bin := acpgenBinary(t)
	for _, c := range []struct {
		args     []string
		holdOpen bool // the editor keeps stdin open until conduct exits
		code     int
		want     string
	}{
		{[]string{"conduct", "--", "cat"}, false, 0, ""},
		{[]string{"conduct", "--", "cat", ":::", "sh", "-c", "exit 3"}, true, ExitStatusChainEnded, "component 2 (sh) exited with status 3; the chain has ended"},
		{[]string{"conduct"}, false, ExitStatusUsage, "no components given"},
		{[]string{"conduct", "--", "cat", ":::", ":::", "cat"}, false, ExitStatusUsage, "component 2 is empty"},
		{[]string{"conduct", "--", "cat", ":::"}, false, ExitStatusUsage, "component 2 is empty"},
		{[]string{"conduct", "--", "/nonexistent/agent"}, false, 1, "starting component 1 (agent)"},
		{[]string{"conduct", "--proxy-names", "sacp", "--", "cat"}, false, ExitStatusUsage, `--proxy-names "sacp": want schema or rust`},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir()
		if c.holdOpen {
			if _, err := cmd.StdinPipe(); err != nil { // closed by Wait, once conduct exited
				t.Fatal(err)
			}
		}
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

// --proxy-names picks the name of the proxy/initialize the conductor sends a
// component with a successor: the schema's by default, the Rust SDK's with
// rust.
func TestConductProxyNames(t *testing.T) {
	bin := acpgenBinary(t)
	const init = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, `"method":"proxy/initialize"`},
		{[]string{"--proxy-names", "schema"}, `"method":"proxy/initialize"`},
		{[]string{"--proxy-names", "rust"}, `"method":"_proxy/initialize"`},
	} {
		args := append(append([]string{"conduct"}, c.flags...), "--", "sh", "-c", "head -n 1 >&2", ":::", "cat")
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(init)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "[1 sh] ") || !strings.Contains(string(out), c.want) {
			t.Errorf("%q: the first component got %q, want %s", args, out, c.want)
		}
	}
}
