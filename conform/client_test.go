package conform

import (
	"context"
	"os"
	"path/filepath"
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

func TestExampleClientPasses(t *testing.T) {
	rep := checkClient(t, []string{buildCmd(t, "./examples/client"), "-valid-only", AgentToken})
	seen := map[string]bool{}
	for _, r := range rep.Results {
		seen[r.Category] = true
		if r.Verdict == Fail || r.Verdict == Warn {
			t.Errorf("%s: %s: %s: expected %s, observed %s", r.Category, r.Case, r.Verdict, r.Expected, r.Observed)
		}
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
