package main

import (
	"context"
	"log/slog"
	"sync"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// meter counts each session's tokens from what the agent reports: the
// usage of every turn (session/prompt's result) and the context window of
// usage_update notifications. It changes nothing it sees.
type meter struct {
	log      *slog.Logger
	mu       sync.Mutex
	order    []acp.SessionID // first seen first
	sessions map[acp.SessionID]*tally
}

// tally is one session's count.
type tally struct {
	turns                int    // turns answered
	input, output, total uint64 // summed over the turns that reported usage
	used, size           uint64 // the context window, from the latest usage_update
}

func newMeter(log *slog.Logger) *meter {
	return &meter{log: log, sessions: map[acp.SessionID]*tally{}}
}

// watch registers the meter's interceptors on p.
func (m *meter) watch(p *proxy.Proxy) {
	proxy.Request(p, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest,
		next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		res, err := next(ctx, req)
		if err == nil {
			m.turn(req.SessionID, res.Usage)
		}
		return res, err
	})
	proxy.Notification(p, acp.ClientMethods.SessionUpdate, func(ctx context.Context, n *acp.SessionNotification,
		next func(context.Context, *acp.SessionNotification) error) error {
		if u := n.Update.UsageUpdate; u != nil {
			m.window(n.SessionID, u)
		}
		return next(ctx, n)
	})
}

// session returns id's tally; m.mu is held.
func (m *meter) session(id acp.SessionID) *tally {
	t := m.sessions[id]
	if t == nil {
		t = &tally{}
		m.sessions[id] = t
		m.order = append(m.order, id)
	}
	return t
}

// turn counts one answered turn and logs the session's running total.
func (m *meter) turn(id acp.SessionID, u *acp.Usage) {
	m.mu.Lock()
	t := m.session(id)
	t.turns++
	if u != nil {
		t.input += u.InputTokens
		t.output += u.OutputTokens
		t.total += u.TotalTokens
	}
	c := *t
	m.mu.Unlock()
	m.log.Info("turn tokens", c.attrs(id)...)
}

// window records the session's context window.
func (m *meter) window(id acp.SessionID, u *acp.UsageUpdate) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.session(id)
	t.used, t.size = u.Used, u.Size
}

// report logs every session's total, in the order they were first seen.
func (m *meter) report() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range m.order {
		m.log.Info("session tokens", m.sessions[id].attrs(id)...)
	}
}

func (t tally) attrs(id acp.SessionID) []any {
	return []any{"sessionId", id, "turns", t.turns, "input", t.input, "output", t.output, "total", t.total, "contextUsed", t.used, "contextSize", t.size}
}
