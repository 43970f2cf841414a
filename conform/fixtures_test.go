package conform

import (
	"slices"
	"strings"
	"testing"
)

// mustFixtures gives each MUST kind the broken-agent mode that breaks it:
// the agent's flags and the categories a run needs to see the kind's case.
// A mode fails the kinds it lists and no other MUST case; where one defect
// fails two kinds, the second follows from the first.
var mustFixtures = []struct {
	flags []string
	cats  []string
	kinds []string
}{
	{[]string{"-echo-version"}, []string{"initialize"}, []string{kindNegotiates}},
	// A wrong version stops the run: every category it would have run
	// reports an uninitialized connection.
	{[]string{"-version-zero"}, []string{"initialize", "unknown-method"}, []string{kindVersion, kindInitialized}},
	{[]string{"-crash-on-nonobject-params"}, []string{"methods"}, []string{kindKeepsRunning}},
	{[]string{"-unknown-method-internal"}, []string{"unknown-method"}, []string{kindUnknownReq}},
	{[]string{"-answer-notifications"}, []string{"unknown-method"}, []string{kindUnknownNote}},
	{[]string{"-answer-notifications-without-id"}, []string{"unknown-method"}, []string{kindUnknownNote}},
	{[]string{"-prompt-error"}, []string{"methods"}, []string{kindValidParams}},
	{[]string{"-duplicate-sessions"}, []string{"methods"}, []string{kindSessionIDs}},
	{[]string{"-rfd", "-load-answer-first"}, []string{"order"}, []string{kindLoadReplay}},
	{[]string{"-ignore-cancel"}, []string{"cancel"}, []string{kindCancelEnds}},
	{[]string{"-late"}, []string{"cancel", "order"}, []string{kindCancelOrder}},
	{[]string{"-garbage-line"}, []string{"initialize", "frames"}, []string{kindLines}},
	{[]string{"-bad-utf8"}, []string{"methods", "frames"}, []string{kindUTF8}},
	{[]string{"-string-ids"}, []string{"initialize", "frames"}, []string{kindResponseIDs}},
	{[]string{"-result-and-error"}, []string{"unknown-method", "frames"}, []string{kindResultOrErr}},
	{[]string{"-error-without-message"}, []string{"unknown-method", "frames"}, []string{kindErrorObjects}},
	{[]string{"-unknown-notification"}, []string{"methods", "frames"}, []string{kindUnknownSent}},
	{[]string{"-textless-chunk"}, []string{"methods", "frames"}, []string{kindSchema}},
	{[]string{"-ungated-read"}, []string{"methods", "gates"}, []string{kindGates}},
}

// mustExceptions are the MUST kinds no broken-agent mode can break, and why.
var mustExceptions = map[string]string{
	kindBlockType:     "v2 only: the broken agent speaks v1",
	kindV2Turn:        "v2 only: TestV2TurnDefects breaks it with conform/testdata/v2filter -no-idle",
	kindV2CancelEnds:  "v2 only: TestV2TurnDefects breaks it with conform/testdata/v2filter -cancel-end-turn",
	kindV2CancelOrder: "v2 only: TestV2TurnDefects breaks it with conform/testdata/v2filter modes",
	kindExtension:     "never fails: extension messages are recorded, not judged",
}

// mustFailures lists the failed MUST cases of rep by kind; a MUST case
// without a kind is listed under "".
func mustFailures(rep *Report) map[string][]string {
	out := map[string][]string{}
	for _, r := range rep.Results {
		if r.Level == Must && r.Verdict == Fail {
			out[r.kind] = append(out[r.kind], r.Category+"/"+r.Case+": "+r.Observed)
		}
	}
	return out
}

// Every MUST kind the agent checker judges has a broken-agent mode that
// fails that kind's case and no other MUST case, or an exception saying
// why it cannot; the correct fixtures fail no MUST case, and every MUST case
// they report names its kind.
func TestEveryMustKindHasAFixture(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range mustFixtures {
		for _, k := range f.kinds {
			if _, ok := mustKinds[k]; !ok {
				t.Errorf("fixture %v: no MUST kind %q", f.flags, k)
			}
			covered[k] = true
		}
	}
	for k := range mustKinds {
		_, excepted := mustExceptions[k]
		if !covered[k] && !excepted {
			t.Errorf("MUST kind %q has no fixture mode and no exception", k)
		}
	}
	for k, why := range mustExceptions {
		if _, ok := mustKinds[k]; !ok || covered[k] {
			t.Errorf("stale exception %q (%s): the kind has a fixture or is gone", k, why)
		}
	}

	bin := buildCmd(t, "./conform/testdata/brokenagent")
	t.Run("correct", func(t *testing.T) {
		for _, argv := range [][]string{{bin}, {buildCmd(t, "./examples/agent")}} {
			rep := checkArgs(t, argv, noExit...)
			if fails := mustFailures(rep); len(fails) > 0 {
				t.Errorf("%s: MUST failures %v", argv[0], fails)
			}
			for _, r := range rep.Results {
				if r.Level == Must && r.Verdict != Skipped && r.kind == "" {
					t.Errorf("%s: MUST case %s/%s names no kind", argv[0], r.Category, r.Case)
				}
			}
		}
	})
	for _, f := range mustFixtures {
		t.Run(strings.Join(f.flags, " "), func(t *testing.T) {
			rep := checkArgs(t, append([]string{bin}, f.flags...), f.cats...)
			fails := mustFailures(rep)
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
