package conform

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Sources of the replay-content cases.
const (
	// v1: "the Agent MUST replay the entire conversation to the Client".
	srcLoadEntire = "spec: session setup loading (replay the entire conversation)"
	// v2: "should replay all retained conversation history".
	srcV2RestartReplay = "schema v2: ResumeSessionRequest replayFrom (\"should replay all retained conversation history\")"
)

// conversation joins the text of session's message updates in frames by
// message space (user, agent, thought): chunks appended in order, v2
// message upserts as sent.
func conversation(frames []*frame, session string) map[string]string {
	out := map[string]string{}
	for _, f := range frames {
		if f.Method != "session/update" || sessionOf(f) != session {
			continue
		}
		var p struct {
			Update struct {
				Kind    string          `json:"sessionUpdate"`
				Content json.RawMessage `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(f.Params, &p) != nil || messageSpace[p.Update.Kind] == "" {
			continue
		}
		out[messageSpace[p.Update.Kind]] += blockText(p.Update.Content)
	}
	return out
}

// blockText is the text of a content block, or of a list of them.
func blockText(raw json.RawMessage) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		blocks = blocks[:0]
		var one struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		blocks = append(blocks, one)
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// replayCovers judges a replay against the turn it replays: the user's
// prompt and every agent message and thought text the turn sent are in it.
func replayCovers(turn, replay map[string]string, prompt string) (Verdict, string) {
	var missing []string
	if !strings.Contains(replay["user"], prompt) {
		missing = append(missing, fmt.Sprintf("the user's prompt %q", clip(prompt)))
	}
	for _, space := range []string{"agent", "thought"} {
		if turn[space] != "" && !strings.Contains(replay[space], turn[space]) {
			missing = append(missing, fmt.Sprintf("the %s text the turn sent, %q", space, clip(turn[space])))
		}
	}
	obs := fmt.Sprintf("replayed user text %q, agent text %q", clip(replay["user"]), clip(replay["agent"]))
	if len(missing) > 0 {
		return Fail, obs + "; missing " + strings.Join(missing, " and ")
	}
	return Pass, obs
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// replayedBefore is the conversation session's updates in frames carry
// before the response resp.
func replayedBefore(frames []*frame, session string, resp *frame) map[string]string {
	var before []*frame
	for _, f := range frames {
		if f.Seq < resp.Seq {
			before = append(before, f)
		}
	}
	return conversation(before, session)
}

// restartCases are the persistence cases (--restart): a recorded turn,
// the agent's command stopped and started again, then the session loaded
// (v1 session/load) or resumed with a replay from the start (v2), and the
// replay compared with what the turn sent.
func (r *agentRun) restartCases(c *proc) {
	if r.p.Protocol >= 2 {
		r.restartResume(c)
		return
	}
	load, pm := r.p.Method(replayMethod), r.p.Method("session/prompt")
	if load == nil || pm == nil || !endsInResponse(r.p.Model.Turn) {
		return
	}
	res := mustCase(kindRestartLoad, "", "session/load after a restart replays the recorded turn",
		"the turn's conversation (the prompt and the agent's messages) as session/update before the response of the restarted agent")
	if r.skipWithheld(&res, load.Wire) {
		return
	}
	session, _, err := r.newSession(c)
	seq := c.seq()
	var f *frame
	if err == nil {
		f, err = c.request(pm.Wire, r.fill(pm.Params, r.p.example(pm.Params.Def), session, promptText))
		r.refusedBy(pm.Wire, f)
	}
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, "no turn to record: "+errOr(err, f)
		if codeIs(f, authRequired) {
			res.Verdict = Blocked
		}
		r.add(res)
		return
	}
	time.Sleep(lateGrace) // the turn's late output is part of it
	turn := conversation(c.since(seq), session)
	if err := r.restarted(c); err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		r.add(res)
		return
	}
	seq = c.seq()
	f, err = c.request(load.Wire, r.fill(load.Params, r.p.example(load.Params.Def), session, ""))
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, "after the restart, session/load gave "+errOr(err, f)
		r.add(res)
		return
	}
	res.Verdict, res.Observed = replayCovers(turn, replayedBefore(c.since(seq), session, f), promptText)
	r.add(res)
}

// restartResume is v2's persistence case: session/resume with replayFrom
// start after a restart replays the recorded turn (SHOULD: "should replay
// all retained conversation history"), and sends its state_update after
// the replay, before the response (MUST, as without a restart).
func (r *agentRun) restartResume(c *proc) {
	m := r.p.Method("session/resume")
	if m == nil || m.Params.Member("replayFrom") == nil || !r.v2Turn() {
		return
	}
	res := shouldCase(kindV2RestartReplay, "v2 session/resume replayFrom start after a restart replays the recorded turn", "",
		"the turn's messages (the prompt and the agent's) replayed before the response of the restarted agent")
	if r.skipWithheld(&res, m.Wire) {
		return
	}
	session, _, err := r.newSession(c)
	seq := c.seq()
	if err == nil {
		_, err = r.historyTurn(c, session)
	}
	if err != nil {
		res.Verdict, res.Observed = Fail, "no turn to record: "+err.Error()
		r.add(res)
		return
	}
	time.Sleep(lateGrace)
	turn := conversation(c.since(seq), session)
	if err := r.restarted(c); err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		r.add(res)
		return
	}
	seq = c.seq()
	params := r.fill(m.Params, r.p.example(m.Params.Def), session, "")
	f, err := c.request(m.Wire, withRaw(params, "replayFrom", json.RawMessage(`{"type":"start"}`)))
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, "after the restart, session/resume gave "+errOr(err, f)
		r.add(res)
		return
	}
	time.Sleep(lateGrace)
	frames := c.since(seq)
	res.Verdict, res.Observed = replayCovers(turn, replayedBefore(frames, session, f), promptText)
	r.add(res)
	order := mustCase(kindV2ResumeState, "persistence", "v2 session/resume after a restart: replay, then state_update, then the response",
		"the replayed history, then a state_update of the session, then the response")
	order.Category = "persistence"
	order.Verdict, order.Observed = resumeOrder(frames, session, f)
	r.add(order)
}

// restarted stops the agent (its input closed, then its process group
// killed) and starts its command again, initialized and logged in.
func (r *agentRun) restarted(c *proc) error {
	c.closeStdin(r.o.Timeout)
	c.restart.reinit = true
	if err := c.relaunch(); err != nil {
		return fmt.Errorf("the agent did not start again: %w", err)
	}
	return nil
}
