package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Options configure a run.
type Options struct {
	Argv       []string
	Timeout    time.Duration // per case
	Categories []string      // empty: every category
	// MutantsPerMethod bounds the invalid params sent per method beyond the
	// dropped required members.
	MutantsPerMethod int
	// Overlays is OverlaysStrict to judge the rules the profile's overlays
	// add; otherwise they are informational.
	Overlays string
	// AuthMethod, when set, is the id the checker authenticates with right
	// after initialize (v1 authenticate, v2 auth/login).
	AuthMethod string
	// Robustness is RobustnessMust to judge what the agent does after
	// invalid input (a crash, frames echoing an accepted invalid value) at
	// MUST; otherwise at the level of the case that sent the input.
	Robustness string
	// CancelPrompt is the text of the prompts the checker cancels (or
	// closes the session of) while their turn runs; empty: one that holds
	// examples/agent's turn. An agent whose turns end at once needs a
	// prompt it works on longer for those cases to be exercised.
	CancelPrompt string
	// Restart runs the persistence cases: the agent's command is stopped
	// and started again between a recorded turn and the load (v1) or
	// resume (v2) whose replay is compared with the turn.
	Restart bool
}

// RobustnessMust judges the robustness group at MUST: an agent that dies on
// invalid params, or echoes an invalid value it accepted, fails the run.
const RobustnessMust = "must"

// Categories lists the agent checks in the order they run.
var Categories = []string{"before-initialize", "initialize", "unknown-method", "methods", "order", "cancel", "malformed", "batch", "rfd", "persistence", "robustness", "exit", "frames", "gates"}

// robustnessOf are the categories whose invalid input the robustness group
// follows: it is reported whenever one of them runs.
var robustnessOf = []string{"methods", "malformed"}

// agentRun is one check of an agent: the profile, the options, the log of
// every frame, and the results so far.
type agentRun struct {
	p   *Profile
	o   Options
	log *frameLog
	results
	cwd    string
	procs  int
	caps   json.RawMessage // the agent's initialize result
	ctx    context.Context
	params json.RawMessage // the checker's initialize params
	auth   authState
	// unimplemented holds the methods whose valid params got -32601.
	unimplemented map[string]bool
	// logoutMethods are the advertised logout methods, sent by logout;
	// loggingOut is set while it sends them.
	logoutMethods []*ir.Method
	loggingOut    bool
}

// CheckAgent starts the agent (once per group of cases) and checks it.
func CheckAgent(ctx context.Context, p *Profile, o Options) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MutantsPerMethod <= 0 {
		o.MutantsPerMethod = 6
	}
	for _, c := range o.Categories {
		if !contains(Categories, c) {
			return nil, fmt.Errorf("--category %q: not one of %s", c, strings.Join(Categories, ", "))
		}
	}
	if contains(o.Categories, "persistence") && !o.Restart {
		return nil, fmt.Errorf("--category persistence: its cases run only with --restart")
	}
	cwd, err := os.MkdirTemp("", "acpgen-conform-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cwd)
	r := &agentRun{p: p, o: o, log: newFrameLog(p), results: results{categories: o.Categories, robustMust: o.Robustness == RobustnessMust}, cwd: cwd, ctx: ctx, unimplemented: map[string]bool{}}
	r.log.robustMust = r.robustMust
	r.params = r.initParams(p.Protocol)
	r.log.gates.grant(r.params)
	r.log.gates.overlay = func(id string) (Level, string) { return r.overlayLevel(), r.overlaySource(id) }
	if r.wants("before-initialize") || r.wants("initialize") {
		if err := r.fresh(r.beforeInit); err != nil {
			return nil, err
		}
	}
	if r.wants("initialize") && p.Protocol >= 2 {
		if err := r.fresh(r.oldVersion); err != nil {
			return nil, err
		}
	}
	if params, _ := r.terminalAuthGrant(); params != nil && r.wants("initialize") {
		if err := r.fresh(r.terminalAuth); err != nil {
			return nil, err
		}
	}
	if r.wants("initialize", "unknown-method", "methods", "order", "cancel", "malformed", "batch", "rfd", "persistence", "robustness", "frames", "gates") {
		if err := r.fresh(r.handshake); err != nil {
			return nil, err
		}
		if err := r.categories(); err != nil {
			return nil, err
		}
	}
	if r.wants("exit") {
		if err := r.fresh(r.exit); err != nil {
			return nil, err
		}
	}
	if r.wants("frames", "gates", "robustness") {
		for _, res := range r.log.results() {
			if r.wants(res.Category) {
				r.out = append(r.out, r.judge(res))
			}
		}
	}
	name := p.Source + " (" + p.Channel + ")"
	for _, ov := range p.Overlays {
		name += " + " + ov.ID
	}
	return &Report{Profile: name, Command: o.Argv, Results: r.out, Crashes: r.crashes, Hint: r.hint()}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// results collects the results of the selected categories, for either side.
type results struct {
	categories []string // empty: every category
	out        []Result
	// pending is a peer's death not yet tied to a case: the next result
	// is the case that killed it.
	pending *Crash
	crashes []Crash
	// robustMust judges the robustness group at MUST (RobustnessMust).
	robustMust bool
}

func (r *results) wants(cats ...string) bool {
	if len(r.categories) == 0 {
		return true
	}
	for _, c := range cats {
		if contains(r.categories, c) {
			return true
		}
		if c == "robustness" {
			for _, of := range robustnessOf {
				if contains(r.categories, of) {
					return true
				}
			}
		}
	}
	return false
}

func (r *results) add(res Result) {
	crash := r.pending
	r.pending = nil
	if r.wants(res.Category) {
		r.out = append(r.out, res)
	}
	if crash == nil {
		return
	}
	// A death after invalid input is the robustness group's, reported
	// whenever that group is, even when the input's own case is not.
	robust := res.Category != "exit" && (res.invalid || crash.after != "")
	if robust && !r.wants("robustness") || !robust && !r.wants(res.Category) {
		return
	}
	crash.Category, crash.Case = res.Category, res.Case
	r.crashes = append(r.crashes, *crash)
	switch {
	case res.Category == "exit": // there, exiting is what is asked
	case robust:
		r.out = append(r.out, r.robustCrash(*crash, res))
	default:
		r.out = append(r.out, survives(*crash))
	}
}

// survives is the MUST case a death on valid traffic fails, whatever the
// level of the case that caused it: a peer that exits answers none of the
// requests it holds or is sent later.
func survives(k Crash) Result {
	res := mustCase(kindKeepsRunning, k.Category, "keeps running after: "+k.Case, "an answer, and the process still running")
	res.Observed, res.Verdict = crashObserved(k), Fail
	return res
}

func crashObserved(k Crash) string {
	obs := "exited (" + k.Exit + ")"
	if k.Stderr != "" {
		obs += "; stderr: " + k.Stderr
	}
	return obs
}

// robustCrash is the robustness case of a death after invalid input: on
// the input itself (cause, a mutant or a malformed line), or later on a
// process that had accepted invalid params (k.after). It is judged at the
// level of the case that sent the input, or at MUST with RobustnessMust.
func (r *results) robustCrash(k Crash, cause Result) Result {
	name := "keeps running after a malformed line: " + cause.Case
	switch {
	case k.after != "" && k.after != cause.Case:
		name = "keeps running after accepting invalid params: " + k.after
	case cause.Category == "methods":
		name = "keeps running after invalid params: " + cause.Case
	}
	res := Result{Category: "robustness", Case: name, Level: cause.Level, Source: cause.Source,
		Expected: "an answer, and the process still running"}
	if r.robustMust {
		res = mustCase(kindKeepsRunning, "robustness", name, res.Expected)
	}
	res.Observed, res.Verdict = crashObserved(k), Fail
	return res
}

// fresh runs fn on a newly started agent and kills its process group after.
func (r *agentRun) fresh(fn func(*proc)) error {
	r.procs++
	tag := fmt.Sprint(r.procs)
	pe, err := start(r.o.Argv, func(f *frame) { r.log.see(tag, f) }, r.answer)
	if err != nil {
		return err
	}
	c := &proc{peer: pe, tag: tag, run: r}
	defer func() { r.settle(c); c.peer.kill() }()
	fn(c)
	return nil
}

// settle judges, before a live agent is stopped, whether it answered every
// request it was sent, waiting up to the timeout for answers still owed. A
// dead agent's unanswered requests are its death's, judged with it.
func (r *agentRun) settle(c *proc) {
	if c.dying() {
		return
	}
	if len(r.log.unanswered(c.tag)) > 0 {
		ctx, stop := context.WithTimeout(r.ctx, r.o.Timeout)
		c.wait(ctx, c.seq(), func(*frame) bool { return len(r.log.unanswered(c.tag)) == 0 })
		stop()
	}
	if c.dying() {
		return
	}
	for _, name := range r.log.settled(c.tag) {
		res := Result{Category: "robustness", Case: "answers invalid params: " + name, Level: Should, Source: srcRPCParams,
			Expected: "a response (any result or error)"}
		if r.robustMust {
			res = mustCase(kindAnswered, "", res.Case, res.Expected)
			res.Category = "robustness"
		}
		res.Observed, res.Verdict = "never answered", Fail
		r.add(res)
	}
}

// answer replies to the agent's requests: a permission request is
// cancelled (the checker grants nothing), anything else is not available.
func (r *agentRun) answer(f *frame) (any, *rpcError) {
	if f.Method == "session/request_permission" {
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, nil
	}
	code, msg := -32601, "method not found"
	return nil, &rpcError{Code: &code, Message: &msg}
}

// proc is one started agent, restarted after a crash when restart is set.
type proc struct {
	*peer
	tag string
	run *agentRun
	restart
	// mutant names the invalid-params case the next request sends ("" for
	// valid traffic).
	mutant string
}

// request sends a request, logging its method for result validation. On a
// dead agent it restarts it first (see ensure); when the agent dies on this
// request the error says how it exited.
func (c *proc) request(method string, params json.RawMessage) (*frame, error) {
	if err := c.ensure(); err != nil {
		return nil, err
	}
	f, err := c.roundTrip(method, params)
	if err != nil {
		err = c.died(err)
	}
	return f, err
}

// initParams are the checker's initialize params: the def's minimal example
// (which grants no capability) asking for version.
func (r *agentRun) initParams(version int) json.RawMessage {
	params := map[string]any{}
	_ = json.Unmarshal(r.p.example("InitializeRequest"), &params)
	params["protocolVersion"] = version
	b, _ := json.Marshal(params)
	return b
}

func (r *agentRun) beforeInit(c *proc) {
	c.restart.on = true // each case on an agent that has not crashed
	m := r.p.Method("session/new")
	if m != nil {
		// The spec's MUST binds the client (initialize first); what an agent
		// answers to a client breaking it is the agent's choice.
		res := Result{Category: "before-initialize", Case: "session/new before initialize", Level: Info,
			Source: srcInit + " (binds the client)", Expected: "error response (-32600)"}
		f, err := c.request("session/new", r.sessionParams())
		switch {
		case err != nil:
			res.Observed, res.Verdict = err.Error(), Fail
		case f.Error != nil && codeIs(f, -32600):
			res.Observed, res.Verdict = describe(f), Pass
		case f.Error != nil:
			res.Observed, res.Verdict = describe(f), Warn
		default:
			res.Observed, res.Verdict = "a result: "+describe(f), Fail
		}
		r.add(res)
	}
	// MUST as the spec words it (answer the latest version supported). The
	// probe carries info, which v2's initialize requires, so that routers
	// (runtime/router, the TypeScript SDK's), which hand every version from
	// 2 up to a v2 agent, get params that agent accepts.
	res := mustCase(kindNegotiates, "", "protocolVersion 65535 (unsupported) negotiates down",
		"result with the latest version the agent supports (< 65535)")
	f, err := c.request("initialize", withInfo(r.initParams(65535)))
	res.Verdict, res.Observed = versionVerdict(f, err, func(v int) bool { return v >= 1 && v < 65535 })
	r.add(res)
}

// withInfo gives initialize params the info member v2 requires, when they
// lack one.
func withInfo(params json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil || obj["info"] != nil {
		return params
	}
	obj["info"] = json.RawMessage(`{"name":"acpgen-conform","version":"1"}`)
	b, _ := json.Marshal(obj)
	return b
}

// oldVersion asks a v2 profile's agent for protocol version 1: it answers
// 1 when it still speaks it, else the latest version it supports; an error
// breaks version negotiation.
func (r *agentRun) oldVersion(c *proc) {
	res := mustCase(kindNegotiates, "", "protocolVersion 1 (older) is answered with a version",
		"result with protocolVersion 1, or the latest version the agent supports")
	f, err := c.request("initialize", r.initParams(1))
	res.Verdict, res.Observed = versionVerdict(f, err, func(v int) bool { return v >= 1 })
	r.add(res)
}

func versionVerdict(f *frame, err error, ok func(int) bool) (Verdict, string) {
	if err != nil {
		return Fail, err.Error()
	}
	if f.Error != nil {
		return Fail, describe(f)
	}
	var res struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	if json.Unmarshal(f.Result, &res) != nil || res.ProtocolVersion == nil {
		return Fail, "no protocolVersion in the result"
	}
	if !ok(*res.ProtocolVersion) {
		return Fail, fmt.Sprintf("protocolVersion %d", *res.ProtocolVersion)
	}
	return Pass, fmt.Sprintf("protocolVersion %d", *res.ProtocolVersion)
}

// handshake initializes the agent at the profile's protocol version (the
// version case), keeps what it advertised and authenticates.
func (r *agentRun) handshake(c *proc) {
	res := mustCase(kindVersion, "", fmt.Sprintf("protocolVersion %d is answered with %d", r.p.Protocol, r.p.Protocol),
		fmt.Sprintf("result with protocolVersion %d, valid InitializeResponse (see frames)", r.p.Protocol))
	f, err := c.request("initialize", r.params)
	res.Verdict, res.Observed = versionVerdict(f, err, func(v int) bool { return v == r.p.Protocol })
	r.add(res)
	if res.Verdict != Pass {
		cats := []string{"unknown-method", "methods", "order", "cancel", "malformed", "batch"}
		if len(r.p.Overlays) > 0 {
			cats = append(cats, "rfd")
		}
		for _, cat := range cats {
			all := mustCase(kindInitialized, cat, "(all)", "an initialized connection")
			all.Observed, all.Verdict = "not run: initialize gave "+res.Observed, Fail
			r.add(all)
		}
		return
	}
	r.caps = f.Result
	r.authMethodIDs()
	r.authenticate(c)
}

func (r *agentRun) exit(c *proc) {
	// ACP's stdio transport says nothing of the end of input: recorded.
	res := Result{Category: "exit", Case: "exits when stdin closes", Level: Info,
		Source: srcStdio + " (silent)", Expected: fmt.Sprintf("process exits within %s", r.o.Timeout)}
	f, err := c.request("initialize", r.params)
	switch {
	case err != nil || f.Error != nil || f.Result == nil:
		// Exiting before initialize says nothing about the end of input.
		res.Observed, res.Verdict = "not checked: initialize got no result: "+errOr(err, f), Fail
		c.closeStdin(r.o.Timeout)
	case c.closeStdin(r.o.Timeout):
		res.Observed, res.Verdict = "exited", Pass
	default:
		res.Observed, res.Verdict = "still running (process group killed)", Fail
	}
	r.add(res)
}

func codeIs(f *frame, code int) bool {
	return f != nil && f.Error != nil && f.Error.Code != nil && *f.Error.Code == code
}

// describe summarises a response for the observed column.
func describe(f *frame) string {
	if f == nil {
		return "no response"
	}
	if f.Error != nil {
		code := "no code"
		if f.Error.Code != nil {
			code = fmt.Sprint(*f.Error.Code)
		}
		msg := ""
		if f.Error.Message != nil {
			msg = " " + *f.Error.Message
		}
		return "error " + code + msg
	}
	s := string(f.Result)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "result " + s
}

// gated reports whether the agent withheld the capability that gates m.
func (r *agentRun) gated(m *ir.Method) (string, bool) { return r.withheld(m, "") }

// skipWithheld records res as skipped when the agent withheld the
// capability of one of the methods its probe sends, and reports whether it
// did.
func (r *agentRun) skipWithheld(res *Result, methods ...string) bool {
	for _, w := range methods {
		if m := r.p.Method(w); m != nil {
			if cap, ok := r.gated(m); ok {
				res.Verdict, res.Observed = Skipped, "not sent: the agent does not advertise "+cap
				r.add(*res)
				return true
			}
		}
	}
	return false
}

func (r *agentRun) isGated(m *ir.Method) bool { _, ok := r.gated(m); return ok }

// withheld returns the agent capability, not granted, that gates path in
// m's params ("" is the method itself).
func (r *agentRun) withheld(m *ir.Method, path string) (string, bool) {
	for _, g := range r.log.gates.gates {
		if g.Method == m && g.Row.Path == path && !g.Row.Result && g.Cap.InResult && !capGranted(r.caps, g.Cap.Tokens) {
			return g.Cap.Path, true
		}
	}
	return "", false
}

// mutants returns invalid versions of valid params: every member dropped
// that the schema requires, then up to n others spread over the rest.
func (r *agentRun) mutants(t *ir.Type, valid json.RawMessage) []corpus.Mutant {
	var dropped, other []corpus.Mutant
	for _, m := range corpus.Mutations(valid) {
		if ok, err := r.p.ref.Valid(t.Def, m.JSON); err != nil || ok || lenient(t, m) {
			continue
		}
		if m.Change == "dropped" {
			dropped = append(dropped, m)
		} else {
			other = append(other, m)
		}
	}
	n := r.o.MutantsPerMethod
	if len(other) > n {
		picked := make([]corpus.Mutant, 0, n)
		for i := 0; i < n; i++ {
			picked = append(picked, other[i*len(other)/n])
		}
		other = picked
	}
	return append(dropped, other...)
}

// lenient reports whether the schema lets a receiver accept the mutant
// anyway: its x-deserialize hints default a member on null or on any bad
// value, as the official SDKs do.
func lenient(t *ir.Type, m corpus.Mutant) bool {
	f := fieldAt(t, m.Pointer)
	if f == nil {
		return false
	}
	return f.DefaultOnError || (f.DefaultOnNull && m.Change == "replaced by null")
}

// fieldAt resolves a JSON pointer into t's members, through named types and
// array items; nil where it meets anything else (a union, a map).
func fieldAt(t *ir.Type, ptr string) *ir.Field {
	var f *ir.Field
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	if ptr == "" {
		return nil
	}
	var ref *ir.Ref
	for _, tok := range toks {
		if ref != nil && ref.Kind == ir.Array {
			ref = ref.Elem
			continue
		}
		if ref != nil {
			if ref.Kind != ir.Named || ref.Type == nil {
				return nil
			}
			t = ref.Type
		}
		if f = t.Member(jsonpointer.Unescape(tok)); f == nil {
			return nil
		}
		ref = f.Ref
	}
	return f
}
