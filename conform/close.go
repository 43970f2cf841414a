package conform

import (
	"fmt"
	"time"
)

// Sources of the v2 session/close cases: CloseSessionRequest's description.
const (
	srcV2CloseFinal = "schema v2: CloseSessionRequest (final updates and idle cancelled before the response)"
	srcV2Closed     = "schema v2: CloseSessionRequest (no message for the session after the response)"
)

// closeTurn closes a session while its turn runs: the turn's final updates
// and its idle state_update (stopReason cancelled) come before the close
// response, and nothing of the session after it.
func (r *agentRun) closeTurn(c *proc) {
	m, pm := r.p.Method("session/close"), r.p.Method("session/prompt")
	if m == nil || pm == nil || !r.v2Turn() {
		return
	}
	res := mustCase(kindV2CloseFinal, "", "v2 session/close during a turn: its final updates and idle before the response",
		"state_update idle with stopReason cancelled, and the turn's output, before the close response")
	if cap, gated := r.gated(m); gated {
		res.Verdict, res.Observed = Skipped, "the agent does not advertise "+cap
		r.add(res)
		return
	}
	session, _, err := r.newSession(c)
	var seq, sent int
	if err == nil {
		_, seq, sent, err = r.promptAndHold(c, pm, session, r.o.Timeout, cancelHold,
			func(f *frame) bool { s, ok := stateOf(f, session); return ok && s.State == "running" })
	}
	var f *frame
	if err == nil {
		f, err = c.request(m.Wire, r.fill(m.Params, r.p.example(m.Params.Def), session, ""))
	}
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, f)
		r.add(res)
		return
	}
	time.Sleep(lateGrace)
	res.Verdict, res.Observed = closeOrder(c.since(seq), session, f, sent)
	r.add(res)
	r.afterClose(c, session, f)
}

// closeOrder judges the frames from the prompt on (the close went out at
// frame sent): an idle with stopReason cancelled before the response, and
// no turn output after it. A turn idle before the close warns.
func closeOrder(frames []*frame, session string, resp *frame, sent int) (Verdict, string) {
	var idle *stateUpdate
	late := 0
	for _, f := range frames {
		if s, ok := stateOf(f, session); ok && s.State == "idle" && f.Seq < resp.Seq && idle == nil {
			if f.Seq < sent {
				return Warn, "not exercised: the turn ended (stopReason " + orNone(s.stopReason()) + ") before the close was sent"
			}
			idle = &s
		}
		if turnOutput(f, session) && f.Seq > resp.Seq {
			late++
		}
	}
	switch {
	case idle == nil:
		return Fail, "no idle state_update before the close response"
	case idle.stopReason() != "cancelled":
		return Fail, "idle before the response, stopReason " + orNone(idle.stopReason())
	case late > 0:
		return Fail, fmt.Sprintf("idle, stopReason cancelled; %d turn updates after the response", late)
	}
	return Pass, "idle, stopReason cancelled, then the response"
}

// afterClose expects no message naming the closed session after the close
// response.
func (r *agentRun) afterClose(c *proc, session string, resp *frame) {
	res := Result{Category: "cancel", Case: "v2 no message for a session after its close response", Level: Should, kind: kindV2CloseQuiet,
		Source: srcV2Closed, Expected: "no session/update or request naming the closed session"}
	res.Verdict, res.Observed = Pass, "none"
	for _, f := range c.since(resp.Seq + 1) {
		if f.Method != "" && sessionOf(f) == session {
			res.Verdict, res.Observed = Fail, quote(f.Raw)
			break
		}
	}
	r.add(res)
}
