package examples_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestConformClientMCP: `acpgen conform client` on the unstable channel,
// run against the example editor, checks the client side's mcp/message
// binding on the project search server the editor declares to the
// scripted agent (which advertises mcpCapabilities.acp): an unknown MCP
// method's error comes back as the inner outcome, and two requests sharing
// a requestId are judged (refused, or noted when the first ended before
// the second was read).
func TestConformClientMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpgen")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	acpgen := buildAcpgen(t, repo, tmp)
	goRun(t, ".", "build", "-o", filepath.Join(tmp, "editor"), "./editor")
	cmd := exec.Command(acpgen, "conform", "client", "--channel", "unstable", "--category", "requests", "--json", "--",
		filepath.Join(tmp, "editor"), "-root", filepath.Join("testdata", "project"), "-query", "TODO", "--", "{agent}")
	out, _ := cmd.Output() // the example editor has no session/request_permission: a MUST case fails
	var report struct {
		Results []struct{ Case, Verdict, Observed string }
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("conform's report: %v\n%s", err, out)
	}
	verdicts := map[string]string{}
	for _, r := range report.Results {
		verdicts[r.Case] = r.Verdict + ": " + r.Observed
		if r.Case == "mcp/message: an MCP error is the inner outcome" && r.Verdict != "pass" {
			t.Errorf("%s: %s %s", r.Case, r.Verdict, r.Observed)
		}
		if r.Case == "mcp/message: a requestId reused while active refused" && r.Verdict != "pass" && r.Verdict != "noted" {
			t.Errorf("%s: %s %s", r.Case, r.Verdict, r.Observed)
		}
	}
	for _, c := range []string{"mcp/message: an MCP error is the inner outcome", "mcp/message: a requestId reused while active refused"} {
		if _, ok := verdicts[c]; !ok {
			t.Errorf("conform reported no case %q: %v", c, verdicts)
		}
	}
}
