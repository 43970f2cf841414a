package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Sources of the v2 turn cases: the v2 schema's descriptions.
const (
	srcV2State  = "schema v2: StateUpdate (running, then idle when the work ends)"
	srcV2Stop   = "schema v2: IdleStateUpdate stopReason"
	srcV2Idle   = "schema v2: StateUpdate (idle: no foreground work)"
	srcV2Cancel = "schema v2: CancelSessionNotification"
	srcV2Echo   = "schema v2: PromptResponse messageId (the user-message update carries it)"
)

// cancelHold is how long a v2 turn runs before the checker cancels it. A
// turn still running after it and ending after the cancel went out ended
// through the cancel, so its stop reason must say so.
const cancelHold = 300 * time.Millisecond

// lateGrace is how long the checker watches for a turn's output after the
// update that ended the turn.
const lateGrace = 200 * time.Millisecond

// stateUpdate is a v2 state_update's state and stop reason.
type stateUpdate struct {
	State      string          `json:"state"`
	StopReason json.RawMessage `json:"stopReason"`
}

// stateOf returns the state update f carries for session, if any.
func stateOf(f *frame, session string) (stateUpdate, bool) {
	if f.Method != "session/update" || sessionOf(f) != session {
		return stateUpdate{}, false
	}
	var p struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			stateUpdate
		} `json:"update"`
	}
	if json.Unmarshal(f.Params, &p) != nil || p.Update.SessionUpdate != "state_update" {
		return stateUpdate{}, false
	}
	return p.Update.stateUpdate, true
}

// stopReason is the idle update's stop reason, "" when it reports none
// (omitted, null or not a string count alike, as the schema says).
func (s stateUpdate) stopReason() string {
	var v string
	_ = json.Unmarshal(s.StopReason, &v)
	return v
}

// turnV2 is what the checker saw of one v2 turn.
type turnV2 struct {
	running, idle *frame
	state         stateUpdate // the idle update's
	early         int         // turn output before running
	during        int         // turn output between running and idle
}

// followTurn waits for the idle update that ends the session's turn started
// after seq: the first idle after a running one, or after the prompt's
// response (after, an idle reports the turn's end, not the new session's
// default state). isResp tells the prompt's response.
func (r *agentRun) followTurn(c *proc, session string, seq int, isResp func(*frame) bool) turnV2 {
	var t turnV2
	ctx, stop := context.WithTimeout(r.ctx, r.o.Timeout)
	defer stop()
	answered := false
	t.idle = c.wait(ctx, seq, func(f *frame) bool {
		if isResp(f) {
			answered = true
		}
		s, ok := stateOf(f, session)
		switch {
		case !ok:
			return false
		case s.State == "running" && t.running == nil:
			t.running = f
		case s.State == "idle":
			if t.running != nil || answered {
				t.state = s
				return true
			}
		}
		return false
	})
	for _, f := range c.since(seq) {
		if t.idle != nil && f.Seq >= t.idle.Seq {
			break
		}
		if turnOutput(f, session) {
			if t.running == nil || f.Seq < t.running.Seq {
				t.early++
			} else {
				t.during++
			}
		}
	}
	return t
}

// late counts the session's turn output after the frame that ended the
// turn, once a grace period has passed.
func (r *agentRun) late(c *proc, session string, end *frame) int {
	time.Sleep(lateGrace)
	n := 0
	for _, f := range c.since(end.Seq + 1) {
		if turnOutput(f, session) {
			n++
		}
	}
	return n
}

// promptTurnV2 checks the turn a v2 prompt started (resp is its response):
// running, the output, idle with a stop reason, nothing of the turn after.
func (r *agentRun) promptTurnV2(c *proc, session string, resp *frame, seq int) {
	t := r.followTurn(c, session, seq, func(f *frame) bool { return f == resp })
	res := mustCase(kindV2Turn, "", "v2 prompt turn: running, its output, then idle",
		"state_update running before the turn's output, state_update idle after it")
	switch {
	case t.idle == nil:
		res.Verdict, res.Observed = Fail, fmt.Sprintf("no idle state_update within %s (running seen: %t)", r.o.Timeout, t.running != nil)
	case t.running == nil:
		res.Verdict, res.Observed = Fail, "idle without a running state_update before it"
	case t.early > 0:
		res.Verdict, res.Observed = Fail, fmt.Sprintf("%d output updates before running", t.early)
	default:
		res.Verdict, res.Observed = Pass, fmt.Sprintf("running, %d output updates, idle", t.during)
	}
	r.add(res)
	if t.idle == nil {
		return
	}
	stop := Result{Category: "order", Case: "v2 prompt turn's idle carries a stopReason", Level: Should, Source: srcV2Stop, kind: kindV2IdleStop,
		Expected: "idle with a stopReason", Verdict: Pass, Observed: "stopReason " + t.state.stopReason()}
	if t.state.stopReason() == "" {
		stop.Verdict, stop.Observed = Fail, "idle without a stopReason"
	}
	r.add(stop)
	r.userEcho(c, session, resp, seq, t.idle)
	after := Result{Category: "order", Case: "v2 prompt turn: none of its output after idle", Level: Should, Source: srcV2Idle, kind: kindV2AfterIdle,
		Expected: "no message, thought, tool or plan update of the session after its idle state_update"}
	n := r.late(c, session, t.idle)
	after.Verdict, after.Observed = Pass, "none"
	if n > 0 {
		after.Verdict, after.Observed = Fail, fmt.Sprintf("%d after idle", n)
	}
	r.add(after)
}

// userEcho expects a user message update of the session, before the turn's
// idle, with the messageId the prompt's response carries.
func (r *agentRun) userEcho(c *proc, session string, resp *frame, seq int, idle *frame) {
	var out struct {
		MessageID string `json:"messageId"`
	}
	_ = json.Unmarshal(resp.Result, &out)
	res := Result{Category: "order", Case: "v2 prompt's user message update carries the response's messageId", Level: Should, kind: kindV2UserMessageID,
		Source: srcV2Echo, Expected: "a user_message or user_message_chunk update with messageId " + out.MessageID}
	res.Verdict, res.Observed = Fail, "none of the turn's user message updates has it"
	for _, f := range c.since(seq) {
		if f.Seq < idle.Seq && sessionOf(f) == session && messageKey(f) == "user:"+out.MessageID {
			res.Verdict, res.Observed = Pass, "user message "+out.MessageID
			break
		}
	}
	r.add(res)
}

// cancelV2 starts a turn that holds until cancelled, cancels it, and
// expects the idle state update with stopReason cancelled, with the turn's
// updates before it.
func (r *agentRun) cancelV2(c *proc) {
	res := mustCase(kindV2CancelEnds, "", "v2 session/cancel ends the turn: idle with stopReason cancelled",
		"state_update idle with stopReason cancelled")
	pm, cm := r.p.Method("session/prompt"), r.p.Method("session/cancel")
	session, _, err := r.newSession(c)
	if err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		r.add(res)
		return
	}
	// Let the turn start (v2: running) and run a while before cancelling
	// it: a turn that ends on its own ends before the cancel.
	id, seq, sent, err := r.promptThenCancel(c, pm, cm, session, r.o.Timeout, cancelHold,
		func(f *frame) bool { s, ok := stateOf(f, session); return ok && s.State == "running" })
	if err != nil {
		res.Verdict, res.Observed = Fail, c.died(err).Error()
		r.add(res)
		return
	}
	t := r.followTurn(c, session, seq, func(f *frame) bool { return f.isResponse() && idIs(f.ID, id) })
	reason := t.state.stopReason()
	switch {
	case t.idle == nil:
		res.Verdict, res.Observed = Fail, fmt.Sprintf("no idle state_update within %s of the cancel", r.o.Timeout)
	case reason == "cancelled":
		res.Verdict, res.Observed = Pass, "idle, stopReason cancelled"
	case t.idle.Seq < sent:
		res.Verdict, res.Observed = Warn, "not exercised: the turn ended (stopReason "+reason+") before the cancel was sent; a prompt the agent works on longer (--cancel-prompt) would test it"
	default:
		res.Verdict, res.Observed = Fail, "idle, stopReason "+orNone(reason)
	}
	r.add(res)
	if t.idle == nil {
		return
	}
	after := mustCase(kindV2CancelOrder, "", "v2 cancelled turn's updates precede its idle",
		"no message, thought, tool or plan update of the session after the idle that reports cancellation")
	n := r.late(c, session, t.idle)
	after.Verdict, after.Observed = Pass, "none"
	if n > 0 {
		after.Verdict, after.Observed = Fail, fmt.Sprintf("%d after idle", n)
	}
	r.add(after)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
