package conform

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/internal/pinned"
)

// build compiles a command of this module into the test's temp folder.
func buildCmd(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = pinned.Root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

func check(t *testing.T, bin string, cats ...string) *Report {
	t.Helper()
	return checkArgs(t, []string{bin}, cats...)
}

func checkArgs(t *testing.T, argv []string, cats ...string) *Report {
	t.Helper()
	return checkChannel(t, "", argv, cats...)
}

func checkChannel(t *testing.T, channel string, argv []string, cats ...string) *Report {
	t.Helper()
	return checkOpts(t, channel, Options{Argv: argv, Categories: cats})
}

// checkOpts runs the agent checker with o on the repository's profile of
// channel ("" is its default).
func checkOpts(t *testing.T, channel string, o Options) *Report {
	t.Helper()
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: channel})
	if err != nil {
		t.Fatal(err)
	}
	o.Timeout = 3 * time.Second
	rep, err := CheckAgent(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestExampleAgentPasses(t *testing.T) {
	rep := check(t, buildCmd(t, "./examples/agent"))
	seen := map[string]bool{}
	var warned, noted []string
	rfd := 0
	for _, r := range rep.Results {
		seen[r.Category] = true
		if r.Category == "rfd" && r.Verdict == Pass {
			rfd++
		}
		if r.Verdict == Warn {
			warned = append(warned, r.Case)
		}
		if r.Verdict == Noted && r.Level == Info {
			noted = append(noted, r.Case)
		}
		if r.Verdict == Fail {
			t.Errorf("%s: %s: expected %s, observed %s", r.Category, r.Case, r.Expected, r.Observed)
		}
	}
	for _, c := range Categories {
		if !seen[c] && c != "persistence" { // persistence runs with --restart only
			t.Errorf("no case of category %s", c)
		}
	}
	if n := rep.Counts(); rep.Failed() || n[Blocked] > 0 || len(warned) > 0 {
		t.Errorf("Failed() %v, %d blocked, warnings %q", rep.Failed(), n[Blocked], warned)
	}
	// The two optional methods the agent does not implement, and nothing
	// advertises, are recorded, not judged.
	want := "session/set_mode valid params|session/set_config_option valid params"
	if got := strings.Join(noted, "|"); got != want || rep.Counts()[Noted] != 2 {
		t.Errorf("noted %s, want %s", got, want)
	}
	// session/new, session/load and session/list with two members and two
	// rules each, the runtimeContext replay and the session/list filter.
	if rfd != 14 {
		t.Errorf("%d rfd cases pass, want 14", rfd)
	}
	if n := rep.Counts()[Pass]; n < 60 {
		t.Errorf("%d passing cases, want at least 60", n)
	}
}

// On the v2 channel examples/agent (its v2 side, through the router) fails
// nothing: its turns report running, output, then idle with a stop reason,
// and a cancelled one idle with stopReason cancelled. tool_call/cancel and
// terminal/cancel are not sent (it advertises no cancellable tool call or
// terminal), and set_config_option, which it does not implement and
// nothing advertises, is noted.
func TestExampleAgentPassesV2(t *testing.T) {
	rep := checkChannel(t, "v2", []string{buildCmd(t, "./examples/agent")})
	if !strings.Contains(rep.Profile, "schema.v2.json (v2)") {
		t.Errorf("profile %s", rep.Profile)
	}
	var warned, noted, skipped []string
	for _, r := range rep.Results {
		switch r.Verdict {
		case Fail:
			t.Errorf("%s: %s: expected %s, observed %s", r.Category, r.Case, r.Expected, r.Observed)
		case Warn:
			warned = append(warned, r.Case)
		case Noted:
			noted = append(noted, r.Case)
		case Skipped:
			skipped = append(skipped, r.Category+"/"+r.Case)
		}
	}
	if len(warned) > 0 {
		t.Errorf("warnings %q", warned)
	}
	if got, want := strings.Join(noted, "|"), "session/set_config_option valid params"; got != want {
		t.Errorf("noted %s, want %s", got, want)
	}
	for _, want := range []string{"methods/tool_call/cancel", "methods/terminal/cancel", "methods/auth/login"} {
		if !slices.Contains(skipped, want) {
			t.Errorf("%s not skipped (skipped: %q)", want, skipped)
		}
	}
	for _, want := range v2TurnCases {
		if r := find(rep, want); r == nil || r.Verdict != Pass {
			t.Errorf("%s: %+v, want a pass", want, r)
		}
	}
	if n := rep.Counts()[Pass]; n < 60 {
		t.Errorf("%d passing cases, want at least 60", n)
	}
}

// The broken agent fails exactly the cases its defects target: every
// invalid params case of the methods it implements, apart from params that
// are not structured, which its envelope check refuses (-32603 instead of
// -32602, and a text block without text accepted). Those are SHOULD cases
// (the schema's required lists bind the sender), so no MUST case fails; the
// exit on EOF, on which ACP is silent, is noted.
func TestBrokenAgentFailsItsDefects(t *testing.T) {
	rep := check(t, buildCmd(t, "./conform/testdata/brokenagent"))
	var textless, internal int
	for _, r := range rep.Results {
		implemented := strings.HasPrefix(r.Case, "session/new ") || strings.HasPrefix(r.Case, "session/prompt ") || strings.HasPrefix(r.Case, "authenticate ")
		targeted := r.Category == "methods" && r.Expected == "error -32602" && implemented
		if targeted != (r.Verdict == Fail) {
			t.Errorf("%s: %s: %s (observed %s), targeted by a defect: %v", r.Category, r.Case, r.Verdict, r.Observed, targeted)
		}
		if targeted && (r.Level != Should || r.Source != srcRPCParams) {
			t.Errorf("%s: level %s, source %s; want SHOULD, %s", r.Case, r.Level, r.Source, srcRPCParams)
		}
		if r.Category == "exit" && (r.Verdict != Noted || r.Level != Info) {
			t.Errorf("exit: %s %s, want INFO noted", r.Level, r.Verdict)
		}
		switch {
		case r.Case == "session/prompt /prompt/0/text dropped":
			textless++
			if !strings.HasPrefix(r.Observed, "result") {
				t.Errorf("text block without text: observed %s, want a result", r.Observed)
			}
		case targeted && r.Category == "methods":
			internal++
			if !strings.HasPrefix(r.Observed, "error -32603") {
				t.Errorf("%s: observed %s, want -32603", r.Case, r.Observed)
			}
		}
	}
	if textless != 1 || internal < 10 {
		t.Errorf("%d text-less cases, %d -32603 cases; want 1 and at least 10", textless, internal)
	}
	if rep.Failed() {
		t.Error("Failed() is true: a SHOULD or INFO case counted as a MUST failure")
	}
}

// With -rfd the broken agent advertises what the overlays' rules need and
// breaks each rule. With --overlays strict every rfd case it is given fails
// at MUST, and only the methods it does not advertise (session/resume) are
// skipped; the additional-directories overlay's gates case reports the
// session/list items without additionalDirectories, the base gates pass.
func TestBrokenAgentFailsRFD(t *testing.T) {
	rep := checkOpts(t, "", Options{Argv: []string{buildCmd(t, "./conform/testdata/brokenagent"), "-rfd"}, Categories: []string{"rfd", "gates"}, Overlays: OverlaysStrict})
	var failed []string
	overlayGates := 0
	for _, r := range rep.Results {
		skip := strings.HasPrefix(r.Case, "session/resume ")
		switch {
		case r.Category == "gates" && strings.HasPrefix(r.Source, "overlay: ") && strings.Contains(r.Source, "(draft RFD)"):
			overlayGates++
			want := "agentCapabilities.sessionCapabilities.additionalDirectories advertised, so additionalDirectories is required: session/list at /sessions/"
			if r.Verdict != Fail || r.Level != Must || !strings.HasPrefix(r.Observed, want) {
				t.Errorf("gates: %s %s, observed %s; want a MUST failure starting %s", r.Level, r.Verdict, r.Observed, want)
			}
		case r.Category == "gates":
			if r.Verdict != Pass {
				t.Errorf("gates: %s: %s, observed %s", r.Case, r.Verdict, r.Observed)
			}
		case r.Level != Must || !strings.HasPrefix(r.Source, "overlay: "):
			t.Errorf("%s: level %s, source %s; want MUST under an overlay's name", r.Case, r.Level, r.Source)
		case r.Category != "rfd":
			t.Errorf("%s: %s: not asked for", r.Category, r.Case)
		case skip && r.Verdict != Skipped, !skip && r.Verdict != Fail:
			t.Errorf("%s: %s (observed %s)", r.Case, r.Verdict, r.Observed)
		case r.Verdict == Fail:
			failed = append(failed, r.Case)
		}
	}
	for _, want := range []string{
		"session/new /cwd not an absolute path (relative/path)",
		"session/load /additionalDirectories/0 empty (minLength)",
		"session/list /cwd empty (minLength)",
		"session/prompt /runtimeContext stays out of session/load replay",
		"session/list filters SessionInfo by cwd and additionalDirectories",
	} {
		if !slices.Contains(failed, want) {
			t.Errorf("no failing case %q among %q", want, failed)
		}
	}
	if overlayGates != 1 || !rep.Failed() {
		t.Errorf("%d draft RFD gates cases, Failed() %v; want 1 and true", overlayGates, rep.Failed())
	}
}

// Without --overlays strict the rules the overlays add are informational:
// the same broken agent's rfd and overlay gate cases are noted under the
// overlay's name and status, and no MUST case fails. With BaseOnly the
// profile has no overlay, so no rfd case at all.
func TestOverlayRulesInformational(t *testing.T) {
	bin := buildCmd(t, "./conform/testdata/brokenagent")
	rep := checkArgs(t, []string{bin, "-rfd"}, "rfd", "gates")
	noted := 0
	for _, r := range rep.Results {
		if r.Category == "rfd" || strings.HasPrefix(r.Source, "overlay: ") {
			if r.Level != Info || !strings.HasPrefix(r.Source, "overlay: ") {
				t.Errorf("%s: level %s, source %s; want INFO under an overlay's name", r.Case, r.Level, r.Source)
			}
			if r.Verdict == Noted {
				noted++
			}
		}
		if r.Verdict == Fail {
			t.Errorf("%s: %s failed, observed %s", r.Category, r.Case, r.Observed)
		}
	}
	if noted < 10 || rep.Failed() {
		t.Errorf("%d noted overlay cases, Failed() %v; want at least 10 and false", noted, rep.Failed())
	}
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), BaseOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Overlays) != 0 || len(p.Semantics.Filters) != 0 {
		t.Errorf("base-only profile has %d overlays, %d filters", len(p.Overlays), len(p.Semantics.Filters))
	}
}

func TestCategoryFilter(t *testing.T) {
	rep := check(t, buildCmd(t, "./conform/testdata/brokenagent"), "malformed")
	if len(rep.Results) != 5 {
		t.Errorf("%d results, want the 5 malformed cases", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Category != "malformed" || r.Verdict != Pass {
			t.Errorf("%s: %s: %s", r.Category, r.Case, r.Verdict)
		}
	}
	p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckAgent(context.Background(), p, Options{Argv: []string{"true"}, Categories: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown category: %v", err)
	}
}

// examples/minimal answers a prompt at once: its turn has ended before the
// cancel goes out, which is nothing to cancel, so the case warns and does
// not fail.
func TestTurnEndedBeforeCancelWarns(t *testing.T) {
	rep := check(t, buildCmd(t, "./examples/minimal"), "cancel")
	if len(rep.Results) == 0 {
		t.Fatal("no cancel case")
	}
	for _, r := range rep.Results {
		if r.Case == "session/cancel ends the turn" && (r.Verdict != Warn || !strings.HasPrefix(r.Observed, "not exercised: the turn ended (stopReason end_turn)")) {
			t.Errorf("%s: %s, observed %s", r.Case, r.Verdict, r.Observed)
		}
		if r.Verdict == Fail {
			t.Errorf("%s: %s: fail, observed %s", r.Category, r.Case, r.Observed)
		}
	}
}

// The profile's channel: the configuration's stable one, else its first; a
// channel it does not list comes from its release without overlays.
func TestProfileChannel(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "acpgen.json")
	if err := os.WriteFile(cfg, []byte(`{"schema": {"dir": "schema", "version": "2.4.0"}, "channels": [{"name": "v2", "out": "acp"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ channel, want string }{
		{"", "schema.v2.json (v2)"},
		{"stable", "schema.json (stable)"},
		{"v2-unstable", "schema.v2.unstable.json (v2-unstable)"},
	} {
		p, err := LoadProfile(context.Background(), ProfileOptions{Config: cfg, Channel: c.channel})
		if err != nil {
			t.Fatalf("%q: %v", c.channel, err)
		}
		if got := p.Source + " (" + p.Channel + ")"; !strings.HasSuffix(got, c.want) || len(p.Overlays) != 0 {
			t.Errorf("%q: %s with %d overlays, want %s and none", c.channel, got, len(p.Overlays), c.want)
		}
	}
	if _, err := LoadProfile(context.Background(), ProfileOptions{Config: cfg, Channel: "nope"}); err == nil || !strings.Contains(err.Error(), `--channel "nope"`) {
		t.Errorf("unknown channel: %v", err)
	}
}

// An agent that dies at once: the report says how and what it last wrote on
// stderr, and the JSON form carries the counts and the failure.
func TestDeadAgentIsExplained(t *testing.T) {
	rep := checkArgs(t, []string{"sh", "-c", "echo 'fatal: missing API key' >&2; exit 2"}, "initialize", "exit")
	explained := 0
	for _, r := range rep.Results {
		if want := map[bool]Verdict{true: Noted, false: Fail}[r.Category == "exit"]; r.Verdict != want {
			t.Errorf("%s: %s: %s, want %s", r.Category, r.Case, r.Verdict, want)
		}
		if strings.Contains(r.Observed, "the agent exited (exit status 2); stderr: fatal: missing API key") {
			explained++
		}
	}
	if explained < 2 {
		t.Errorf("%d results explain the exit, want initialize's and exit's: %+v", explained, rep.Results)
	}
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Counts  map[Verdict]int `json:"counts"`
		Failed  bool            `json:"failed"`
		Results []Result        `json:"results"`
	}
	if err := json.Unmarshal([]byte(b.String()), &out); err != nil || !out.Failed || out.Counts[Fail] != len(rep.Results)-1 || len(out.Results) != len(rep.Results) {
		t.Errorf("JSON report: %v %+v", err, out)
	}
}

// A peer that floods its output: every line is judged, at most maxFrames
// are kept.
func TestFloodIsBounded(t *testing.T) {
	var seen atomic.Int64
	p, err := start([]string{"sh", "-c", "yes garbage | head -n 250000; sleep 30"}, func(*frame) { seen.Add(1) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	select {
	case <-p.eof:
		t.Fatal("output ended before the lines were read")
	case <-time.After(20 * time.Second):
		t.Fatal("the lines were not read in 20 s")
	case <-func() chan struct{} {
		done := make(chan struct{})
		go func() {
			for seen.Load() < 250000 {
				time.Sleep(10 * time.Millisecond)
			}
			close(done)
		}()
		return done
	}():
	}
	if n := p.seq(); n != maxFrames {
		t.Errorf("%d lines kept, want %d", n, maxFrames)
	}
}

// v2TurnCases are the v2 prompt turn and cancel cases.
var v2TurnCases = []string{
	"v2 prompt turn: running, its output, then idle",
	"v2 prompt turn's idle carries a stopReason",
	"v2 prompt turn: none of its output after idle",
	"v2 session/cancel ends the turn: idle with stopReason cancelled",
	"v2 cancelled turn's updates precede its idle",
}

func find(rep *Report, name string) *Result {
	for i := range rep.Results {
		if rep.Results[i].Case == name {
			return &rep.Results[i]
		}
	}
	return nil
}

// examples/agent behind v2filter, which alters its v2 turns, fails the v2
// turn case of each defect, and passes the others.
func TestV2TurnDefects(t *testing.T) {
	agent, filter := buildCmd(t, "./examples/agent"), buildCmd(t, "./conform/testdata/v2filter")
	for _, tc := range []struct {
		mode string
		fail []string
	}{
		// No idle: neither the turn nor the cancelled turn ends.
		{"-no-idle", []string{v2TurnCases[0], v2TurnCases[3]}},
		{"-late", []string{v2TurnCases[2], v2TurnCases[4]}},
		{"-cancel-end-turn", []string{v2TurnCases[3]}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			rep := checkChannel(t, "v2", []string{filter, tc.mode, agent}, "order", "cancel")
			for _, name := range v2TurnCases {
				r := find(rep, name)
				want := Pass
				if slices.Contains(tc.fail, name) {
					want = Fail
				}
				switch {
				case r == nil && want == Fail:
					t.Errorf("%s: no result", name)
				case r != nil && r.Verdict != want:
					t.Errorf("%s: %s (%s), want %s", name, r.Verdict, r.Observed, want)
				}
			}
		})
	}
}

// A tool call that advertises capabilities.cancel is the one
// tool_call/cancel is sent for, in its own session; terminal/cancel, with
// no terminal advertised, is still not sent.
func TestV2CancelOnlyWhenAdvertised(t *testing.T) {
	agent, filter := buildCmd(t, "./examples/agent"), buildCmd(t, "./conform/testdata/v2filter")
	rep := checkChannel(t, "v2", []string{filter, "-tool-cancel", agent}, "methods")
	if res := find(rep, "tool_call/cancel valid params"); res == nil || !strings.Contains(res.Expected, `"v2filter-tool"`) || res.Verdict == Skipped {
		t.Errorf("tool_call/cancel: %+v, want it sent for the advertised tool call", res)
	}
	if res := find(rep, "terminal/cancel"); res == nil || res.Verdict != Skipped {
		t.Errorf("terminal/cancel: %+v, want skipped", res)
	}
}

// An agent that advertises no capabilities.session is sent no session
// method: the probes that need one are skipped, and its batch holds no
// session/new.
func TestV2ProbesOnlyWhenAdvertised(t *testing.T) {
	agent, filter := buildCmd(t, "./examples/agent"), buildCmd(t, "./conform/testdata/v2filter")
	rep := checkChannel(t, "v2", []string{filter, "-no-session-caps", agent}, "methods", "order", "cancel", "batch")
	for _, name := range []string{"session/new gives a new sessionId each time", "session/cancel ends the turn",
		"v2 session/resume: replay, then state_update, then the response", "v2 session/close during a turn: its final updates and idle before the response",
		"session/new", "session/prompt"} {
		if r := find(rep, name); r == nil || r.Verdict != Skipped {
			t.Errorf("%s: %+v, want skipped", name, r)
		}
	}
	if r := find(rep, "batch of two requests and a notification"); r == nil || strings.Contains(r.Observed, "result") {
		t.Errorf("batch: %+v, want no session/new in it", r)
	}
	if fails := mustFailures(rep); len(fails) > 0 {
		t.Errorf("MUST failures %v", fails)
	}
}
