package interop

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/conform"
)

// tsAgentDifferences are the conform cases the TypeScript SDK's agent side
// fails, each a strictness difference docs/conform.md lists: the
// SDK drops a request without a method instead of answering -32600, and its
// schema keeps the additional-directories path rules in prose, so relative
// and empty roots reach the handler (ts-agent.mjs echoes them).
var tsAgentDifferences = []string{
	"malformed: request without method",
	"rfd: session/new /cwd empty (minLength)",
	"rfd: session/new /cwd not an absolute path (relative/path)",
	"rfd: session/new /additionalDirectories/0 empty (minLength)",
	"rfd: session/new /additionalDirectories/0 not an absolute path (relative/path)",
	"rfd: session/load /cwd empty (minLength)",
	"rfd: session/load /cwd not an absolute path (relative/path)",
	"rfd: session/load /additionalDirectories/0 empty (minLength)",
	"rfd: session/load /additionalDirectories/0 not an absolute path (relative/path)",
}

// The TypeScript SDK agent passes every conform case of this repository's
// stable profile apart from the documented differences (the overlays' rules
// judged: --overlays strict).
func TestConformTypeScriptAgent(t *testing.T) {
	requireSDK(t)
	p, err := conform.LoadProfile(context.Background(), conform.ProfileOptions{Config: "../acpgen.json"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := conform.CheckAgent(context.Background(), p, conform.Options{Argv: []string{"node", "ts-agent.mjs"}, Timeout: 5 * time.Second, Overlays: conform.OverlaysStrict})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range rep.Results {
		if r.Verdict == conform.Fail {
			failed = append(failed, r.Category+": "+r.Case)
		}
	}
	slices.Sort(failed)
	want := slices.Sorted(slices.Values(tsAgentDifferences))
	if !slices.Equal(failed, want) {
		t.Errorf("failed cases:\n  %s\nwant:\n  %s", strings.Join(failed, "\n  "), strings.Join(want, "\n  "))
	}
	if n := rep.Counts()[conform.Pass]; n < 60 {
		t.Errorf("%d passing cases, want at least 60", n)
	}
}
