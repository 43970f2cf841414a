package conform

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

// Every case names the rule it rests on, at a level that rule gives: the
// table prints the source column, the JSON carries it.
func TestCasesNameTheirSource(t *testing.T) {
	rep := check(t, buildCmd(t, "./examples/agent"), "before-initialize", "initialize", "unknown-method", "methods", "order", "malformed", "batch", "exit", "frames")
	levels := map[string]Level{}
	// The checks on sessions and on every response, by case name prefix:
	// the level and source their rule gives.
	rules := map[string]levelSource{
		"batch/batch of two requests and a notification":             {Info, srcV1Batch},
		"frames/response ids":                                        {Must, srcRPCResponse},
		"frames/responses result or error":                           {Must, srcRPCResponse},
		"frames/lines in UTF-8":                                      {Must, srcUTF8},
		"methods/session/new gives a new sessionId each time":        {Must, srcSessionID},
		"methods/session/set_config_option answers every option":     {Should, srcConfigSet},
		"order/session/prompt updates name the turn's session":       {Should, srcUpdateSession},
		"order/session/load replays the history before its response": {Must, srcLoadReplay},
	}
	nameRules(t, rep, rules)
	for _, r := range rep.Results {
		switch {
		case r.Category == "methods" && r.Expected == "error -32602":
			levels["mutant"] = r.Level
		case r.Category == "malformed" || r.Category == "exit" || r.Category == "before-initialize":
			levels[r.Category] = r.Level
		}
	}
	for k, want := range map[string]Level{"mutant": Should, "malformed": Should, "exit": Info, "before-initialize": Info} {
		if levels[k] != want {
			t.Errorf("%s cases: level %q, want %s", k, levels[k], want)
		}
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"case  ", "source", srcRPCParams, srcRPCNotify} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

type levelSource struct {
	level  Level
	source string
}

// nameRules checks that every case has a level and a source, and that the
// cases whose category/case starts with a key of rules have its level and
// source, one case at least for each.
func nameRules(t *testing.T, rep *Report, rules map[string]levelSource) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rep.Results {
		if r.Source == "" || (r.Level != Must && r.Level != Should && r.Level != Info) {
			t.Errorf("%s: %s: level %q, source %q", r.Category, r.Case, r.Level, r.Source)
		}
		for name, want := range rules {
			if strings.HasPrefix(r.Category+"/"+r.Case, name) {
				seen[name] = true
				if r.Level != want.level || r.Source != want.source {
					t.Errorf("%s: level %s, source %q; want %s, %q", name, r.Level, r.Source, want.level, want.source)
				}
			}
		}
	}
	for name := range rules {
		if !seen[name] {
			t.Errorf("no case %s", name)
		}
	}
}

// The v2 cases of resume, close, batches and message ids name the v2
// schema's or transports page's sentence, at its level.
func TestV2CasesNameTheirSource(t *testing.T) {
	rep := checkChannel(t, "v2", []string{buildCmd(t, "./examples/agent")}, "order", "cancel", "batch")
	nameRules(t, rep, map[string]levelSource{
		"order/v2 session/resume: replay, then state_update":      {Must, srcV2ResumeState},
		"order/v2 session/resume replays the history":             {Should, srcV2ReplayOrder},
		"order/v2 session/resume /replayFrom unsupported cursor":  {Must, srcV2Cursor},
		"order/v2 prompts of one session get distinct messageIds": {Should, srcV2MessageIDs},
		"order/v2 prompt's user message update carries":           {Should, srcV2Echo},
		"cancel/v2 session/close during a turn":                   {Must, srcV2CloseFinal},
		"cancel/v2 no message for a session after its close":      {Should, srcV2Closed},
		"batch/batch of two requests and a notification":          {Should, srcV2BatchArray},
		"batch/batch: no response item for its notification":      {Must, srcV2BatchNotify},
		"batch/batch of notifications only":                       {Must, srcV2BatchNotify},
		"batch/empty batch []":                                    {Must, srcV2BatchEmpty},
	})
}

// An agent that answers session/new with -32000 (authentication required):
// the session-dependent cases are blocked with a hint naming its auth
// methods, not failed; with AuthMethod the checker authenticates first and
// they run.
func TestAuthRefusalBlocks(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	cats := []string{"initialize", "methods", "cancel", "order"}
	rep := checkOpts(t, "", Options{Argv: []string{bin, "-auth"}, Categories: cats})
	blocked := map[string]bool{}
	for _, r := range rep.Results {
		if r.Verdict == Blocked {
			blocked[r.Category+"/"+r.Case] = true
		}
		if r.Verdict == Fail && r.Level == Must {
			t.Errorf("%s: %s: MUST failure, observed %s", r.Category, r.Case, r.Observed)
		}
	}
	for _, want := range []string{"methods/session/new valid params", "methods/session/prompt valid params", "cancel/session/cancel ends the turn"} {
		if !blocked[want] {
			t.Errorf("%s not blocked (blocked: %v)", want, blocked)
		}
	}
	if rep.Failed() || !rep.Blocked() {
		t.Errorf("Failed() %v, Blocked() %v; want false, true", rep.Failed(), rep.Blocked())
	}
	if want := "authenticate first: --auth-method ID; the agent lists authMethods [conform-key]"; !strings.Contains(rep.Hint, want) {
		t.Errorf("hint %q, want it to contain %q", rep.Hint, want)
	}

	rep = checkOpts(t, "", Options{Argv: []string{bin, "-auth"}, Categories: cats, AuthMethod: "conform-key"})
	ran := map[string]Verdict{}
	for _, r := range rep.Results {
		ran[r.Category+"/"+r.Case] = r.Verdict
		if r.Verdict == Blocked {
			t.Errorf("%s: %s: blocked after authenticating", r.Category, r.Case)
		}
	}
	for _, c := range []string{"initialize/authenticates with --auth-method conform-key", "methods/session/new valid params", "cancel/session/cancel ends the turn"} {
		if ran[c] != Pass {
			t.Errorf("%s: %q, want pass", c, ran[c])
		}
	}
	if rep.Failed() || rep.Blocked() || rep.Hint != "" {
		t.Errorf("Failed() %v, Blocked() %v, hint %q after authenticating", rep.Failed(), rep.Blocked(), rep.Hint)
	}
}

// An agent that creates sessions but answers session/prompt with -32000
// (as claude-agent-acp does without credentials): the prompt and the cases
// that need a turn (its ordering, the cancelled turn, the load replay's
// history) are blocked, not failed or passed vacuously.
func TestPromptAuthRefusalBlocks(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	rep := checkOpts(t, "", Options{Argv: []string{bin, "-auth-prompt", "-rfd"},
		Categories: []string{"initialize", "methods", "cancel", "order"}})
	verdicts := map[string]Verdict{}
	for _, r := range rep.Results {
		verdicts[r.Category+"/"+r.Case] = r.Verdict
		if r.Verdict == Fail && r.Level == Must {
			t.Errorf("%s: %s: MUST failure, observed %s", r.Category, r.Case, r.Observed)
		}
	}
	for _, want := range []string{"methods/session/prompt valid params", "order/" + caseTurnOrder, "order/" + caseTurnSession,
		"cancel/session/cancel ends the turn", "order/session/load replays the history before its response"} {
		if verdicts[want] != Blocked {
			t.Errorf("%s: %q, want blocked", want, verdicts[want])
		}
	}
	if verdicts["methods/session/new valid params"] != Pass {
		t.Errorf("session/new valid params: %q, want pass", verdicts["methods/session/new valid params"])
	}
	if want := "session/prompt answered error -32000"; rep.Failed() || !rep.Blocked() || !strings.HasPrefix(rep.Hint, want) {
		t.Errorf("Failed() %v, Blocked() %v, hint %q; want false, true, %q...", rep.Failed(), rep.Blocked(), rep.Hint, want)
	}
}

// A v2 agent whose prompt turn ends idle with a -32000 error (as
// claude-agent-acp's does without credentials): the turn's cases are
// blocked, not passed, and the run is blocked.
func TestV2TurnAuthRefusalBlocks(t *testing.T) {
	agent, filter := buildCmd(t, "./examples/agent"), buildCmd(t, "./conform/testdata/v2filter")
	rep := checkChannel(t, "v2", []string{filter, "-refuse-turn", agent}, "methods", "order")
	for _, name := range append(slices.Clone(v2TurnCases[:3]), caseTurnSession) {
		if r := find(rep, name); r == nil || r.Verdict != Blocked {
			t.Errorf("%s: %+v, want blocked", name, r)
		}
	}
	for _, r := range rep.Results {
		if r.Verdict == Fail && r.Level == Must {
			t.Errorf("%s: %s: MUST failure, observed %s", r.Category, r.Case, r.Observed)
		}
	}
	if want := "session/prompt's turn ended idle with error -32000"; rep.Failed() || !rep.Blocked() || !strings.HasPrefix(rep.Hint, want) {
		t.Errorf("Failed() %v, Blocked() %v, hint %q; want false, true, %q...", rep.Failed(), rep.Blocked(), rep.Hint, want)
	}
}

// Session-level updates after a turn's response (session_info_update,
// available_commands_update) are not late turn output; an
// agent_message_chunk after it is.
func TestSessionUpdatesAfterTurn(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	for _, c := range []struct {
		mode string
		want Verdict
	}{{"-chatty", Pass}, {"-late", Fail}} {
		rep := checkArgs(t, []string{bin, c.mode}, "order")
		var ordering []Result
		for _, r := range rep.Results {
			if r.Source == srcPromptTurn {
				ordering = append(ordering, r)
			}
		}
		if len(ordering) != 2 {
			t.Fatalf("%s: %d turn ordering cases, want 2", c.mode, len(ordering))
		}
		for _, r := range ordering {
			if r.Verdict != c.want {
				t.Errorf("%s: %s: %s (observed %s), want %s", c.mode, r.Case, r.Verdict, r.Observed, c.want)
			}
		}
	}
}

// The set_mode and set_config_option probes use the modes and options the
// agent advertised in session/new's result.
func TestProbesUseAdvertisedIDs(t *testing.T) {
	rep := checkArgs(t, []string{buildCmd(t, "./conform/testdata/brokenagent"), "-modes"}, "methods")
	seen := 0
	for _, r := range rep.Results {
		if r.Case == "session/set_mode valid params" || r.Case == "session/set_config_option valid params" {
			seen++
			if r.Verdict != Pass {
				t.Errorf("%s: %s, observed %s", r.Case, r.Verdict, r.Observed)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d set_mode/set_config_option valid params cases, want 2", seen)
	}
}

// The set_config_option probe tags the advertised value with the variant
// its option's type takes in the profile's schema (a select's value id: v2
// "id", v1 untagged; a boolean "boolean"), whatever tag the def's example
// carries, so the probe's params are valid.
func TestConfigProbeMatchesOptionType(t *testing.T) {
	for _, c := range []struct{ channel, option, want string }{
		{"", `{"id":"mode","name":"Mode","type":"select","currentValue":"auto","options":[]}`, ``},
		{"", `{"id":"fast","name":"Fast","type":"boolean","currentValue":true}`, `"boolean"`},
		{"v2", `{"configId":"mode","name":"Mode","type":"select","currentValue":"auto","options":[]}`, `"id"`},
		{"v2", `{"configId":"fast","name":"Fast","type":"boolean","currentValue":true}`, `"boolean"`},
	} {
		p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: c.channel})
		if err != nil {
			t.Fatal(err)
		}
		r := &agentRun{p: p}
		m := p.Method("session/set_config_option")
		created := json.RawMessage(`{"sessionId":"s1","configOptions":[` + c.option + `]}`)
		params := r.advertised(m, r.fill(m.Params, p.example(m.Params.Def), "s1", ""), created)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(params, &obj); err != nil {
			t.Fatal(err)
		}
		if string(obj["type"]) != c.want || string(obj["value"]) == "" {
			t.Errorf("%s %s: params %s, want type %s", c.channel, c.option, params, c.want)
		}
		if vs, _ := p.Violations(m.Params.Def, params); len(vs) > 0 {
			t.Errorf("%s %s: params %s invalid: %s %s", c.channel, c.option, params, vs[0].Pointer, vs[0].Reason)
		}
	}
}

// The answer to set_config_option is compared with session/new's options
// by their ids: v1's id, v2's configId.
func TestConfigOptionsComparedByID(t *testing.T) {
	for _, c := range []struct{ listed, got, want string }{
		{`[{"id":"a"},{"id":"b"}]`, `[{"id":"a"}]`, "b"},
		{`[{"configId":"a"},{"configId":"b"}]`, `[{"configId":"a"}]`, "b"},
		{`[{"configId":"a"},{"configId":"b"}]`, `[{"configId":"b"},{"configId":"a"}]`, ""},
	} {
		var listed, got []configOption
		if err := json.Unmarshal([]byte(c.listed), &listed); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.got), &got); err != nil {
			t.Fatal(err)
		}
		if missing := strings.Join(missingOptions(listed, got), ","); missing != c.want {
			t.Errorf("listed %s, answered %s: missing %q, want %q", c.listed, c.got, missing, c.want)
		}
	}
}

// An agent that negotiates 65535 down to 2 has its initialize result
// validated against the v2 schema, not v1's; one that negotiates a version
// this release has no schema of is noted once, with no schema failure.
func TestNegotiatedVersionPicksSchema(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	rep := checkArgs(t, []string{bin, "-negotiate=2"}, "initialize", "frames")
	v2 := false
	for _, r := range rep.Results {
		if r.Verdict == Fail {
			t.Errorf("-negotiate=2: %s: %s failed: %s", r.Category, r.Case, r.Observed)
		}
		v2 = v2 || strings.HasPrefix(r.Case, "result of initialize (protocol 2)")
	}
	if !v2 {
		t.Error("-negotiate=2: no frames case validated against protocol 2")
	}
	rep = checkArgs(t, []string{bin, "-negotiate=3"}, "initialize", "frames")
	mismatch := 0
	for _, r := range rep.Results {
		if r.Verdict == Fail {
			t.Errorf("-negotiate=3: %s failed: %s", r.Case, r.Observed)
		}
		if strings.HasPrefix(r.Case, mismatchKind+" 3") {
			mismatch++
			if r.Level != Info || r.Verdict != Noted {
				t.Errorf("%s: %s %s, want INFO noted", r.Case, r.Level, r.Verdict)
			}
		}
	}
	if mismatch != 1 {
		t.Errorf("%d version mismatch cases, want 1", mismatch)
	}
}
