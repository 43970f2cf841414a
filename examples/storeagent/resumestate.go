package storeagent

import (
	"context"
	"slices"
	"time"

	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/session"
)

// ResumeState is acphttp's Options.ResumeState for this agent: after a v2
// client resumes a transport stream (its replay and the output held
// meanwhile sent), it tells the client each session's current state as a
// state_update, which the draft requires after a replay: running while a
// turn of this process runs, otherwise idle with the last turn's stop
// reason (as session/resume reports it). A session's event stream gets
// its session's; a WebSocket connection every session the connection
// serves; a Streamable HTTP connection stream none (its sessions' updates
// travel on their own streams, whose resumes restate them). v1 has no
// state update: a v1 connection gets nothing.
func (a *Agent) ResumeState(hc *acphttp.Conn, sess string) [][]byte {
	a.mu.Lock()
	c := a.v2[hc]
	a.mu.Unlock()
	if c == nil {
		return nil
	}
	var ids []string
	switch {
	case sess != "":
		if c.serves(sess) {
			ids = []string{sess}
		}
	case hc.Profile() == acphttp.WebSocket:
		ids = c.served()
	}
	var out [][]byte
	for _, id := range ids {
		if m := c.stateMessage(id); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// serve registers a v2 connection that runs over acphttp, until its end.
func (a *Agent) serve(hc *acphttp.Conn, c *connV2) (done func()) {
	a.mu.Lock()
	a.v2[hc] = c
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.v2, hc)
		a.mu.Unlock()
	}
}

// attach and detach keep the sessions the connection serves: those it
// created, resumed, forked or prompted, until it closes or deletes them.
func (c *connV2) attach(id string) {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.sessions == nil {
		c.sessions = map[string]struct{}{}
	}
	c.sessions[id] = struct{}{}
}

func (c *connV2) detach(id string) {
	c.smu.Lock()
	defer c.smu.Unlock()
	delete(c.sessions, id)
}

func (c *connV2) serves(id string) bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	_, ok := c.sessions[id]
	return ok
}

func (c *connV2) served() []string {
	c.smu.Lock()
	defer c.smu.Unlock()
	ids := make([]string, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// stateMessage is session id's state_update as a whole JSON-RPC
// notification, or nil when the session is gone.
func (c *connV2) stateMessage(id string) []byte {
	t := session.Turn{State: session.TurnRunning}
	if !c.Running(id) {
		// The transport waits for this (a WebSocket resume holds its
		// writes): a store that does not answer soon sends nothing.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 5*time.Second)
		defer cancel()
		s, err := c.Store().Get(ctx, id)
		if err != nil {
			return nil
		}
		t = s.Turn
	}
	p, err := acp2.UpdateSessionNotification{SessionID: acp2.SessionID(id), Update: acp2.NewSessionUpdateStateUpdate(idle(t))}.MarshalJSON()
	if err != nil {
		return nil
	}
	msg := append([]byte(`{"jsonrpc":"2.0","method":"`+acp2.MethodSessionUpdate+`","params":`), p...)
	return append(msg, '}')
}
