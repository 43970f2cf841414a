package inspect

import (
	"encoding/json"

	"github.com/acpgen/acpgen/conform"
)

// session is what the lifecycle rules keep of one ACP session.
type session struct {
	// turn is the outstanding session/prompt (v1: its response ends it).
	turn *turn
	// ended: the last turn was answered and no prompt came since;
	// endedCancelled: it had been cancelled.
	ended, endedCancelled bool
	// loading is the id of an outstanding session/load; loaded says one was
	// answered and no prompt came since.
	loading string
	loaded  bool
	// v2: the turn reported running, was cancelled while running, or
	// reported idle (with no prompt since).
	running, cancelled, idle bool
}

type turn struct {
	id        string
	cancelled bool
}

func (c *Checker) session(id string) *session {
	s, ok := c.sessions.get(id)
	if !ok {
		s = &session{}
		c.sessions.put(id, s)
	}
	return s
}

// v1Turn reports whether the session's prompt response ends its turn (v1),
// rather than a state update (v2).
func (c *Checker) v1Turn() bool {
	p, _ := c.ver.p.of(c.ver.current)
	if p == nil {
		return c.ver.current < 2
	}
	t := p.Model.Turn
	return t != nil && t.StopReason != nil
}

// lifecycleCall follows a request or notification through the session's
// lifecycle.
func (c *Checker) lifecycleCall(j *judgement, req *request, params json.RawMessage) {
	if req.session == "" {
		return
	}
	s := c.session(req.session)
	switch {
	case j.dir == ToAgent && req.method == "session/prompt":
		*s = session{turn: &turn{id: idKey(j.msg.ID)}, running: s.running}
	case j.dir == ToAgent && req.method == "session/cancel":
		if s.turn != nil {
			s.turn.cancelled = true
		}
		s.cancelled = s.running
	case j.dir == ToAgent && req.method == "session/load" && j.msg.ID != nil:
		s.loading, s.loaded, s.ended = idKey(j.msg.ID), false, false
	case j.dir == ToClient && req.method == "session/update":
		c.update(j, s, params)
	}
}

// update judges a session/update against the session's turn and load.
func (c *Checker) update(j *judgement, s *session, params json.RawMessage) {
	kind := j.msg.Update
	if kind == "state_update" {
		c.state(j, s, params)
		return
	}
	switch {
	case s.loading != "":
		// the replay of a session/load in progress
	case s.loaded && conform.HistoryKind(kind):
		j.add(ruleLoadReplay, "/params/update", kind+" replayed after the session/load response")
	case s.ended && conform.TurnOutput(kind):
		r := ruleTurnOrder
		if s.endedCancelled {
			r = ruleCancelOrder
		}
		j.add(r, "/params/update", kind+" after the turn's session/prompt response")
	case s.idle && conform.TurnOutput(kind):
		j.add(ruleV2AfterIdle, "/params/update", kind+" after the turn's idle state_update")
	}
}

// state follows a v2 state_update: running starts a turn, idle ends it, with
// stopReason cancelled once the client cancelled it.
func (c *Checker) state(j *judgement, s *session, params json.RawMessage) {
	var p struct {
		Update struct {
			State      string `json:"state"`
			StopReason any    `json:"stopReason"`
		} `json:"update"`
	}
	_ = json.Unmarshal(params, &p)
	switch p.Update.State {
	case "running":
		s.running, s.idle = true, false
	case "idle":
		if s.cancelled && p.Update.StopReason != "cancelled" {
			j.add(ruleV2CancelEnds, "/params/update/stopReason", "the cancelled turn's idle has stopReason "+show(p.Update.StopReason)+", want cancelled")
		}
		s.running, s.cancelled, s.idle = false, false, true
	}
}

// lifecycleResult follows a successful response through the lifecycle.
func (c *Checker) lifecycleResult(j *judgement, req *request, result json.RawMessage) {
	if req.session == "" || j.dir != ToClient {
		return
	}
	s := c.session(req.session)
	switch req.method {
	case "session/prompt":
		if !c.v1Turn() || s.turn == nil || s.turn.id != idKey(j.msg.ID) {
			return
		}
		var r struct {
			StopReason any `json:"stopReason"`
		}
		_ = json.Unmarshal(result, &r)
		if s.turn.cancelled && r.StopReason != "cancelled" {
			j.add(ruleCancelEnds, "/result/stopReason", "stopReason "+show(r.StopReason)+" after session/cancel, want cancelled")
		}
		s.ended, s.endedCancelled, s.turn = true, s.turn.cancelled, nil
	case "session/load":
		s.loading, s.loaded = "", true
	}
}

// lifecycleError follows an error response.
func (c *Checker) lifecycleError(j *judgement, req *request) {
	if req.session == "" || j.dir != ToClient {
		return
	}
	s := c.session(req.session)
	switch req.method {
	case "session/prompt":
		if s.turn == nil || s.turn.id != idKey(j.msg.ID) || !c.v1Turn() {
			return
		}
		if s.turn.cancelled {
			j.add(ruleCancelEnds, "/error", "an error after session/cancel, want a result with stopReason cancelled")
		}
		s.ended, s.endedCancelled, s.turn = true, s.turn.cancelled, nil
	case "session/load":
		s.loading = ""
	}
}

func show(v any) string {
	if v == nil {
		return "none"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
