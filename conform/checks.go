package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Checks on sessions and on every response the peer writes, beyond the
// schema's shapes.

// historyKind reports whether a session/update kind is a turn's own output
// or a replayed turn's (the user's message chunks included).
func historyKind(kind string) bool {
	return turnKinds[kind] || kind == "user_message_chunk"
}

// updateKind is a session/update's sessionUpdate discriminator.
func updateKind(f *frame) string {
	var p struct {
		Update struct {
			Kind string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(f.Params, &p)
	return p.Update.Kind
}

// The prompt turn's cases in the order category.
const (
	caseTurnOrder   = "session/prompt response follows its session/update"
	caseTurnSession = "session/prompt updates name the turn's session"
)

// turnSession checks that the turn output sent while a prompt ran names the
// prompt's session.
func (r *agentRun) turnSession(c *proc, session string, resp *frame, seq int) {
	res := Result{Category: "order", Case: caseTurnSession, Level: Should, kind: kindTurnSession,
		Source:   srcUpdateSession,
		Expected: "every turn update of the prompt with its sessionId"}
	n, other := 0, ""
	for _, f := range c.since(seq) {
		if f.Seq > resp.Seq || f.Method != "session/update" || !historyKind(updateKind(f)) {
			continue
		}
		n++
		if s := sessionOf(f); s != session && other == "" {
			other = s
		}
	}
	res.Verdict, res.Observed = Pass, plural(n, "update")+", all naming it"
	if other != "" {
		res.Verdict, res.Observed = Fail, fmt.Sprintf("an update naming session %q during a turn of %q", other, session)
	}
	r.add(res)
}

// sessionChecks runs the session cases of the methods category: two
// session/new calls give two session ids, and session/set_config_option
// answers with every option the session has.
func (r *agentRun) sessionChecks(c *proc) {
	if r.p.Method("session/new") == nil || !r.wants("methods") {
		return
	}
	res := mustCase(kindSessionIDs, "", "session/new gives a new sessionId each time", "two distinct sessionIds")
	if r.skipWithheld(&res, "session/new") {
		return
	}
	a, created, errA := r.newSession(c)
	b, _, errB := r.newSession(c)
	switch {
	case errA != nil || errB != nil:
		res.Verdict, res.Observed = Fail, errOr(firstErr(errA, errB), nil)
	case a == b:
		res.Verdict, res.Observed = Fail, fmt.Sprintf("sessionId %q twice", a)
	default:
		res.Verdict, res.Observed = Pass, fmt.Sprintf("%q, %q", a, b)
	}
	r.add(res)
	if errA == nil {
		r.configOptions(c, a, created)
	}
	r.emptyListFilter(c)
}

const srcListFilter = "schema: ListSessionsRequest cwd (\"Filter sessions by working directory\")"

// emptyListFilter lists the sessions of a folder no session has: an empty
// list, neither an error nor sessions of other folders.
func (r *agentRun) emptyListFilter(c *proc) {
	list := r.p.Method("session/list")
	if list == nil || r.isGated(list) || list.Params.Member("cwd") == nil {
		return
	}
	res := shouldCase(kindListEmpty, "session/list with a cwd no session has", "", "result with no sessions")
	dir := filepath.Join(r.cwd, "no-sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Verdict, res.Observed = Fail, "not sent: "+err.Error()
		r.add(res)
		return
	}
	cwd, _ := json.Marshal(dir)
	f, err := c.request(list.Wire, withRaw(r.fill(list.Params, r.p.example(list.Params.Def), "", ""), "cwd", cwd))
	var out struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	switch {
	case err != nil || f.Error != nil:
		res.Verdict, res.Observed = Fail, errOr(err, f)
	case json.Unmarshal(f.Result, &out) != nil || len(out.Sessions) > 0:
		res.Verdict, res.Observed = Fail, plural(len(out.Sessions), "session")+" listed"
	default:
		res.Verdict, res.Observed = Pass, "no sessions"
	}
	r.add(res)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// configOption is what the checker reads of a SessionConfigOption: its id,
// v1's id or v2's configId.
type configOption struct {
	ID       string `json:"id"`
	ConfigID string `json:"configId"`
}

func (o configOption) key() string { return o.ID + o.ConfigID }

// missingOptions lists the ids of listed that got lacks.
func missingOptions(listed, got []configOption) []string {
	have := map[string]bool{}
	for _, o := range got {
		have[o.key()] = true
	}
	var missing []string
	for _, o := range listed {
		if !have[o.key()] {
			missing = append(missing, o.key())
		}
	}
	return missing
}

// configOptions sets the session's first advertised option to its current
// value and expects the answer to list every option of the session.
func (r *agentRun) configOptions(c *proc, session string, created json.RawMessage) {
	m := r.p.Method("session/set_config_option")
	if m == nil {
		return
	}
	res := Result{Category: "methods", Case: "session/set_config_option answers every option", Level: Should, kind: kindConfigSet,
		Source:   srcConfigSet,
		Expected: "configOptions with every option id session/new listed"}
	var listed struct {
		ConfigOptions []configOption `json:"configOptions"`
	}
	_ = json.Unmarshal(created, &listed)
	if len(listed.ConfigOptions) == 0 {
		res.Verdict, res.Observed = Skipped, "not checked: session/new listed no configOptions"
		r.add(res)
		return
	}
	// The valid-params probe's params: the first option, set to its
	// current value.
	f, err := c.request(m.Wire, r.advertised(m, r.fill(m.Params, r.p.example(m.Params.Def), session, ""), created))
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, f)
		r.add(res)
		return
	}
	var got struct {
		ConfigOptions []configOption `json:"configOptions"`
	}
	_ = json.Unmarshal(f.Result, &got)
	missing := missingOptions(listed.ConfigOptions, got.ConfigOptions)
	res.Verdict, res.Observed = Pass, fmt.Sprintf("%d of %d options", len(got.ConfigOptions), len(listed.ConfigOptions))
	if len(missing) > 0 {
		res.Verdict, res.Observed = Fail, "missing "+strings.Join(missing, ", ")
	}
	r.add(res)
}

// loadReplay gives a session history (one prompt), loads it, and expects
// the replay of that history before the session/load response.
func (r *agentRun) loadReplay(c *proc) {
	load, pm := r.p.Method(replayMethod), r.p.Method("session/prompt")
	if load == nil || pm == nil || !endsInResponse(r.p.Model.Turn) {
		return
	}
	res := mustCase(kindLoadReplay, "", "session/load replays the history before its response",
		"the prompt's history as session/update before the response")
	if cap, gated := r.gated(load); gated {
		res.Verdict, res.Observed = Skipped, "the agent does not advertise "+cap
		r.add(res)
		return
	}
	entire := mustCase(kindLoadEntire, "", "session/load replays the entire conversation",
		"the prompt and the agent's messages of the turn replayed before the response")
	session, _, err := r.newSession(c)
	turnSeq := c.seq()
	var f *frame
	if err == nil {
		f, err = c.request(pm.Wire, r.fill(pm.Params, r.p.example(pm.Params.Def), session, promptText))
		r.refusedBy(pm.Wire, f)
	}
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, "no history to load: "+errOr(err, f)
		r.add(res)
		return
	}
	time.Sleep(lateGrace) // the turn's late output is part of it
	turn := conversation(c.since(turnSeq), session)
	seq := c.seq()
	f, err = c.request(load.Wire, r.fill(load.Params, r.p.example(load.Params.Def), session, ""))
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, f)
		r.add(res)
		return
	}
	defer func() {
		entire.Verdict, entire.Observed = replayCovers(turn, replayedBefore(c.since(seq), session, f), promptText)
		r.add(entire)
	}()
	before, after := 0, 0
	for _, u := range c.since(seq) {
		if u.Method != "session/update" || sessionOf(u) != session || !historyKind(updateKind(u)) {
			continue
		}
		if u.Seq < f.Seq {
			before++
		} else {
			after++
		}
	}
	res.Observed = plural(before, "update") + " replayed before the response"
	if after > 0 {
		res.Observed += fmt.Sprintf(", %d after it", after)
	}
	res.Verdict = Pass
	if before == 0 {
		res.Verdict = Fail
	}
	r.add(res)
}

// frameRules are the frames cases on every response, by kind: what they
// expect (frameKind names the rule they rest on).
var frameRules = map[string]string{
	"lines in UTF-8":            "every line valid UTF-8",
	"response ids":              "an id on every response: the number of a request the checker sent and that has no answer yet, null only on an error (always on a parse error)",
	"responses result or error": "exactly one of result and error",
	"requests answered":         "a response (any result or error) to every request the checker sent, by the time the process ends",
}

// responseChecks judges the bytes and envelope of one line: UTF-8, and for
// a response its id and its result or error. The checker's requests all
// carry number ids.
func (l *frameLog) responseChecks(proc string, f *frame) {
	if utf8.Valid(f.Raw) {
		l.add("lines in UTF-8", "")
	} else {
		l.add("lines in UTF-8", "", "invalid UTF-8: "+quote(f.Raw))
	}
	if f.Bad != "" || f.Method != "" {
		return
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(f.Raw, &env) != nil {
		return
	}
	id, hasID := env["id"]
	_, hasResult := env["result"]
	_, hasError := env["error"]
	probs := idProblems(id, hasID, hasError, f)
	if hasID && string(bytes.TrimSpace(id)) != "null" {
		// Matched even when its type is wrong ("7" for 7), as the cases
		// take it for the answer; its problem is the type's.
		if unmatched := l.matchID(proc, f); len(probs) == 0 {
			probs = unmatched
		}
	}
	l.add("response ids", "", probs...)
	switch {
	case hasResult && hasError:
		l.add("responses result or error", "", "both: "+quote(f.Raw))
	case !hasResult && !hasError:
		l.add("responses result or error", "", "neither: "+quote(f.Raw))
	default:
		l.add("responses result or error", "")
	}
}

func idProblems(id json.RawMessage, hasID, hasError bool, f *frame) []string {
	id = bytes.TrimSpace(id)
	switch {
	case !hasID:
		return []string{"no id: " + quote(f.Raw)}
	case string(id) == "null" && !hasError:
		return []string{"a result with id null: " + quote(f.Raw)}
	case codeIs(f, -32700) && string(id) != "null":
		return []string{"a parse error with id " + string(id) + " (JSON-RPC: null): " + quote(f.Raw)}
	case string(id) != "null" && !isNumber(id):
		return []string{"id " + string(id) + " is not a number, as the request's was: " + quote(f.Raw)}
	}
	return nil
}

// matchID ties a response to the request of its id (JSON-RPC 2.0 §5: the
// same id as the request's): one the checker sent on this connection and
// that no earlier response answered.
func (l *frameLog) matchID(proc string, f *frame) []string {
	key := proc + "#" + strings.Trim(string(bytes.TrimSpace(f.ID)), `"`)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, sent := l.sent[key]; !sent {
		return []string{"id " + string(f.ID) + " matches no request the checker sent: " + quote(f.Raw)}
	}
	if l.answeredIDs[key] {
		return []string{"id " + string(f.ID) + " answered a second time: " + quote(f.Raw)}
	}
	l.answeredIDs[key] = true
	return nil
}

func isNumber(b []byte) bool {
	var n json.Number
	return len(b) > 0 && b[0] != '"' && json.Unmarshal(b, &n) == nil
}

// quote shows a line in a report: valid UTF-8, at most 120 bytes.
func quote(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), 120)]), "\ufffd")
	return fmt.Sprintf("%q", s)
}
