package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `scaffold proxy` writes a starter on the unstable channel that builds,
// vets and passes its own test in a module of its own, and runs between
// examples/client and examples/agent: the client's whole flow passes
// through it, and it logs the session's total on stderr.
func TestScaffoldProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command")
	}
	repo := repoRoot(t)
	dir := t.TempDir()
	out, err := run(t, "scaffold", "proxy", "--out", filepath.Join(dir, "my-proxy"), "--replace", repo)
	if err != nil {
		t.Fatalf("scaffold proxy: %v\n%s", err, out)
	}
	mustContain(t, out, "wrote a starter ACP proxy", "(.gitignore, proxy.go, proxy_test.go, go.mod, main.go) on github.com/acpgen/acpgen/gen/acp/unstable (from ",
		"go mod tidy", "go build -o bin/my-proxy . && ./bin/my-proxy -- AGENT [ARGS...]")
	starter := filepath.Join(dir, "my-proxy")
	goIn(t, starter, "build", "-o", "proxy", ".")
	goIn(t, starter, "vet", "./...")
	if out := goIn(t, starter, "test", "./..."); !strings.Contains(out, "ok") {
		t.Fatalf("go test in my-proxy: %s", out)
	}
	for _, name := range []string{"client", "agent"} {
		goIn(t, repo, "build", "-o", filepath.Join(dir, name), "./examples/"+name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "client"), "-cwd", dir, filepath.Join(starter, "proxy"), "--", filepath.Join(dir, "agent"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("examples/client through the proxy: %v\n%s\n%s", err, stdout, stderr.String())
	}
	mustContain(t, string(stdout), "ok session/prompt: stopReason=end_turn", "ok session/cancel: stopReason=cancelled", "ok exit: agent exited with status 0")
	mustContain(t, stderr.String(), `msg="session total" sessionId=sess-`)
	if _, err := os.Stat(filepath.Join(starter, ".gitignore")); err != nil {
		t.Error(err)
	}
}
