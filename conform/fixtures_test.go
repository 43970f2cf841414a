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
	// robustness is the run's Options.Robustness.
	robustness string
}{
	{[]string{"-echo-version"}, []string{"initialize"}, []string{kindNegotiates}, ""},
	{[]string{"-refuse-future-version"}, []string{"initialize"}, []string{kindNegotiates}, ""},
	// A wrong version stops the run: every category it would have run
	// reports an uninitialized connection.
	{[]string{"-version-zero"}, []string{"initialize", "unknown-method"}, []string{kindVersion, kindInitialized}, ""},
	// A death on valid traffic (a notification): the next request of the
	// notification's case gets no answer either.
	{[]string{"-crash-on-extension-notification"}, []string{"unknown-method"}, []string{kindKeepsRunning, kindUnknownNote}, ""},
	// What correct agents do after invalid params fails MUST cases only
	// with --robustness must.
	{[]string{"-crash-on-nonobject-params"}, []string{"methods"}, []string{kindKeepsRunning}, RobustnessMust},
	{[]string{"-echo-invalid"}, []string{"methods"}, []string{kindSchema}, RobustnessMust},
	{[]string{"-unknown-method-internal"}, []string{"unknown-method"}, []string{kindUnknownReq}, ""},
	{[]string{"-answer-notifications"}, []string{"unknown-method"}, []string{kindUnknownNote}, ""},
	{[]string{"-answer-notifications-without-id"}, []string{"unknown-method"}, []string{kindUnknownNote}, ""},
	{[]string{"-prompt-error"}, []string{"methods"}, []string{kindValidParams}, ""},
	{[]string{"-duplicate-sessions"}, []string{"methods"}, []string{kindSessionIDs}, ""},
	// Nothing is replayed before the response, so nothing of the
	// conversation either.
	{[]string{"-rfd", "-load-answer-first"}, []string{"order"}, []string{kindLoadReplay, kindLoadEntire}, ""},
	{[]string{"-rfd", "-replay-user-only"}, []string{"order"}, []string{kindLoadEntire}, ""},
	{[]string{"-logout-refused"}, []string{"methods"}, []string{kindValidParams}, ""},
	{[]string{"-ignore-cancel"}, []string{"cancel"}, []string{kindCancelEnds}, ""},
	{[]string{"-late"}, []string{"cancel", "order"}, []string{kindCancelOrder}, ""},
	{[]string{"-garbage-line"}, []string{"initialize", "frames"}, []string{kindLines}, ""},
	{[]string{"-bad-utf8"}, []string{"methods", "frames"}, []string{kindUTF8}, ""},
	{[]string{"-string-ids"}, []string{"initialize", "frames"}, []string{kindResponseIDs}, ""},
	// The request answered with the wrong id is answered by none.
	{[]string{"-ext-id-plus-one"}, []string{"unknown-method", "frames"}, []string{kindResponseIDs, kindAnswered}, ""},
	{[]string{"-no-answer-ext"}, []string{"unknown-method", "frames"}, []string{kindAnswered}, ""},
	{[]string{"-result-and-error"}, []string{"unknown-method", "frames"}, []string{kindResultOrErr}, ""},
	{[]string{"-error-without-message"}, []string{"unknown-method", "frames"}, []string{kindErrorObjects}, ""},
	{[]string{"-unknown-notification"}, []string{"methods", "frames"}, []string{kindUnknownSent}, ""},
	{[]string{"-textless-chunk"}, []string{"methods", "frames"}, []string{kindSchema}, ""},
	{[]string{"-ungated-read"}, []string{"methods", "gates"}, []string{kindGates}, ""},
}

// v2Fixtures give the v2 MUST kinds their defect: a mode of
// conform/testdata/v2filter, which alters examples/agent's v2 side, on the
// v2 channel. A turn that never ends also fails the cases that wait for
// its end.
var v2Fixtures = []struct {
	mode  string
	cats  []string
	kinds []string
}{
	{"-no-idle", []string{"order", "cancel"}, []string{kindV2Turn, kindV2CancelEnds, kindV2ResumeState, kindV2CloseFinal}},
	// The close cancels the turn: its idle says end_turn too.
	{"-cancel-end-turn", []string{"cancel"}, []string{kindV2CancelEnds, kindV2CloseFinal}},
	{"-late", []string{"cancel"}, []string{kindV2CancelOrder}},
	{"-resume-answer-first", []string{"order"}, []string{kindV2ResumeState}},
	{"-accept-any-cursor", []string{"order"}, []string{kindV2Cursor}},
	{"-close-answer-first", []string{"cancel"}, []string{kindV2CloseFinal}},
	{"-drop-unknown-blocks", []string{"methods"}, []string{kindBlockType}},
	{"-batch-empty-parse-error", []string{"batch"}, []string{kindV2BatchEmpty}},
	{"-batch-answer-notifications", []string{"batch"}, []string{kindV2BatchNotify}},
	{"-refuse-v1", []string{"initialize"}, []string{kindNegotiates}},
	{"-duplicate-env", []string{"initialize"}, []string{kindV2EnvNames}},
}

// restartFixtures are the persistence kinds' defects (--restart): an agent
// that advertises session/load but forgets its sessions when restarted.
var restartFixtures = []struct {
	flags []string
	kinds []string
}{
	{[]string{"-rfd"}, []string{kindRestartLoad}},
}

// shouldFixtures give each SHOULD kind its defect: brokenagent's flags on
// v1, or a v2filter mode on examples/agent on v2 (filter ""; flags only on
// v2: examples/agent itself). Each fails its kinds' cases and no other
// SHOULD kind's.
var shouldFixtures = []struct {
	channel string
	flags   []string
	cats    []string
	kinds   []string
	restart bool
	// must are MUST kinds the defect fails too (a late update after a
	// cancelled turn's response breaks a MUST as well).
	must []string
}{
	{"", []string{"-auth", "-duplicate-auth-ids"}, []string{"initialize"}, []string{kindAuthIDs}, false, nil},
	{"", []string{"-terminal-auth", "-duplicate-env"}, []string{"initialize"}, []string{kindEnvNamesV1}, false, nil},
	{"", []string{"-rfd"}, []string{"methods"}, []string{kindListEmpty}, false, nil},
	{"", []string{"-resume-replays"}, []string{"order"}, []string{kindResumeNoReplay}, false, nil},
	{"v2", []string{"-replay-always"}, []string{"order"}, []string{kindResumeNoReplay}, false, nil},
	{"v2", []string{"-unprefixed-values"}, []string{"initialize", "order", "frames"}, []string{kindUnprefixedKind, kindUnprefixedStop, kindUnprefixedAuth}, false, nil},
	// examples/agent keeps its sessions in memory: a restart forgets them.
	{"v2", nil, []string{"persistence"}, []string{kindV2RestartReplay}, true, nil},
	{"", []string{"-ext-internal"}, []string{"unknown-method"}, []string{kindExtUnknown}, false, nil},
	{"", []string{"-modes", "-partial-config-options"}, []string{"methods"}, []string{kindConfigSet}, false, nil},
	{"", []string{"-late"}, []string{"order"}, []string{kindTurnOrder}, false, []string{kindCancelOrder}},
	{"", []string{"-foreign-session-update"}, []string{"order"}, []string{kindTurnSession}, false, nil},
	{"", []string{"-keyed", "-orphan-tool-update"}, []string{"methods", "frames"}, []string{kindKeyedTool}, false, nil},
	{"", []string{"-keyed", "-chunk-id-returns"}, []string{"methods", "frames"}, []string{kindChunkIDReturns}, false, nil},
	{"v2", []string{"-late"}, []string{"order"}, []string{kindV2AfterIdle}, false, nil},
	{"v2", []string{"-idle-without-stop"}, []string{"order"}, []string{kindV2IdleStop}, false, nil},
	{"v2", []string{"-user-message-id"}, []string{"order"}, []string{kindV2UserMessageID}, false, nil},
	{"v2", []string{"-same-message-id"}, []string{"order"}, []string{kindV2DistinctIDs}, false, nil},
	{"v2", []string{"-replay-drops-agent"}, []string{"order"}, []string{kindV2ReplayOrder}, false, nil},
	{"v2", []string{"-after-close"}, []string{"cancel"}, []string{kindV2CloseQuiet}, false, nil},
	{"v2", []string{"-batch-one-error"}, []string{"batch"}, []string{kindV2BatchArray}, false, nil},
	{"v2", []string{"-orphan-chunks"}, []string{"order", "frames"}, []string{kindKeyedToolChunk, kindKeyedTerminal}, false, nil},
}

// mustExceptions are the MUST kinds no fixture mode can break, and why.
var mustExceptions = map[string]string{
	kindExtension: "never fails: extension messages are recorded, not judged",
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
			covered[k] = true
		}
	}
	for _, f := range v2Fixtures {
		for _, k := range f.kinds {
			covered[k] = true
		}
	}
	for _, f := range restartFixtures {
		for _, k := range f.kinds {
			covered[k] = true
		}
	}
	shouldCovered := map[string]bool{}
	for _, f := range shouldFixtures {
		for _, k := range f.kinds {
			if _, ok := shouldKinds[k]; !ok {
				t.Errorf("a fixture names no SHOULD kind %q", k)
			}
			shouldCovered[k] = true
		}
	}
	for k := range shouldKinds {
		if !shouldCovered[k] {
			t.Errorf("SHOULD kind %q has no fixture mode", k)
		}
	}
	for k := range covered {
		if _, ok := mustKinds[k]; !ok {
			t.Errorf("a fixture names no MUST kind %q", k)
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

	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	t.Run("correct", func(t *testing.T) {
		for _, run := range []struct {
			channel string
			argv    []string
		}{{"", []string{bin}}, {"", []string{agent}}, {"v2", []string{agent}}} {
			rep := checkChannel(t, run.channel, run.argv, noExit...)
			if fails := mustFailures(rep); len(fails) > 0 {
				t.Errorf("%s %s: MUST failures %v", run.channel, run.argv[0], fails)
			}
			if fails := shouldFailures(rep); len(fails) > 0 {
				t.Errorf("%s %s: SHOULD kind failures %v", run.channel, run.argv[0], fails)
			}
			for _, r := range rep.Results {
				if r.Level == Must && r.Verdict != Skipped && r.kind == "" {
					t.Errorf("%s %s: MUST case %s/%s names no kind", run.channel, run.argv[0], r.Category, r.Case)
				}
			}
		}
	})
	for _, f := range mustFixtures {
		t.Run(strings.Join(append(f.flags, f.robustness), " "), func(t *testing.T) {
			onlyKinds(t, checkOpts(t, "", Options{Argv: append([]string{bin}, f.flags...), Categories: f.cats, Robustness: f.robustness}), f.kinds)
		})
	}
	for _, f := range v2Fixtures {
		t.Run("v2"+f.mode, func(t *testing.T) {
			onlyKinds(t, checkChannel(t, "v2", []string{filter, f.mode, agent}, f.cats...), f.kinds)
		})
	}
	for _, f := range restartFixtures {
		t.Run("restart "+strings.Join(f.flags, " "), func(t *testing.T) {
			onlyKinds(t, checkOpts(t, "", Options{Argv: append([]string{bin}, f.flags...), Categories: []string{"persistence"}, Restart: true}), f.kinds)
		})
	}
	for _, f := range shouldFixtures {
		t.Run("should "+f.channel+" "+strings.Join(f.flags, " "), func(t *testing.T) {
			argv := append([]string{bin}, f.flags...)
			if f.channel == "v2" {
				argv = append(append([]string{filter}, f.flags...), agent)
				if len(f.flags) == 0 {
					argv = []string{agent}
				}
			}
			rep := checkOpts(t, f.channel, Options{Argv: argv, Categories: f.cats, Restart: f.restart})
			fails := shouldFailures(rep)
			for _, k := range f.kinds {
				if len(fails[k]) == 0 {
					t.Errorf("%s: no failed case", k)
				}
			}
			for k, cases := range fails {
				if !slices.Contains(f.kinds, k) {
					t.Errorf("other SHOULD kind %q failed: %s", k, strings.Join(cases, "; "))
				}
			}
			for k, cases := range mustFailures(rep) {
				if !slices.Contains(f.must, k) {
					t.Errorf("MUST kind %q failed: %s", k, strings.Join(cases, "; "))
				}
			}
		})
	}
}

// shouldFailures lists the failed cases of rep by SHOULD kind.
func shouldFailures(rep *Report) map[string][]string {
	out := map[string][]string{}
	for _, r := range rep.Results {
		if _, ok := shouldKinds[r.kind]; ok && r.Level == Should && r.Verdict == Fail {
			out[r.kind] = append(out[r.kind], r.Category+"/"+r.Case+": "+r.Observed)
		}
	}
	return out
}

// onlyKinds expects rep to fail a case of each of kinds and no other MUST
// case.
func onlyKinds(t *testing.T, rep *Report, kinds []string) {
	t.Helper()
	fails := mustFailures(rep)
	for _, k := range kinds {
		if len(fails[k]) == 0 {
			t.Errorf("%s: no failed case", k)
		}
	}
	for k, cases := range fails {
		if !slices.Contains(kinds, k) {
			t.Errorf("other MUST kind %q failed: %s", k, strings.Join(cases, "; "))
		}
	}
}
