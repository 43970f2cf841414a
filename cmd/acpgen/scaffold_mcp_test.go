package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaffold agent --mcp builds on the unstable channel (mcp/message is
// its) and its go.mod requires the mcp module beside acpgen, from the same
// checkout; without --mcp the starter requires no mcp module, so the MCP
// SDK reaches only the starters that ask for it. The mcp module's
// TestScaffoldMCPAgent builds and runs the starter against the example
// editor's MCP server.
func TestScaffoldMCPRequirement(t *testing.T) {
	repo := repoRoot(t)
	host := t.TempDir()
	for _, c := range []struct {
		flags []string
		mcp   bool
	}{{[]string{"--mcp"}, true}, {nil, false}} {
		out := filepath.Join(host, strings.Join(append([]string{"agent"}, c.flags...), ""))
		args := append(append([]string{"scaffold", "agent"}, c.flags...), "--replace", repo, "--out", out)
		if msg, err := run(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, msg)
		}
		mod, err := os.ReadFile(filepath.Join(out, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(out, "agent.go"))
		if err != nil {
			t.Fatal(err)
		}
		hasMCP := strings.Contains(string(mod), "github.com/acpgen/acpgen/mcp v0.0.0") &&
			strings.Contains(string(mod), "github.com/acpgen/acpgen/mcp => "+filepath.Join(repo, "mcp"))
		if hasMCP != c.mcp || strings.Contains(string(mod), "acpgen/acpgen/mcp") != c.mcp {
			t.Errorf("%v: go.mod requires the mcp module: %v, want %v\n%s", args, hasMCP, c.mcp, mod)
		}
		if c.mcp && (!strings.Contains(string(src), `acp "github.com/acpgen/acpgen/gen/acp/unstable"`) || !strings.Contains(string(src), "mcpacp.Caller")) {
			t.Errorf("%v: agent.go does not build on the unstable package with a Caller:\n%s", args, src)
		}
	}
}
