package conform

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// verdicts maps category/case to verdict; frames cases lose their line
// counts, which differ between runs.
func verdicts(rep *Report) map[string]Verdict {
	count := regexp.MustCompile(` \(\d+\)$`)
	out := map[string]Verdict{}
	for _, r := range rep.Results {
		out[r.Category+"/"+count.ReplaceAllString(r.Case, "")] = r.Verdict
	}
	return out
}

// changed lists the cases whose verdict differs between two runs; a case
// only got has is listed unless it passes.
func changed(base, got map[string]Verdict) []string {
	var out []string
	for k, v := range got {
		if _, ok := base[k]; !ok && v == Pass {
			continue
		}
		if base[k] != v {
			out = append(out, k+": "+string(base[k])+" -> "+string(v))
		}
	}
	for k, v := range base {
		if _, ok := got[k]; !ok {
			out = append(out, k+": "+string(v)+" -> (not run)")
		}
	}
	slices.Sort(out)
	return out
}

// every category but exit, which the broken agent fails after a full timeout.
var noExit = slices.DeleteFunc(slices.Clone(Categories), func(c string) bool { return c == "exit" || c == "persistence" })

// An agent that crashes on params that are not an object (as the official
// test kit's agents do) fails those cases only, at their level: it is
// restarted after each, every other case (later methods, later categories)
// has the verdict it has without the crash, each death is a robustness
// case at the level of the invalid params that caused it (SHOULD), so the
// run fails no MUST case, and the report names each case that killed it,
// how it exited and its last stderr line.
func TestCrashOnInvalidParamsIsRobustness(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	base := verdicts(checkArgs(t, []string{bin}, noExit...))
	rep := checkArgs(t, []string{bin, "-crash-on-nonobject-params"}, noExit...)
	var killers []string
	for _, r := range rep.Results {
		if r.Category == "methods" && r.Expected == "error -32602 or -32600" {
			killers = append(killers, "methods/"+r.Case)
			if r.Verdict != Fail || r.Level != Should || !strings.Contains(r.Observed, "the agent exited (exit status 2); stderr: panic: params is not an object") {
				t.Errorf("%s: %s %s, observed %s", r.Case, r.Level, r.Verdict, r.Observed)
			}
		}
	}
	if len(killers) < 3 {
		t.Fatalf("%d cases with params that are not an object, want one per implemented method", len(killers))
	}
	if rep.Failed() {
		t.Errorf("a crash on invalid params failed a MUST case: %v", mustFailures(rep))
	}
	got := verdicts(rep)
	for _, k := range killers {
		delete(got, k)
		delete(base, k)
		// Each death is a robustness case at the killing case's level.
		_, name, _ := strings.Cut(k, "/")
		robust := "robustness/keeps running after invalid params: " + name
		if res := find(rep, "keeps running after invalid params: "+name); got[robust] != Fail || res == nil || res.Level != Should {
			t.Errorf("%s: robustness case %s %v, want a SHOULD fail", k, got[robust], res)
		}
		delete(got, robust)
	}
	// The summary that no invalid params killed the agent gives way to
	// the cases above.
	delete(base, "robustness/keeps running after invalid params")
	if diff := changed(base, got); len(diff) > 0 {
		t.Errorf("cases changed by the crashes:\n%s", strings.Join(diff, "\n"))
	}
	if got["cancel/session/cancel ends the turn"] != Pass || got["malformed/connection survives malformed lines"] != Pass {
		t.Errorf("later categories: cancel %s, malformed %s", got["cancel/session/cancel ends the turn"], got["malformed/connection survives malformed lines"])
	}
	var named []string
	for _, k := range rep.Crashes {
		named = append(named, k.Category+"/"+k.Case)
		if k.Exit != "exit status 2" || !strings.HasPrefix(k.Stderr, "panic: params is not an object") {
			t.Errorf("crash on %s: exit %q, stderr %q", k.Case, k.Exit, k.Stderr)
		}
	}
	if !slices.Equal(named, killers) {
		t.Errorf("crashes named %q, want %q", named, killers)
	}
	var b strings.Builder
	first := rep.Crashes[0]
	if err := rep.WriteTable(&b); err != nil || !strings.Contains(b.String(), "agent died on methods case \""+first.Case+"\": exit status 2; stderr: panic:") {
		t.Errorf("table does not name the crash: %v", err)
	}
}

// Each mode of the broken agent breaks one rule: against the same agent
// without it, where the rule's case passes, exactly that case changes, to
// fail.
func TestBrokenAgentModes(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	bases := map[string]map[string]Verdict{}
	for _, m := range []struct {
		base, flag, want string
	}{
		{"", "-string-ids", "frames/response ids"},
		{"", "-parse-error-id", "frames/response ids"},
		{"", "-parse-error-without-id", "frames/response ids"},
		{"", "-result-and-error", "frames/responses result or error"},
		{"", "-bad-utf8", "frames/lines in UTF-8"},
		{"", "-duplicate-sessions", "methods/session/new gives a new sessionId each time"},
		{"", "-foreign-session-update", "order/session/prompt updates name the turn's session"},
		{"-modes", "-partial-config-options", "methods/session/set_config_option answers every option"},
		{"-image", "-image-refused", "methods/session/prompt with an image block (advertised promptCapabilities.image)"},
		{"-rfd", "-load-answer-first", "order/session/load replays the history before its response"},
		{"-rfd", "-replay-user-only", "order/session/load replays the entire conversation"},
		{"-keyed", "-orphan-tool-update", "frames/tool_call_update names an id its session's tool_call introduced"},
		{"-keyed", "-chunk-id-returns", "frames/" + chunkCase},
	} {
		t.Run(m.flag, func(t *testing.T) {
			args := []string{bin}
			if m.base != "" {
				args = append(args, m.base)
			}
			if bases[m.base] == nil {
				bases[m.base] = verdicts(checkArgs(t, args, noExit...))
			}
			base := maps(bases[m.base])
			if base[m.want] != Pass {
				t.Errorf("%s without %s: %q, want pass", m.want, m.flag, base[m.want])
			}
			got := verdicts(checkArgs(t, append(args, m.flag), noExit...))
			if got[m.want] != Fail {
				t.Errorf("%s: %s, want fail", m.want, got[m.want])
			}
			delete(got, m.want)
			delete(base, m.want)
			if m.flag == "-load-answer-first" {
				// The runtimeContext case reads the replay sent before
				// the response; answered first, there is none to read.
				delete(got, "rfd/session/prompt /runtimeContext stays out of session/load replay")
				delete(base, "rfd/session/prompt /runtimeContext stays out of session/load replay")
				// Nothing replayed before the response: nothing of the
				// conversation either.
				delete(got, "order/session/load replays the entire conversation")
				delete(base, "order/session/load replays the entire conversation")
			}
			if diff := changed(base, got); len(diff) > 0 {
				t.Errorf("other cases changed:\n%s", strings.Join(diff, "\n"))
			}
		})
	}
}

func maps(m map[string]Verdict) map[string]Verdict {
	out := make(map[string]Verdict, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// An agent that refuses sessions until login and crashes on params that are
// not an object is logged in again after each restart: with --auth-method
// no case is blocked, and only the crashing cases differ from the same
// agent without the crash.
func TestCrashRestartAuthenticates(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	run := func(argv ...string) *Report {
		return checkOpts(t, "", Options{Argv: argv, Categories: []string{"methods", "order", "cancel"}, AuthMethod: "conform-key"})
	}
	base := verdicts(run(bin, "-auth"))
	rep := run(bin, "-auth", "-crash-on-nonobject-params")
	if len(rep.Crashes) == 0 {
		t.Fatal("no crash recorded")
	}
	got := verdicts(rep)
	for _, k := range rep.Crashes {
		delete(got, k.Category+"/"+k.Case)
		delete(base, k.Category+"/"+k.Case)
		delete(got, "robustness/keeps running after invalid params: "+k.Case)
	}
	delete(base, "robustness/keeps running after invalid params")
	if diff := changed(base, got); len(diff) > 0 {
		t.Errorf("cases changed by the crashes:\n%s", strings.Join(diff, "\n"))
	}
	if rep.Blocked() || rep.Hint != "" {
		t.Errorf("Blocked() %v, hint %q after restarts", rep.Blocked(), rep.Hint)
	}
}
