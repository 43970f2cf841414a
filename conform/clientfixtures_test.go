package conform

import (
	"slices"
	"strings"
	"testing"
)

// clientFixtures give each MUST kind of the client checker the broken-client
// mode that breaks it (conform/testdata/brokenclient -break MODE), run on v1
// and v2. A mode fails the kinds it lists and no other MUST case; where one
// defect fails two kinds, the second follows from the first.
var clientFixtures = []struct {
	mode  string
	kinds []string
}{
	{"no-agent", []string{kindClientStarts}},
	{"session-first", []string{kindClientInitFirst}},
	// initialize's params are judged in its own case and as a frame.
	{"init-params", []string{kindClientInitParams, kindSchema}},
	{"refuse-requests", []string{kindClientResults}},
	{"unknown-result", []string{kindUnknownReq}},
	{"crash-on-update", []string{kindKeepsRunning}},
	{"garbage-line", []string{kindLines}},
	{"bad-utf8", []string{kindUTF8}},
	{"string-ids", []string{kindResponseIDs}},
	{"result-and-error", []string{kindResultOrErr}},
	{"error-without-message", []string{kindErrorObjects}},
	{"unknown-sent", []string{kindUnknownSent}},
	{"cancel-params", []string{kindSchema}},
	{"ungated-dirs", []string{kindGates}},
}

// clientMustExceptions are the client MUST kinds no broken-client mode can
// break, and why.
var clientMustExceptions = map[string]string{
	kindExtension: "never fails: extension messages are recorded, not judged",
}

// clientChannels are the channels every client fixture runs on; the
// correct client runs on the unstable ones too, whose wider method sets add
// requests (mcp/message, sent only for a server the session declares).
var clientChannels = []string{"stable", "v2"}

var correctChannels = []string{"stable", "unstable", "v2", "v2-unstable"}

// Every MUST kind the client checker judges has a broken-client mode that
// fails that kind's case and no other MUST case, on v1 and v2, or an
// exception saying why it cannot; the correct client fails no MUST case on
// any channel, and every MUST case it reports names its kind.
func TestEveryClientMustKindHasAFixture(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range clientFixtures {
		for _, k := range f.kinds {
			if _, ok := clientMustKinds[k]; !ok {
				t.Errorf("fixture %s: no client MUST kind %q", f.mode, k)
			}
			covered[k] = true
		}
	}
	for k := range clientMustKinds {
		if _, excepted := clientMustExceptions[k]; !covered[k] && !excepted {
			t.Errorf("client MUST kind %q has no fixture mode and no exception", k)
		}
	}
	for k, why := range clientMustExceptions {
		if _, ok := clientMustKinds[k]; !ok || covered[k] {
			t.Errorf("stale exception %q (%s): the kind has a fixture or is gone", k, why)
		}
	}
	bin := buildCmd(t, "./conform/testdata/brokenclient")
	run := func(t *testing.T, channel string, flags ...string) *Report {
		argv := append([]string{bin, "-cwd", t.TempDir()}, flags...)
		if strings.HasPrefix(channel, "v2") {
			argv = append(argv, "-v2")
		}
		return checkClientOn(t, channel, append(argv, AgentToken))
	}
	for _, ch := range correctChannels {
		t.Run(ch+"/correct", func(t *testing.T) {
			rep := run(t, ch)
			if fails := mustFailures(rep); len(fails) > 0 {
				t.Errorf("MUST failures %v", fails)
			}
			for _, r := range rep.Results {
				if r.Level == Must && r.Verdict != Skipped && r.kind == "" {
					t.Errorf("MUST case %s/%s names no kind", r.Category, r.Case)
				}
			}
			if rep.Failed() {
				t.Error("Failed() is true")
			}
		})
	}
	for _, ch := range clientChannels {
		for _, f := range clientFixtures {
			t.Run(ch+"/"+f.mode, func(t *testing.T) {
				rep := run(t, ch, "-break", f.mode)
				fails := mustFailures(rep)
				defer func() {
					if t.Failed() {
						for _, r := range rep.Results {
							t.Logf("case %s/%s %s %s: %s", r.Category, r.Case, r.Level, r.Verdict, r.Observed)
						}
					}
				}()
				for _, k := range f.kinds {
					if len(fails[k]) == 0 {
						t.Errorf("%s: no failed case", k)
					}
				}
				for k, cases := range fails {
					if !slices.Contains(f.kinds, k) {
						t.Errorf("other MUST kind %q failed: %s", k, strings.Join(cases, "; "))
					}
				}
			})
		}
	}
}
