package conform

import (
	"strings"
	"testing"
)

// invalidInputModes are broken-agent modes that do what correct agents do
// with invalid input, on v1 (brokenagent flags) and v2 (v2filter modes on
// examples/agent): each adds a robustness case that fails.
var invalidInputModes = []struct {
	mode string
	// robust is the start of the robustness case the mode fails.
	robust string
}{
	{"-crash-on-nonobject-params", "keeps running after invalid params: "},
	{"-echo-invalid", "valid frames after accepting invalid params: "},
}

// What an agent does after invalid params (a crash on params that are not
// an object, an invalid value accepted and echoed in later valid frames) is
// judged in the robustness group at the params' level: the run fails no
// MUST case, on v1 and v2, with every category and under subsets; with
// --robustness must the same runs fail (today's severity).
func TestInvalidInputIsNotMust(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, m := range invalidInputModes {
		for _, ch := range []struct {
			channel string
			argv    []string
		}{{"", []string{bin, m.mode}}, {"v2", []string{filter, m.mode, agent}}} {
			for _, cats := range [][]string{noExit, {"methods", "frames"}, {"robustness"}} {
				t.Run(ch.channel+m.mode+" "+strings.Join(cats, ","), func(t *testing.T) {
					rep := checkOpts(t, ch.channel, Options{Argv: ch.argv, Categories: cats})
					if rep.Failed() {
						t.Errorf("MUST failures: %v", mustFailures(rep))
					}
					found := false
					for _, r := range rep.Results {
						if r.Category == "robustness" && strings.HasPrefix(r.Case, m.robust) {
							found = true
							if r.Verdict != Fail || r.Level != Should {
								t.Errorf("%s: %s %s, want a SHOULD fail", r.Case, r.Level, r.Verdict)
							}
						}
					}
					if !found {
						t.Errorf("no robustness case %q...", m.robust)
					}
				})
			}
			t.Run(ch.channel+m.mode+" --robustness must", func(t *testing.T) {
				rep := checkOpts(t, ch.channel, Options{Argv: ch.argv, Categories: []string{"methods"}, Robustness: RobustnessMust})
				if !rep.Failed() {
					t.Error("no MUST failure with --robustness must")
				}
			})
		}
	}
}

// When session/new is refused (authentication required), the invalid
// params of a session-scoped method still run where they are invalid
// whatever the session (params that are not an object, sessionId dropped
// or replaced); the others are blocked, with the refusal as the reason.
// An optional method the agent lacks may answer them -32601.
func TestMutantsWithoutSession(t *testing.T) {
	rep := checkOpts(t, "", Options{Argv: []string{buildCmd(t, "./conform/testdata/brokenagent"), "-auth"}, Categories: []string{"methods"}})
	ran, blocked := 0, 0
	for _, r := range rep.Results {
		if !strings.HasPrefix(r.Case, "session/prompt ") || r.Case == "session/prompt valid params" {
			continue
		}
		free := strings.HasPrefix(r.Case, "session/prompt (params)") || strings.HasPrefix(r.Case, "session/prompt /sessionId")
		switch {
		case free && r.Verdict != Blocked:
			ran++
		case !free && r.Verdict == Blocked && strings.Contains(r.Observed, "no live session to name: session/new: error -32000"):
			blocked++
		default:
			t.Errorf("%s: %s, observed %s", r.Case, r.Verdict, r.Observed)
		}
	}
	if ran == 0 || blocked == 0 {
		t.Errorf("session/prompt mutants: %d ran without a session, %d blocked", ran, blocked)
	}
	// session/set_mode, optional and not implemented, answers -32601 to
	// every call: right, though its valid params never ran (no session).
	if res := find(rep, "session/set_mode /sessionId dropped"); res == nil || res.Verdict != Pass {
		t.Errorf("set_mode mutant: %+v", res)
	}
}

// A request the checker sends that is never answered fails the MUST case
// of requests answered (JSON-RPC 2.0 §4), though its own case is a SHOULD;
// an invalid-params request left unanswered is a robustness case.
func TestUnansweredRequestIsMust(t *testing.T) {
	rep := checkArgs(t, []string{buildCmd(t, "./conform/testdata/brokenagent"), "-no-answer-ext"}, "unknown-method", "frames")
	var res *Result
	for i, r := range rep.Results {
		if strings.HasPrefix(r.Case, "requests answered (") {
			res = &rep.Results[i]
		}
	}
	if res == nil || res.Level != Must || res.Verdict != Fail || !strings.Contains(res.Observed, "_acpgen/conform_unknown (id 3) never answered") {
		t.Errorf("requests answered: %+v", res)
	}
}

// A method nothing advertises and the agent does not implement (-32601 to
// valid params) is recorded, not judged: session/set_mode on the broken
// agent, which lists no modes; once it lists modes (-modes) and implements
// the method, the case is the MUST one again, and passes.
func TestUnimplementedOptionalMethodNoted(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	rep := checkArgs(t, []string{bin}, "methods")
	if res := find(rep, "session/set_mode valid params"); res == nil || res.Level != Info || res.Verdict != Noted {
		t.Errorf("unimplemented: %+v", res)
	}
	rep = checkArgs(t, []string{bin, "-modes"}, "methods")
	if res := find(rep, "session/set_mode valid params"); res == nil || res.Level != Must || res.Verdict != Pass {
		t.Errorf("advertised and implemented: %+v", res)
	}
}

// session/delete is sent only for a session session/list returned (the
// schema deletes "an existing session from session/list"): an agent that
// lists only sessions with history, and answers -32002 for any other,
// gets no delete for a fresh session, and fails nothing.
func TestDeleteOnlyListed(t *testing.T) {
	rep := checkArgs(t, []string{buildCmd(t, "./conform/testdata/brokenagent"), "-delete-listed-only"}, "methods")
	res := find(rep, "session/delete valid params")
	if res == nil || res.Verdict != Skipped || !strings.Contains(res.Observed, "session/list did not return session") {
		t.Errorf("session/delete: %+v", res)
	}
	if rep.Failed() {
		t.Errorf("MUST failures: %v", mustFailures(rep))
	}
}

// The jsonrpc "1.0" probe carries valid params, so that its answer shows
// whether the version was read: an agent that ignores it creates a session.
func TestJSONRPCVersionProbeHasValidParams(t *testing.T) {
	rep := checkArgs(t, []string{buildCmd(t, "./conform/testdata/brokenagent"), "-ignore-jsonrpc-version"}, "malformed")
	if res := find(rep, "jsonrpc 1.0"); res == nil || res.Verdict != Fail || !strings.HasPrefix(res.Observed, `result {"sessionId"`) {
		t.Errorf("jsonrpc 1.0: %+v", res)
	}
}
