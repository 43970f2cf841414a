package mcptest

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

// requireNode fails under CI=true, and skips otherwise, when node or the
// pinned SDKs are missing: ./test.sh installs them before this module's tests.
func requireNode(t *testing.T, interopDir string) {
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

// Node is a node script on pipes: its Stdout is read by the Go end of the
// ACP connection, its Stdin written by it; its stderr is kept.
type Node struct {
	cmd    *exec.Cmd
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr bytes.Buffer
}

// StartNode runs script (a file of interopDir, the repository's interop/
// folder where ./test.sh installs the pinned TypeScript SDKs) with node. It
// fails under CI=true, and skips otherwise, when node or the SDKs are
// missing.
func StartNode(t *testing.T, interopDir, script string, args ...string) *Node {
	t.Helper()
	requireNode(t, interopDir)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Node{cmd: exec.CommandContext(ctx, "node", append([]string{script}, args...)...)}
	p.cmd.Dir = interopDir
	p.cmd.Stderr = &p.Stderr
	var err error
	if p.Stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.Stdout, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stdin.Close()
		cancel()
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", script, strings.TrimSpace(p.Stderr.String()))
		}
	})
	return p
}

// Wait waits for the script to exit, closing its input first when
// closeInput is set (an agent ends at the end of its input; a client ends
// by itself).
func (p *Node) Wait(t *testing.T, closeInput bool) {
	t.Helper()
	if closeInput {
		p.Stdin.Close()
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, p.Stderr.String())
	}
}
