package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpgen/acpgen/generator/ir"
)

// The checker's prompt texts. "wait" makes examples/agent hold the turn
// until it is cancelled; any other agent treats both as ordinary prompts.
const (
	promptText = "conformance check: say hello"
	cancelText = "conformance check: please wait"
)

// sessionParams are valid session/new params: the def's minimal example
// with the checker's temporary folder as cwd.
func (r *agentRun) sessionParams() json.RawMessage {
	m := r.p.Method("session/new")
	if m == nil {
		return nil
	}
	return r.fill(m.Params, r.p.example(m.Params.Def), "", promptText)
}

// fill makes a def's example usable on a live agent, member by member as the
// IR describes them: sessionId becomes a live session, cwd the checker's
// folder, and a required array of ContentBlock one text block.
func (r *agentRun) fill(t *ir.Type, example []byte, session, text string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(example, &obj) != nil || t == nil {
		return example
	}
	for _, f := range t.Fields {
		switch {
		case f.JSON == "sessionId" && session != "":
			obj[f.JSON], _ = json.Marshal(session)
		case f.JSON == "cwd":
			obj[f.JSON], _ = json.Marshal(r.cwd)
		case f.Required && f.Ref != nil && f.Ref.Elem != nil && f.Ref.Elem.Type != nil && f.Ref.Elem.Type.Def == "ContentBlock":
			obj[f.JSON], _ = json.Marshal([]any{map[string]any{"type": "text", "text": text}})
		}
	}
	b, _ := json.Marshal(obj)
	return b
}

// newSession makes a live session, or says why not.
func (r *agentRun) newSession(c *proc) (string, json.RawMessage, error) {
	f, err := c.request("session/new", r.sessionParams())
	if err != nil {
		return "", nil, err
	}
	if f.Error != nil {
		r.refusedBy("session/new", f)
		return "", nil, fmt.Errorf("session/new: %s", describe(f))
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(f.Result, &res) != nil || res.SessionID == "" {
		return "", nil, fmt.Errorf("session/new gave no sessionId")
	}
	return res.SessionID, f.Result, nil
}

// unknownRequests sends requests for methods nobody defines, plain and
// extension (_), which either side must answer -32601.
func (r *results) unknownRequests(request func(string, json.RawMessage) (*frame, error)) {
	for _, k := range []struct {
		method string
		level  Level
		source string
	}{
		{"acpgen/conform_unknown", Must, ""},
		{"_acpgen/conform_unknown", Should, srcExtension},
	} {
		res := Result{Category: "unknown-method", Case: "request " + k.method, Level: k.level, Source: k.source, Expected: "error -32601"}
		if k.level == Must {
			res = mustCase(kindUnknownReq, "", res.Case, res.Expected)
		} else {
			res.kind = kindExtUnknown
		}
		f, err := request(k.method, json.RawMessage(`{}`))
		res.Verdict, res.Observed = codeVerdict(f, err, -32601)
		r.add(res)
	}
}

func (r *agentRun) unknownMethods(c *proc) {
	r.unknownRequests(c.request)
	res := mustCase(kindUnknownNote, "", "notification _acpgen/conform_note", "no reply; the connection keeps working")
	if err := c.ensure(); err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		r.add(res)
		return
	}
	seq := c.seq()
	_ = c.notify("_acpgen/conform_note", json.RawMessage(`{}`))
	// On the same process, not one restarted: an agent the notification
	// killed must not be replaced before the request shows it.
	f, err := c.roundTrip("acpgen/conform_unknown", json.RawMessage(`{}`))
	if err != nil {
		err = c.died(err)
	}
	res.Verdict, res.Observed = Pass, "no reply"
	for _, g := range c.since(seq) {
		// A reply without an id is a reply too (codex-acp 0.16.0 answers
		// unknown notifications so); frames judges its missing id.
		anonymous := g.Bad == "" && g.Method == "" && len(g.ID) == 0 && (g.Result != nil || g.Error != nil)
		if anonymous || g.isResponse() && (string(g.ID) == "null" || f == nil || string(g.ID) != string(f.ID)) {
			res.Verdict, res.Observed = Fail, "replied: "+string(g.Raw)
		}
	}
	if err != nil {
		res.Verdict, res.Observed = Fail, "the next request: "+err.Error()
	}
	r.add(res)
}

func codeVerdict(f *frame, err error, code int) (Verdict, string) {
	switch {
	case err != nil:
		return Fail, err.Error()
	case codeIs(f, code):
		return Pass, describe(f)
	}
	return Fail, describe(f)
}

// methods checks every request method the agent handles and advertises:
// valid params give a result (validated in frames), each mutant -32602.
func (r *agentRun) methods(c *proc) {
	for _, m := range lifecycle(r.p.Model.Methods) {
		if m.Side != "agent" || m.Notification || m.Wire == "initialize" {
			continue
		}
		if cap, ok := r.gated(m); ok {
			r.add(Result{Category: "methods", Case: m.Wire, Level: Must, Source: srcCapability + " " + cap,
				Expected: "not called: the agent does not advertise it", Observed: "-", Verdict: Skipped})
			continue
		}
		if list, ok := advertisedIn[m.Wire]; ok && !capGranted(r.caps, []string{list}) {
			r.add(Result{Category: "methods", Case: m.Wire, Level: Must, Source: srcInit + " " + list,
				Expected: "not called: the agent lists none", Observed: "-", Verdict: Skipped})
			continue
		}
		if t, ok := cancelTargets[m.Wire]; ok && r.p.Protocol >= 2 {
			at, ok := c.cancellable(t)
			if !ok {
				r.add(Result{Category: "methods", Case: m.Wire, Level: Must, Source: t.source,
					Expected: "not sent: nothing the agent sent advertises capabilities.cancel", Observed: "-", Verdict: Skipped})
				continue
			}
			r.method(c, m, &at)
			continue
		}
		r.method(c, m, nil)
	}
}

// advertisedIn names the initialize result member that offers a method
// without a capability. v1's authenticate takes the id of one of the
// authMethods the agent lists, so the checker does not probe it on an agent
// that lists none; v1 states no rule, so this is the checker's choice, not a
// gate (v2 states it: auth/login and auth/logout are gate rows on authMethods).
var advertisedIn = map[string]string{"authenticate": "authMethods"}

// sideEffects are methods whose valid call changes state beyond the
// checker's own sessions (the agent's login): only their mutants are sent.
var sideEffects = map[string]bool{"authenticate": true, "logout": true, "auth/login": true, "auth/logout": true}

// logouts are the methods that end the agent's login: their valid params
// are sent once every other case of their process has run.
var logouts = map[string]bool{"logout": true, "auth/logout": true}

// logout sends the logout methods the agent advertises valid params, last
// on the methods' process (the login they end serves the cases before).
func (r *agentRun) logout(c *proc) {
	r.loggingOut = true
	defer func() { r.loggingOut = false }()
	for _, m := range r.logoutMethods {
		r.method(c, m, nil)
	}
	r.logoutMethods = nil
}

// method checks m; at, when set, is the advertised object m is sent for,
// in its own session.
func (r *agentRun) method(c *proc, m *ir.Method, at *advertisedObject) {
	// Methods outside a session (authenticate, logout) need none: an agent
	// that refuses sessions until login still gets them.
	var session string
	var created json.RawMessage
	var err error
	switch {
	case at != nil:
		session = at.session
	case m.Params.Member("sessionId") != nil || m.Wire == "session/new":
		session, created, err = r.newSession(c)
	}
	if err != nil && m.Wire != "session/new" {
		res := mustCase(kindValidParams, "", m.Wire+" valid params", "a live session to call it on")
		res.Observed, res.Verdict = err.Error(), Fail
		r.add(res)
		return
	}
	valid := r.advertised(m, r.fill(m.Params, r.p.example(m.Params.Def), session, promptText), created)
	if at != nil {
		valid = withRaw(valid, cancelTargets[m.Wire].member, at.id)
	}
	src := srcResultDef
	unimplemented := false
	if why := r.unlisted(c, m, session); why != "" {
		r.add(Result{Category: "methods", Case: m.Wire + " valid params", Level: Must, Source: src,
			Expected: "result valid against " + m.Result.Def, Observed: why, Verdict: Skipped})
		return
	}
	if logouts[m.Wire] && !r.loggingOut {
		r.logoutMethods = append(r.logoutMethods, m) // sent last: see logout
		return
	}
	if sideEffects[m.Wire] && !r.loggingOut {
		r.add(Result{Category: "methods", Case: m.Wire + " valid params", Level: Should, Source: src,
			Expected: "result", Observed: "not sent: changes the agent's login", Verdict: Skipped})
	} else {
		res := mustCase(kindValidParams, "", m.Wire+" valid params", "result valid against "+m.Result.Def)
		if at != nil {
			res.Expected += " (for the advertised " + string(at.id) + ")"
		}
		seq := c.seq()
		f, err := c.request(m.Wire, valid)
		r.refusedBy(m.Wire, f)
		switch {
		case err != nil:
			res.Verdict, res.Observed = Fail, err.Error()
		case codeIs(f, -32601) && r.optional(m, created):
			// Nothing binds the agent to implement it: recorded.
			res = Result{Category: "methods", Case: res.Case, Level: Info, Source: srcOptional,
				Expected: res.Expected + ", or -32601 (an optional method the agent does not advertise)",
				Observed: describe(f) + ": not implemented", Verdict: Noted}
			// The example's ids (modeId, configId, ...) may name nothing
			// this agent has: an error is worth a look, not a failure.
			res.Verdict, res.Observed = Warn, describe(f)
		case f.Error != nil:
			res.Verdict, res.Observed = Fail, describe(f)
		default:
			res.Verdict, res.Observed = Pass, describe(f)
			if vs, _ := r.p.Violations(m.Result.Def, f.Result); len(vs) > 0 {
				res.Verdict, res.Observed = Fail, fmt.Sprintf("/result%s: %s", vs[0].Pointer, vs[0].Reason)
			}
		}
		unimplemented = codeIs(f, -32601)
		r.add(res)
		if t := r.p.Model.Turn; t != nil && m == t.Prompt && f != nil {
			n := len(r.out)
			if f.Error == nil && r.v2Turn() {
				r.promptTurnV2(c, session, f, seq)
			} else {
				r.order(c, caseTurnOrder, Should, session, f, seq)
			}
			r.turnSession(c, session, f, seq)
			r.blockRefusedTurn(c, session, f, seq, n)
		}
		if t := r.p.Model.Turn; t != nil && m == t.Prompt && r.p.Protocol >= 2 {
			r.unsupportedBlock(c, m, valid)
		}
		if t := r.p.Model.Turn; t != nil && m == t.Prompt && f != nil && f.Error == nil {
			r.advertisedImage(c, m, valid)
		}
	}
	r.unimplemented[m.Wire] = unimplemented
}

// mutantPhase sends every method the agent handles and advertises the
// mutants of its valid params, each expected to get -32602. It runs on a
// process of its own, after the valid traffic: what invalid params do to
// the agent (a crash, a value accepted and echoed later) is judged in the
// robustness group, never as a defect of valid traffic.
func (r *agentRun) mutantPhase(c *proc) {
	crashes, sent := len(r.crashes), r.log.mutantsSent()
	defer func() {
		if n := r.log.mutantsSent() - sent; n > 0 && len(r.crashes) == crashes {
			r.add(Result{Category: "robustness", Case: "keeps running after invalid params", Level: Should, Source: srcRPCParams,
				Expected: "an answer to each, and the process still running", Observed: plural(n, "request") + ", no death", Verdict: Pass})
		}
	}()
	for _, m := range lifecycle(r.p.Model.Methods) {
		if m.Side != "agent" || m.Notification || m.Wire == "initialize" || r.isGated(m) {
			continue
		}
		if list, ok := advertisedIn[m.Wire]; ok && !capGranted(r.caps, []string{list}) {
			continue
		}
		if _, ok := cancelTargets[m.Wire]; ok && r.p.Protocol >= 2 {
			// Each mutant names no object, or another than the advertised
			// one: a request the schema forbids sending.
			continue
		}
		r.mutantsOf(c, m)
	}
}

// mutantsOf sends m's mutants, on a live session when m names one. Without
// one (session/new refused), the mutants that make the params invalid
// whatever the session run anyway; the others are blocked.
func (r *agentRun) mutantsOf(c *proc, m *ir.Method) {
	var session string
	var created json.RawMessage
	var noSession error
	if m.Params.Member("sessionId") != nil {
		session, created, noSession = r.newSession(c)
	}
	valid := r.advertised(m, r.fill(m.Params, r.p.example(m.Params.Def), session, promptText), created)
	unimplemented := r.unimplemented[m.Wire]
	live, gen := session, c.gen
	for _, mu := range r.mutants(m.Params, valid) {
		// The schema's required lists bind the sender; JSON-RPC 2.0 names
		// -32602 for invalid params without making a receiver use it.
		res := Result{Category: "methods", Case: fmt.Sprintf("%s %s %s", m.Wire, orRoot(mu.Pointer), mu.Change), Level: Should,
			Source: srcRPCParams, Expected: "error -32602", invalid: true}
		if noSession != nil && namesSession(mu.Pointer) {
			res.Verdict, res.Observed = Blocked, "blocked: no live session to name: "+noSession.Error()
			r.add(res)
			continue
		}
		if c.ensure() == nil && c.gen != gen && session != "" {
			// The agent was restarted: the mutants name a session of
			// the dead one.
			if s, _, err := r.newSession(c); err == nil {
				live, gen = s, c.gen
			}
		}
		c.mutant = res.Case
		f, err := c.request(m.Wire, swapSession(mu.JSON, session, live))
		c.mutant = ""
		res.Verdict, res.Observed = codeVerdict(f, err, -32602)
		if codeIs(f, -32601) && (unimplemented || r.optional(m, created)) {
			// An agent without the method refuses every call alike; an
			// optional method's valid params may not have been sent (no
			// session), and -32601 says the agent lacks it.
			res.Expected, res.Verdict = "error -32602, or -32601 from an agent without the method", Pass
		}
		if mu.Pointer == "" && !structured(mu.JSON) {
			// JSON-RPC 2.0 §4.2: params that are neither object nor array
			// make the request itself invalid, so -32600 is right too.
			res.Expected = "error -32602 or -32600"
			if codeIs(f, -32600) {
				res.Verdict = Pass
			}
		}
		r.add(res)
	}
}

// namesSession reports whether a mutant at ptr keeps the params' sessionId:
// only then does the agent need a live session to judge the rest.
func namesSession(ptr string) bool {
	return ptr != "" && ptr != "/sessionId"
}

// baselineMethods are the v1 methods every agent handles (spec: agents MUST
// support them); v2 gates its session methods on capabilities.session.
var baselineMethods = map[string]bool{"session/new": true, "session/prompt": true}

// optional reports whether m is a method the agent need not implement: not
// baseline, gated by no capability (a gated one is called only when
// advertised), and not advertised by the session's state (the modes
// session/set_mode picks from, the options session/set_config_option sets).
func (r *agentRun) optional(m *ir.Method, created json.RawMessage) bool {
	if baselineMethods[m.Wire] || r.p.Protocol >= 2 && m.Wire == "session/prompt" {
		return false
	}
	for _, g := range r.log.gates.gates {
		if g.Method == m && g.Row.Path == "" && !g.Row.Result && g.Cap.InResult {
			return false
		}
	}
	var state struct {
		Modes *struct {
			AvailableModes []json.RawMessage `json:"availableModes"`
		} `json:"modes"`
		ConfigOptions []json.RawMessage `json:"configOptions"`
	}
	_ = json.Unmarshal(created, &state)
	if m.Params.Member("modeId") != nil && state.Modes != nil && len(state.Modes.AvailableModes) > 0 {
		return false
	}
	return m.Params.Member("configId") == nil || len(state.ConfigOptions) == 0
}

// unlisted says why session/delete is not sent for session, "" when it is:
// the schema deletes "an existing session from session/list", so the
// checker deletes only a session that session/list returned.
func (r *agentRun) unlisted(c *proc, m *ir.Method, session string) string {
	if m.Wire != "session/delete" {
		return ""
	}
	list := r.p.Method("session/list")
	if list == nil || r.isGated(list) {
		return "not sent: the agent does not advertise session/list, which names the sessions session/delete deletes"
	}
	f, err := c.request(list.Wire, r.fill(list.Params, r.p.example(list.Params.Def), session, ""))
	if err != nil || f.Error != nil {
		return "not sent: session/list, which names the sessions session/delete deletes, gave " + errOr(err, f)
	}
	var res struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	_ = json.Unmarshal(f.Result, &res)
	for _, s := range res.Sessions {
		if s.SessionID == session {
			return ""
		}
	}
	return fmt.Sprintf("not sent: session/list did not return session %q (session/delete deletes an existing session from session/list)", session)
}

// withRaw sets member of the params object to v.
func withRaw(params json.RawMessage, member string, v json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	obj[member] = v
	b, _ := json.Marshal(obj)
	return b
}

func structured(b []byte) bool {
	b = []byte(strings.TrimSpace(string(b)))
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// stateFree methods need nothing but the checker's own session, so their
// minimal example must succeed.
func stateFree(m *ir.Method) bool {
	for _, f := range m.Params.Fields {
		if f.Required && f.JSON != "sessionId" && f.JSON != "cwd" && f.JSON != "mcpServers" && f.JSON != "prompt" {
			return false
		}
	}
	return true
}

func orRoot(p string) string {
	if p == "" {
		return "(params)"
	}
	return p
}

// order checks that no session/update of the session arrives after the
// prompt's response (within a short grace period).
func (r *agentRun) order(c *proc, name string, level Level, session string, resp *frame, seq int) {
	res := Result{Category: "order", Case: name, Level: level, Source: srcPromptTurn, kind: kindTurnOrder,
		Expected: "every update of the turn's own output (message, thought, tool call, plan) before the response"}
	if level == Must { // the cancelled turn's: after a cancel the spec's MUST
		res = mustCase(kindCancelOrder, "", name, res.Expected)
	}
	if !endsInResponse(r.p.Model.Turn) {
		res.Verdict, res.Observed = Skipped, noTurnEnd
		r.add(res)
		return
	}
	time.Sleep(200 * time.Millisecond)
	late := 0
	for _, f := range c.since(resp.Seq + 1) {
		if turnOutput(f, session) {
			late++
		}
	}
	before := 0
	for _, f := range c.since(seq) {
		if f.Seq < resp.Seq && turnOutput(f, session) {
			before++
		}
	}
	res.Observed = fmt.Sprintf("%d updates before, %d after", before, late)
	res.Verdict = Pass
	if late > 0 {
		res.Verdict = Fail
	}
	r.add(res)
}

func sessionOf(f *frame) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(f.Params, &p)
	return p.SessionID
}

// endsInResponse reports whether the prompt turn ends with the prompt's
// response carrying the stop reason (v1). A v2 turn runs on after the
// response and ends with a state update, which the checker does not follow.
func endsInResponse(t *ir.Turn) bool { return t != nil && t.StopReason != nil }

// v2Turn reports whether the profile's turn ends with v2's idle state
// update: a prompt response without a stop reason, and session/cancel.
func (r *agentRun) v2Turn() bool {
	return r.p.Protocol >= 2 && !endsInResponse(r.p.Model.Turn) && r.p.Method("session/prompt") != nil && r.p.Method("session/cancel") != nil
}

const noTurnEnd = "not checked: this profile's prompt response does not end the turn (v2 ends it with a state update)"

// cancelGrace is how long the checker waits after a turn's first update
// before cancelling, so that a turn which ends at once is seen to end first.
const cancelGrace = 20 * time.Millisecond

// cancelSettle is how soon after the cancel a non-cancelled answer counts as
// one that crossed it: a turn still running past it ignored the cancel.
const cancelSettle = 500 * time.Millisecond

// cancel starts a turn, cancels it, and expects stopReason cancelled; a turn
// that answered before the cancel was sent only warns (nothing to cancel).
func (r *agentRun) cancel(c *proc) {
	t := r.p.Model.Turn
	if t == nil {
		return
	}
	res := mustCase(kindCancelEnds, "", "session/cancel ends the turn", "prompt response with stopReason cancelled")
	if r.skipWithheld(&res, "session/new", t.Prompt.Wire, "session/cancel") {
		return
	}
	if !t.Cancellable() && r.v2Turn() {
		r.cancelV2(c)
		return
	}
	if !t.Cancellable() {
		res.Verdict, res.Observed = Skipped, noTurnEnd
		r.add(res)
		return
	}
	pm, cm := t.Prompt, t.Cancel
	session, _, err := r.newSession(c)
	if err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		r.add(res)
		return
	}
	// Let the turn start before cancelling it, and a turn that ends at once
	// end: a response before the cancel leaves nothing to cancel.
	id, seq, sent, err := r.promptThenCancel(c, pm, cm, session, 100*time.Millisecond, cancelGrace,
		func(f *frame) bool { return f.Method == "session/update" })
	cancelled := time.Now()
	var f *frame
	if err == nil {
		f, err = c.response(r.ctx, r.o.Timeout, seq, id)
	}
	// A response read soon after the cancel went out may have been written
	// before the agent read the cancel (on a loaded machine, lines wait in
	// the pipe): its stopReason proves nothing either way.
	crossed := time.Since(cancelled) < cancelSettle
	var out struct {
		StopReason string `json:"stopReason"`
	}
	switch {
	case err != nil:
		res.Verdict, res.Observed = Fail, err.Error()
	case f.Error != nil:
		r.refusedBy(pm.Wire, f)
		res.Verdict, res.Observed = Fail, describe(f)
	case f.Seq < sent && json.Unmarshal(f.Result, &out) == nil:
		res.Verdict, res.Observed = Warn, "not exercised: the turn ended (stopReason "+out.StopReason+") before the cancel was sent; a prompt the agent works on longer (--cancel-prompt) would test it"
	case crossed && json.Unmarshal(f.Result, &out) == nil && out.StopReason != "cancelled":
		res.Verdict, res.Observed = Warn, "not exercised: the turn ended (stopReason "+out.StopReason+") as the cancel was sent; a prompt the agent works on longer (--cancel-prompt) would test it"
	case json.Unmarshal(f.Result, &out) != nil || out.StopReason != "cancelled":
		res.Verdict, res.Observed = Fail, "stopReason "+out.StopReason
	default:
		res.Verdict, res.Observed = Pass, "stopReason cancelled"
	}
	r.add(res)
	if f != nil {
		r.order(c, "cancelled prompt's response follows its session/update", Must, session, f, seq)
	}
}

// malformed sends lines that are not valid JSON-RPC requests.
func (r *agentRun) malformed(c *proc) {
	for _, k := range []struct {
		name, line string
		code       int
		id         string // the id an answer may carry
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":900,"method":"session/new","params":{`, -32700, ""},
		{"not JSON", `conformance check: not json`, -32700, ""},
		{"request without method", `{"jsonrpc":"2.0","id":901}`, -32600, "901"},
		// Valid params, so that -32602 cannot stand for them: only the
		// version makes the request invalid.
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":902,"method":"session/new","params":` + string(orEmpty(r.sessionParams())) + `}`, -32600, "902"},
	} {
		// ACP adopts JSON-RPC 2.0 but says nothing of lines that are not
		// messages; JSON-RPC 2.0 names the codes, implementations differ.
		res := Result{Category: "malformed", Case: k.name, Level: Should, Source: srcRPCError,
			Expected: fmt.Sprintf("error %d", k.code), invalid: true}
		if err := c.ensure(); err != nil {
			res.Verdict, res.Observed = Fail, err.Error()
			r.add(res)
			continue
		}
		seq := c.seq()
		if k.id != "" {
			r.log.expect(c.tag, k.id, "")
		}
		_ = c.write([]byte(k.line))
		ctx, stop := context.WithTimeout(r.ctx, r.o.Timeout)
		// Any response counts, one without an id too: frames judges ids.
		f := c.wait(ctx, seq, func(f *frame) bool { return f.Bad == "" && f.Method == "" })
		stop()
		res.Verdict, res.Observed = codeVerdict(f, nil, k.code)
		if f == nil {
			res.Verdict, res.Observed = Fail, c.died(errors.New("no response")).Error()
		}
		r.add(res)
	}
	res := Result{Category: "malformed", Case: "connection survives malformed lines", Level: Should, Source: srcRPCReply,
		Expected: "error -32601 for the next unknown request"}
	f, err := c.request("acpgen/conform_unknown", json.RawMessage(`{}`))
	res.Verdict, res.Observed = codeVerdict(f, err, -32601)
	r.add(res)
}

func orEmpty(params json.RawMessage) json.RawMessage {
	if params == nil {
		return json.RawMessage(`{}`)
	}
	return params
}

// cancelPrompt is the text of the turns the checker cancels: --cancel-prompt,
// else cancelText.
func (r *agentRun) cancelPrompt() string {
	if r.o.CancelPrompt != "" {
		return r.o.CancelPrompt
	}
	return cancelText
}

// promptThenCancel starts a turn that lasts until cancelled (cancelText)
// with promptAndHold, then sends the cancel.
func (r *agentRun) promptThenCancel(c *proc, pm, cm *ir.Method, session string, wait, hold time.Duration, started func(*frame) bool) (id string, seq, sent int, err error) {
	id, seq, sent, err = r.promptAndHold(c, pm, session, wait, hold, started)
	if err != nil {
		return id, seq, sent, err
	}
	return id, seq, sent, c.notify(cm.Wire, r.fill(cm.Params, r.p.example(cm.Params.Def), session, ""))
}

// promptAndHold starts a turn that lasts until cancelled (cancelText),
// waits up to wait for started to see it begin, and holds for hold. seq is
// the frame count before the prompt, sent the count once held (0 if the
// prompt could not be sent): what the caller sends next goes out then.
func (r *agentRun) promptAndHold(c *proc, pm *ir.Method, session string, wait, hold time.Duration, started func(*frame) bool) (id string, seq, sent int, err error) {
	seq = c.seq()
	id, err = c.sendLogged(pm.Wire, r.fill(pm.Params, r.p.example(pm.Params.Def), session, r.cancelPrompt()),
		func(id string) { c.run.log.expect(c.tag, id, pm.Wire) })
	if err != nil {
		return id, seq, 0, err
	}
	ctx, stop := context.WithTimeout(r.ctx, wait)
	c.wait(ctx, seq, started)
	stop()
	time.Sleep(hold)
	return id, seq, c.seq(), nil
}
