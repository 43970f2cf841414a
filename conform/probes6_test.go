package conform

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

// findPrefix is the first result whose case starts with prefix.
func findPrefix(rep *Report, prefix string) *Result {
	for i := range rep.Results {
		if strings.HasPrefix(rep.Results[i].Case, prefix) {
			return &rep.Results[i]
		}
	}
	return nil
}

// An agent whose turns end at once for the checker's cancel prompt leaves
// the cancel unexercised (a warning); --cancel-prompt gives a prompt it
// works on until cancelled, and the case runs and passes.
func TestCancelPromptOption(t *testing.T) {
	argv := []string{buildCmd(t, "./conform/testdata/brokenagent"), "-hold-word=slow"}
	rep := checkOpts(t, "", Options{Argv: argv, Categories: []string{"cancel"}})
	if res := find(rep, "session/cancel ends the turn"); res == nil || res.Verdict != Warn {
		t.Errorf("default prompt: %+v, want a warning (not exercised)", res)
	}
	rep = checkOpts(t, "", Options{Argv: argv, Categories: []string{"cancel"}, CancelPrompt: "conformance check: please be slow"})
	if res := find(rep, "session/cancel ends the turn"); res == nil || res.Verdict != Pass {
		t.Errorf("--cancel-prompt: %+v, want a pass", res)
	}
}

// session/resume without a replay asked for replays nothing (SHOULD): on
// v1 the broken agent's -resume passes and -resume-replays fails; on v2
// examples/agent passes and v2filter's -replay-always, which asks it for a
// replay the checker did not, fails. Neither fails a MUST case.
func TestResumeWithoutReplay(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, c := range []struct {
		channel, name string
		argv          []string
		want          Verdict
	}{
		{"", "session/resume without replay replays nothing", []string{bin, "-resume"}, Pass},
		{"", "session/resume without replay replays nothing", []string{bin, "-resume-replays"}, Fail},
		{"v2", "v2 session/resume without replayFrom replays nothing", []string{agent}, Pass},
		{"v2", "v2 session/resume without replayFrom replays nothing", []string{filter, "-replay-always", agent}, Fail},
	} {
		rep := checkChannel(t, c.channel, c.argv, "order")
		res := find(rep, c.name)
		if res == nil || res.Verdict != c.want || res.Level != Should {
			t.Errorf("%s %v: %+v, want %s", c.channel, c.argv[1:], res, c.want)
		}
		if rep.Failed() {
			t.Errorf("%s %v: MUST failures %v", c.channel, c.argv[1:], mustFailures(rep))
		}
	}
}

// The authMethods an agent lists have distinct ids (SHOULD: the schema's
// "Unique identifier for this authentication method").
func TestAuthMethodIDsDistinct(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	for _, c := range []struct {
		argv []string
		want Verdict
	}{{[]string{bin, "-auth"}, Pass}, {[]string{bin, "-auth", "-duplicate-auth-ids"}, Fail}} {
		rep := checkArgs(t, c.argv, "initialize")
		if res := find(rep, "authMethods have distinct ids"); res == nil || res.Verdict != c.want || res.Level != Should {
			t.Errorf("%v: %+v, want %s", c.argv[1:], res, c.want)
		}
	}
}

// session/list with a cwd no session has answers an empty list (SHOULD:
// "Filter sessions by working directory"): examples/agent filters, the
// broken agent's -rfd lists every session whatever the filter.
func TestListFilterMatchingNothing(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want Verdict
	}{
		{[]string{buildCmd(t, "./examples/agent")}, Pass},
		{[]string{buildCmd(t, "./conform/testdata/brokenagent"), "-rfd"}, Fail},
	} {
		rep := checkArgs(t, c.argv, "methods")
		if res := find(rep, "session/list with a cwd no session has"); res == nil || res.Verdict != c.want || res.Level != Should {
			t.Errorf("%v: %+v, want %s", c.argv[1:], res, c.want)
		}
	}
}

// A client advertising terminal auth sees the agent's terminal methods;
// their env names are unique: SHOULD on v1 (env is an object, RFC 8259),
// MUST on v2 ("Names MUST be unique"). The methods listed to that client
// pass the gates it was granted, and an agent listing none skips the case.
func TestTerminalAuthEnvNames(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, c := range []struct {
		channel string
		argv    []string
		level   Level
		want    Verdict
	}{
		{"", []string{bin, "-terminal-auth"}, Should, Pass},
		{"", []string{bin, "-terminal-auth", "-duplicate-env"}, Should, Fail},
		{"", []string{bin}, Should, Skipped},
		{"v2", []string{filter, "-terminal-auth", agent}, Must, Pass},
		{"v2", []string{filter, "-duplicate-env", agent}, Must, Fail},
	} {
		rep := checkChannel(t, c.channel, c.argv, "initialize", "gates")
		res := findPrefix(rep, "terminal auth methods' env names unique")
		if res == nil || res.Verdict != c.want || res.Level != c.level {
			t.Errorf("%s %v: %+v, want %s at %s", c.channel, c.argv[1:], res, c.want, c.level)
		}
		gates := 0
		for _, r := range rep.Results {
			if r.Category == "gates" && strings.Contains(r.Case, "client advertises") {
				gates++
				if r.Verdict != Pass {
					t.Errorf("%s %v: %s: %s", c.channel, c.argv[1:], r.Case, r.Observed)
				}
			}
		}
		if gates == 0 {
			t.Errorf("%s %v: no gates case of the terminal auth process", c.channel, c.argv[1:])
		}
	}
}

// The logout method gets valid params when the agent advertises it (v1
// agentCapabilities.auth.logout; v2 a non-empty authMethods), after the
// other cases of its process: a valid result passes, an error fails (MUST).
func TestLogoutWhenAdvertised(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, c := range []struct {
		channel, name string
		argv          []string
		want          Verdict
	}{
		{"", "logout valid params", []string{bin, "-logout"}, Pass},
		{"", "logout valid params", []string{bin, "-logout-refused"}, Fail},
		{"", "logout", []string{bin}, Skipped},
		{"v2", "auth/logout valid params", []string{filter, "-logout", agent}, Pass},
	} {
		rep := checkChannel(t, c.channel, c.argv, "methods")
		res := find(rep, c.name)
		if res == nil || res.Verdict != c.want || res.Level != Must {
			t.Errorf("%s %v: %+v, want %s", c.channel, c.argv[1:], res, c.want)
		}
	}
}

// The persistence cases restart the agent, so they run only when asked
// for with Restart: naming their category without it is an error.
func TestPersistenceNeedsRestart(t *testing.T) {
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = CheckAgent(context.Background(), p, Options{Argv: []string{"true"}, Categories: []string{"persistence"}})
	if err == nil || !strings.Contains(err.Error(), "--restart") {
		t.Errorf("err %v, want one naming --restart", err)
	}
}
