package conform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/internal/pinned"
)

// TestMain lets the test binary serve as the scripted agent's relay, as
// the acpgen binary does for `acpgen conform client`.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "relay" {
		if err := Relay(os.Args[2]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func checkClient(t *testing.T, argv []string, cats ...string) *Report {
	t.Helper()
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json")})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CheckClient(context.Background(), p, ClientOptions{Argv: argv, Relay: []string{os.Args[0], "relay"},
		Timeout: 3 * time.Second, Categories: cats})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// examples/client passes every case; it serves the fs requests inside the
// session's roots, where the checker puts the file they name, and leaves
// nothing there after the run.
func TestExampleClientPasses(t *testing.T) {
	cwd := t.TempDir()
	rep := checkClient(t, []string{buildCmd(t, "./examples/client"), "-valid-only", "-cwd", cwd, AgentToken})
	seen := map[string]bool{}
	fs := 0
	for _, r := range rep.Results {
		seen[r.Category] = true
		if r.Verdict == Fail || r.Verdict == Warn {
			t.Errorf("%s: %s: %s: expected %s, observed %s", r.Category, r.Case, r.Verdict, r.Expected, r.Observed)
		}
		if r.Category == "requests" && strings.HasPrefix(r.Case, "fs/") && r.Verdict == Pass {
			fs++
		}
	}
	if fs != 2 {
		t.Errorf("%d fs requests passed, want fs/read_text_file and fs/write_text_file", fs)
	}
	if left, _ := os.ReadDir(cwd); len(left) > 0 {
		t.Errorf("the run left %d files in the session's cwd", len(left))
	}
	for _, c := range ClientCategories {
		if !seen[c] {
			t.Errorf("no case of category %s", c)
		}
	}
	if rep.Failed() {
		t.Error("Failed() is true")
	}
}

// The broken client fails exactly the cases its defects target: the gate of
// additionalDirectories when the agent advertises nothing, the permission
// answer (as a request case and as a frame), both unknown methods, and the
// exit when the agent's stdout ends.
func TestBrokenClientFailsItsDefects(t *testing.T) {
	rep := checkClient(t, []string{buildCmd(t, "./conform/testdata/brokenclient"), AgentToken})
	targeted := map[string]bool{
		"gates/peer uses only granted capabilities, sends what it advertised (39 gates): agent advertises no capabilities": true,
		"requests/session/request_permission":             true,
		"frames/result of session/request_permission (1)": true,
		"unknown-method/request acpgen/conform_unknown":   true,
		"unknown-method/request _acpgen/conform_unknown":  true,
		"exit/exits when the agent's stdout ends":         true,
	}
	failed := 0
	for _, r := range rep.Results {
		key := r.Category + "/" + r.Case
		if targeted[key] != (r.Verdict == Fail) {
			t.Errorf("%s: %s (observed %s), targeted by a defect: %v", key, r.Verdict, r.Observed, targeted[key])
		}
		if r.Verdict == Fail {
			failed++
		}
		if key == "gates/peer uses only granted capabilities, sends what it advertised (39 gates): agent advertises no capabilities" &&
			!strings.Contains(r.Observed, "agentCapabilities.sessionCapabilities.additionalDirectories not granted: session/new at /additionalDirectories") {
			t.Errorf("gate case observed %s", r.Observed)
		}
		if key == "requests/session/request_permission" && !strings.HasPrefix(r.Observed, "/result/outcome") {
			t.Errorf("permission case observed %s, want a pointer into /result/outcome", r.Observed)
		}
	}
	if failed != len(targeted) || !rep.Failed() {
		t.Errorf("%d failures, Failed() %v; want %d and true", failed, rep.Failed(), len(targeted))
	}
}

func TestClientCategoryFilterAndToken(t *testing.T) {
	rep := checkClient(t, []string{buildCmd(t, "./conform/testdata/brokenclient"), AgentToken}, "unknown-method")
	if len(rep.Results) != 2 {
		t.Errorf("%d results, want the 2 unknown-method cases", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Category != "unknown-method" || r.Verdict != Fail {
			t.Errorf("%s: %s: %s", r.Category, r.Case, r.Verdict)
		}
	}
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckClient(context.Background(), p, ClientOptions{Argv: []string{"true"}, Relay: []string{"x"}}); err == nil || !strings.Contains(err.Error(), AgentToken) {
		t.Errorf("no {agent}: %v", err)
	}
	got, _ := expandAgent([]string{"sh", "-c", "exec ./client " + AgentToken}, []string{"/bin/acp gen", "it's"})
	if want := `exec ./client '/bin/acp gen' 'it'\''s'`; got[2] != want {
		t.Errorf("inside a shell command: %s, want %s", got[2], want)
	}
}
