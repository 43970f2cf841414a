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
	return checkClientOn(t, "", argv, cats...)
}

// checkClientOn checks argv against a channel of the pinned configuration
// ("" is stable).
func checkClientOn(t *testing.T, channel string, argv []string, cats ...string) *Report {
	t.Helper()
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: channel})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CheckClient(context.Background(), p, ClientOptions{Argv: argv, Relay: []string{os.Args[0], "relay"},
		Timeout: 10 * time.Second, Categories: cats})
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

func TestClientCategoryFilterAndToken(t *testing.T) {
	rep := checkClient(t, []string{buildCmd(t, "./conform/testdata/brokenclient"), "-break", "unknown-result", AgentToken}, "unknown-method")
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

// The scripted agent plays each version's prompt turn: the correct client
// sees its turns end (v1: the prompt's response; v2: the idle state_update
// after it) with stopReason end_turn, in the run advertising the baseline
// and in the probing run; the terminal probes follow the lifecycle (create,
// output, wait_for_exit, kill, release), so a client that forgets a
// released terminal answers them all.
func TestClientTurnsAndTerminalLifecycle(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenclient")
	for _, ch := range clientChannels {
		t.Run(ch, func(t *testing.T) {
			turns := filepath.Join(t.TempDir(), "turns")
			argv := []string{bin, "-cwd", t.TempDir(), "-turns", turns}
			if ch == "v2" {
				argv = append(argv, "-v2")
			}
			rep := checkClientOn(t, ch, append(argv, AgentToken))
			if b, _ := os.ReadFile(turns); string(b) != "end_turn\nend_turn\n" {
				t.Errorf("turns ended with %q, want end_turn twice", b)
			}
			terminal := 0
			for _, r := range rep.Results {
				if r.Category == "requests" && r.Verdict != Pass && r.Verdict != Skipped {
					t.Errorf("%s: %s: %s", r.Case, r.Verdict, r.Observed)
				}
				if r.Category == "requests" && strings.HasPrefix(r.Case, "terminal/") && r.Verdict == Pass {
					terminal++
				}
			}
			if want := map[string]int{"stable": 5, "v2": 0}[ch]; terminal != want {
				t.Errorf("%d terminal requests passed, want %d", terminal, want)
			}
		})
	}
}
