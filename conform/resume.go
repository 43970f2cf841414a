package conform

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acpgen/acpgen/generator/ir"
)

// Sources of the v2 session/resume cases: the v2 schema's descriptions.
const (
	srcV2ResumeState = "schema v2: ResumeSessionResponse (a state_update after the replay, before the response)"
	srcV2Cursor      = "schema v2: ReplayFrom (an unsupported cursor: -32602)"
	srcV2ReplayOrder = "schema v2: ResumeSessionRequest replayFrom; PromptResponse messageId (kept when replayed)"
	srcV2MessageIDs  = "schema v2: MessageId (unique per message type in a session)"
)

// messageSpace is the id space of a message update kind (v2: user, agent
// and thought messages each have their own), "" for other kinds.
var messageSpace = map[string]string{
	"user_message": "user", "user_message_chunk": "user",
	"agent_message": "agent", "agent_message_chunk": "agent",
	"agent_thought": "thought", "agent_thought_chunk": "thought",
}

// messageKey is an update's message, "space:messageId", "" when it is not
// a message update with an id.
func messageKey(f *frame) string {
	var p struct {
		Update struct {
			Kind      string `json:"sessionUpdate"`
			MessageID string `json:"messageId"`
		} `json:"update"`
	}
	if f.Method != "session/update" || json.Unmarshal(f.Params, &p) != nil {
		return ""
	}
	space := messageSpace[p.Update.Kind]
	if space == "" || p.Update.MessageID == "" {
		return ""
	}
	return space + ":" + p.Update.MessageID
}

// messages lists the session's messages in frames in the order they first
// appear.
func messages(frames []*frame, session string) []string {
	var out []string
	for _, f := range frames {
		if k := messageKey(f); k != "" && sessionOf(f) == session && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// resumeReplay gives a session two prompts of history, resumes it with
// replayFrom start, and checks the v2 schema's order: the replay, then a
// state_update, then the response; the replay in the session's order.
func (r *agentRun) resumeReplay(c *proc) {
	m := r.p.Method("session/resume")
	if m == nil || m.Params.Member("replayFrom") == nil || !r.v2Turn() {
		return
	}
	res := mustCase(kindV2ResumeState, "", "v2 session/resume: replay, then state_update, then the response",
		"the replayed history, then a state_update of the session, then the response")
	if cap, gated := r.gated(m); gated {
		res.Verdict, res.Observed = Skipped, "the agent does not advertise "+cap
		r.add(res)
		return
	}
	session, _, err := r.newSession(c)
	start := c.seq()
	var ids []string
	for i := 0; i < 2 && err == nil; i++ {
		var id string
		id, err = r.historyTurn(c, session)
		ids = append(ids, id)
	}
	if err != nil {
		res.Verdict, res.Observed = Fail, "no history to resume: "+err.Error()
		r.add(res)
		return
	}
	r.distinctMessages(ids)
	history := messages(c.since(start), session)
	seq := c.seq()
	params := r.fill(m.Params, r.p.example(m.Params.Def), session, "")
	f, err := c.request(m.Wire, withRaw(params, "replayFrom", json.RawMessage(`{"type":"start"}`)))
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, f)
		r.add(res)
		return
	}
	time.Sleep(lateGrace) // replay sent after the response counts against it
	frames := c.since(seq)
	res.Verdict, res.Observed = resumeOrder(frames, session, f)
	r.add(res)
	r.replayOrder(history, messages(frames, session))
	r.unsupportedCursor(c, m, params)
}

// historyTurn runs one prompt on session to its idle and returns the
// messageId its response carries.
func (r *agentRun) historyTurn(c *proc, session string) (string, error) {
	pm := r.p.Method("session/prompt")
	seq := c.seq()
	f, err := c.request(pm.Wire, r.fill(pm.Params, r.p.example(pm.Params.Def), session, promptText))
	if err != nil || f.Error != nil {
		return "", fmt.Errorf("session/prompt: %s", errOr(err, f))
	}
	if t := r.followTurn(c, session, seq, func(g *frame) bool { return g == f }); t.idle == nil {
		return "", fmt.Errorf("the turn reported no idle within %s", r.o.Timeout)
	}
	var out struct {
		MessageID string `json:"messageId"`
	}
	_ = json.Unmarshal(f.Result, &out)
	return out.MessageID, nil
}

// resumeOrder judges the frames after a resume request: the session's last
// state_update before the response comes after every replayed message
// update, and no message update follows the response.
func resumeOrder(frames []*frame, session string, resp *frame) (Verdict, string) {
	state, replayed, late := -1, 0, 0
	lastReplay := -1
	for _, f := range frames {
		if _, ok := stateOf(f, session); ok && f.Seq < resp.Seq {
			state = f.Seq
		}
		if messageKey(f) == "" || sessionOf(f) != session {
			continue
		}
		if f.Seq > resp.Seq {
			late++
		} else {
			replayed++
			lastReplay = f.Seq
		}
	}
	obs := fmt.Sprintf("%s replayed, %d after the response", plural(replayed, "message update"), late)
	switch {
	case state < 0:
		return Fail, obs + "; no state_update before the response"
	case lastReplay > state:
		return Fail, obs + "; replay after the state_update"
	case late > 0:
		return Fail, obs
	}
	return Pass, obs + ", then state_update"
}

// replayOrder expects the replayed messages in the order the session
// produced them; an agent that keeps no history (it need not) warns.
func (r *agentRun) replayOrder(history, replayed []string) {
	res := Result{Category: "order", Case: "v2 session/resume replays the history in the session's order", Level: Should, kind: kindV2ReplayOrder,
		Source: srcV2ReplayOrder, Expected: "the session's messages, with their messageIds, in the order they were sent: " + strings.Join(history, ", ")}
	res.Verdict, res.Observed = Pass, strings.Join(replayed, ", ")
	switch {
	case len(replayed) == 0:
		res.Verdict, res.Observed = Warn, "nothing replayed: the agent keeps no history (it need not), so the order was not seen"
	case !slices.Equal(history, replayed):
		res.Verdict = Fail
	}
	r.add(res)
}

// distinctMessages expects two prompts of one session to insert two user
// messages with two ids.
func (r *agentRun) distinctMessages(ids []string) {
	res := Result{Category: "order", Case: "v2 prompts of one session get distinct messageIds", Level: Should, kind: kindV2DistinctIDs,
		Source: srcV2MessageIDs, Expected: "two distinct messageIds", Verdict: Pass, Observed: strings.Join(ids, ", ")}
	if len(ids) == 2 && (ids[0] == ids[1] || ids[0] == "") {
		res.Verdict = Fail
	}
	r.add(res)
}

// unsupportedCursor resumes with a replay cursor of a type no agent
// supports, which the v2 schema says MUST be refused with -32602.
func (r *agentRun) unsupportedCursor(c *proc, m *ir.Method, params json.RawMessage) {
	res := mustCase(kindV2Cursor, "", "v2 session/resume /replayFrom unsupported cursor type", "error -32602")
	cursor, _ := json.Marshal(map[string]string{"type": unsupportedBlockType})
	f, err := c.request(m.Wire, withRaw(params, "replayFrom", cursor))
	res.Verdict, res.Observed = codeVerdict(f, err, -32602)
	r.add(res)
}

// Sources of the session/resume case without replay: the schema's
// descriptions, plain statements (v1) and a lowercase "should" (v2).
const (
	srcResumeNoReplay   = "schema: session/resume (resumes \"without replaying the message history\")"
	srcV2ResumeNoReplay = "schema v2: ResumeSessionRequest replayFrom (omitted: \"resume without replaying\")"
)

// resumeWithoutReplay gives a session one prompt of history and resumes it
// without asking for a replay (v1 has none to ask for; v2 omits
// replayFrom): no message of the history should come back.
func (r *agentRun) resumeWithoutReplay(c *proc) {
	m, pm := r.p.Method("session/resume"), r.p.Method("session/prompt")
	if m == nil || pm == nil || !endsInResponse(r.p.Model.Turn) && !r.v2Turn() {
		return
	}
	res := shouldCase(kindResumeNoReplay, "session/resume without replay replays nothing", srcResumeNoReplay,
		"no message update of the session before its response, nor just after it")
	if r.p.Protocol >= 2 {
		res.Case, res.Source = "v2 session/resume without replayFrom replays nothing", srcV2ResumeNoReplay
	}
	if cap, gated := r.gated(m); gated {
		res.Verdict, res.Observed = Skipped, "the agent does not advertise "+cap
		r.add(res)
		return
	}
	session, _, err := r.newSession(c)
	if err == nil && r.v2Turn() {
		_, err = r.historyTurn(c, session)
	} else if err == nil {
		var f *frame
		f, err = c.request(pm.Wire, r.fill(pm.Params, r.p.example(pm.Params.Def), session, promptText))
		r.refusedBy(pm.Wire, f)
		if err == nil && f.Error != nil {
			err = fmt.Errorf("session/prompt: %s", describe(f))
		}
	}
	if err != nil {
		res.Verdict, res.Observed = Fail, "no history to resume: "+err.Error()
		r.add(res)
		return
	}
	time.Sleep(lateGrace) // the turn's own late output is not a replay
	seq := c.seq()
	params := withoutMember(r.fill(m.Params, r.p.example(m.Params.Def), session, ""), "replayFrom")
	f, err := c.request(m.Wire, params)
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, f)
		r.add(res)
		return
	}
	time.Sleep(lateGrace)
	replayed := 0
	for _, u := range c.since(seq) {
		if u.Method == "session/update" && sessionOf(u) == session && (historyKind(updateKind(u)) || messageKey(u) != "") {
			replayed++
		}
	}
	res.Verdict, res.Observed = Pass, "nothing replayed"
	if replayed > 0 {
		res.Verdict, res.Observed = Fail, plural(replayed, "message update")+" replayed"
	}
	r.add(res)
}

// withoutMember drops member from a params object.
func withoutMember(params json.RawMessage, member string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	delete(obj, member)
	b, _ := json.Marshal(obj)
	return b
}
