package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goRun runs go with args in dir and fails the test on an error.
func goRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// buildAcpgen builds the checkout's acpgen command into dir.
func buildAcpgen(t *testing.T, repo, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "acpgen")
	goRun(t, repo, "build", "-o", bin, "./cmd/acpgen")
	return bin
}

// TestScaffoldMCPAgent: `acpgen scaffold agent --mcp` writes a starter that
// builds in a module of its own (requiring this checkout's acpgen and mcp
// modules), passes its own test, advertises MCP over ACP and calls the
// servers a session declares: run under the example editor, it lists the
// tools of the editor's project search server, then echoes the prompt.
func TestScaffoldMCPAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpgen and a starter module")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	acpgen := buildAcpgen(t, repo, tmp)
	starter := filepath.Join(tmp, "mcpagent")
	cmd := exec.Command(acpgen, "scaffold", "agent", "--mcp", "--replace", repo, "--out", starter)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scaffold: %v\n%s", err, out)
	}
	goRun(t, starter, "mod", "tidy")
	goRun(t, starter, "vet", ".")
	goRun(t, starter, "test", "-count=1", ".")
	goRun(t, starter, "build", "-o", filepath.Join(tmp, "agent.bin"), ".")
	goRun(t, ".", "build", "-o", filepath.Join(tmp, "editor"), "./editor")

	run := exec.Command(filepath.Join(tmp, "editor"), "-root", filepath.Join("testdata", "project"), "-query", "TODO", "--", filepath.Join(tmp, "agent.bin"))
	run.Stderr = os.Stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("editor: %v\n%s", err, out)
	}
	if want := "project-search offers: search\nYou said: TODO"; string(out) != want {
		t.Errorf("the editor printed %q, want %q", out, want)
	}
}
