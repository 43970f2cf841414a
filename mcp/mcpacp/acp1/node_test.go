package acp1_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// interopDir is the repository's interop/ folder, where the pinned
// TypeScript SDKs are installed (npm ci --prefix interop).
var interopDir = filepath.Join("..", "..", "..", "interop")

// requireNode fails under CI=true, and skips otherwise, when node or the
// pinned SDKs are missing: ./test.sh installs them before this module's tests.
func requireNode(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on the PATH"
	}
	for _, pkg := range []string{"@agentclientprotocol/sdk", "@modelcontextprotocol/server"} {
		if _, err := os.Stat(filepath.Join(interopDir, "node_modules", pkg, "package.json")); err != nil && missing == "" {
			missing = pkg + " is not installed in interop/ (npm ci --prefix interop)"
		}
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(missing)
	}
	t.Skip(missing)
}

// nodeProc is a node script on pipes: its stdout is read by the Go end of
// the ACP connection, its stdin written by it; stderr is kept.
type nodeProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr bytes.Buffer
}

func startNode(t *testing.T, script string, args ...string) *nodeProc {
	t.Helper()
	requireNode(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := &nodeProc{cmd: exec.CommandContext(ctx, "node", append([]string{script}, args...)...)}
	p.cmd.Dir = interopDir
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stdin.Close()
		cancel()
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", script, strings.TrimSpace(p.stderr.String()))
		}
	})
	return p
}

// wait waits for the script to exit, closing its input first when
// closeInput is set (an agent ends at the end of its input; a client ends
// by itself).
func (p *nodeProc) wait(t *testing.T, closeInput bool) {
	t.Helper()
	if closeInput {
		p.stdin.Close()
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, p.stderr.String())
	}
}
