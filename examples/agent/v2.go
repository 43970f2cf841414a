package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/router"
)

// agentV2 is the example agent on the ACP v2 draft (gen/acp/v2). It behaves
// like the v1 agent, in v2's prompt lifecycle: session/prompt answers once
// the prompt is inserted (with its messageId), and the turn runs on after
// the response, reported by session/update notifications: the user message
// echoed with that messageId, state running, one agent_message_chunk per
// word, then state idle with a stop reason. A turn that says "wait" runs
// until session/cancel (or the end of a drain's grace), then reports idle
// with stopReason cancelled.
// capabilities.session grants v2's baseline session methods, so session/list,
// session/resume and session/close work on the connection's sessions too.
type agentV2 struct {
	acp2.UnimplementedAgentHandler
	conn *acp2.AgentConn
	log  *slog.Logger
	// ctx is the connection's: turns outlive the session/prompt request
	// that started them.
	ctx context.Context

	mu       sync.Mutex
	next     int // creation order of sessions
	sessions map[acp2.SessionID]*sessionV2
}

type sessionV2 struct {
	n     int // creation order
	roots []string
	// turn holds one token while a turn runs: a prompt that arrives during
	// a turn is held (not yet inserted) until that turn ends.
	turn chan struct{}
	// closed is closed by session/close, which ends the running turn and
	// the prompts held behind it. session/cancel ends them through the
	// runtime's turns (dispatch.Turn).
	closed   chan struct{}
	messages int
	// history is the session's messages as sent (the user messages echoed,
	// the agent's chunks), replayed in that order by session/resume.
	history []acp2.SessionUpdate
}

// serveV2 runs the v2 agent on one connection.
func serveV2(log *slog.Logger) router.Serve {
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		ctx, cancel := context.WithCancel(ctx) // ends held turns with the connection
		defer cancel()
		a := &agentV2{log: log, ctx: ctx, sessions: map[acp2.SessionID]*sessionV2{}}
		a.conn = acp2.NewAgentConn(a, r, w, acp2.ConnOptions{RPC: acp2.RPCOptions{Logger: log}})
		return a.conn.Run(ctx)
	}
}

func (a *agentV2) Initialize(ctx context.Context, p *acp2.InitializeRequest) (*acp2.InitializeResponse, error) {
	title := "acpgen example agent"
	return &acp2.InitializeResponse{
		ProtocolVersion: acp2.CurrentProtocolVersion,
		Info:            acp2.Implementation{Name: "acpgen-example-agent", Title: &title, Version: "0.1.0"},
		Capabilities: &acp2.AgentCapabilities{Session: &acp2.SessionCapabilities{
			AdditionalDirectories: &acp2.SessionAdditionalDirectoriesCapabilities{},
		}},
	}, nil
}

func (a *agentV2) SessionNew(ctx context.Context, p *acp2.NewSessionRequest) (*acp2.NewSessionResponse, error) {
	roots := []string{string(p.Cwd)}
	for _, d := range p.AdditionalDirectories {
		roots = append(roots, string(d))
	}
	rootsJSON, err := json.Marshal(roots)
	if err != nil {
		return nil, err
	}
	id := acp2.SessionID(newSessionID())
	a.mu.Lock()
	a.next++
	a.sessions[id] = &sessionV2{n: a.next, roots: roots, turn: make(chan struct{}, 1), closed: make(chan struct{})}
	a.mu.Unlock()
	a.log.Info("v2 session created", "sessionId", id, "roots", roots)
	return &acp2.NewSessionResponse{SessionID: id, Meta: map[string]acp2.Raw{rootsMetaKey: rootsJSON}}, nil
}

// SessionList lists this connection's open sessions, oldest first, with
// the cwd filter applied; everything fits one page.
func (a *agentV2) SessionList(ctx context.Context, p *acp2.ListSessionsRequest) (*acp2.ListSessionsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := &acp2.ListSessionsResponse{Sessions: []acp2.SessionInfo{}}
	ids := slices.SortedFunc(maps.Keys(a.sessions), func(x, y acp2.SessionID) int { return a.sessions[x].n - a.sessions[y].n })
	for _, id := range ids {
		s := a.sessions[id]
		if p.Cwd != nil && string(*p.Cwd) != s.roots[0] {
			continue
		}
		info := acp2.SessionInfo{SessionID: id, Cwd: acp2.AbsolutePath(s.roots[0])}
		for _, d := range s.roots[1:] {
			info.AdditionalDirectories = append(info.AdditionalDirectories, acp2.AbsolutePath(d))
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// SessionResume makes an open session of this connection current again
// with the request's roots. With replayFrom start it replays the session's
// history; then, as the v2 schema requires, it reports the session's
// current state before answering. Another cursor type is refused (-32602).
func (a *agentV2) SessionResume(ctx context.Context, p *acp2.ResumeSessionRequest) (*acp2.ResumeSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	if s == nil {
		a.mu.Unlock()
		return nil, acp2.NewResourceNotFoundError(map[string]any{"sessionId": p.SessionID})
	}
	if p.ReplayFrom != nil && p.ReplayFrom.Start == nil {
		a.mu.Unlock()
		return nil, acp2.NewInvalidParamsError(map[string]any{"pointer": "/replayFrom/type", "unsupported": p.ReplayFrom.Kind()})
	}
	s.roots = []string{string(p.Cwd)}
	for _, d := range p.AdditionalDirectories {
		s.roots = append(s.roots, string(d))
	}
	var replay []acp2.SessionUpdate
	if p.ReplayFrom != nil {
		replay = slices.Clone(s.history)
	}
	state := acp2.NewStateUpdateIdle(acp2.IdleStateUpdate{StopReason: acp2.NewIdleStateUpdateStopReasonNone(acp2.IdleStateUpdateStopReasonNone{})})
	if len(s.turn) > 0 {
		state = acp2.RunningUpdate()
	}
	a.mu.Unlock()
	for _, u := range append(replay, acp2.NewSessionUpdateStateUpdate(state)) {
		if err := a.update(p.SessionID, u); err != nil {
			return nil, err
		}
	}
	return &acp2.ResumeSessionResponse{}, nil
}

// SessionClose ends the session's running turn, as session/cancel does,
// and forgets the session. It answers once the turn has sent its last
// updates and its idle: after the close response nothing names the session.
func (a *agentV2) SessionClose(ctx context.Context, p *acp2.CloseSessionRequest) (*acp2.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	if s == nil {
		a.mu.Unlock()
		return nil, acp2.NewResourceNotFoundError(map[string]any{"sessionId": p.SessionID})
	}
	close(s.closed)
	delete(a.sessions, p.SessionID)
	a.mu.Unlock()
	// The turn's token comes back once the turn has reported idle; kept, it
	// also keeps any later turn of the session from starting.
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &acp2.CloseSessionResponse{}, nil
}

func (a *agentV2) SessionPrompt(ctx context.Context, p *acp2.PromptRequest) (*acp2.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	a.mu.Unlock()
	if s == nil {
		return nil, acp2.NewResourceNotFoundError(map[string]any{"sessionId": p.SessionID})
	}
	// The v2 schema: a content block type the agent does not support is
	// refused with -32602, before the prompt is inserted.
	for i, b := range p.Prompt {
		if b.Other != nil {
			return nil, acp2.NewInvalidParamsError(map[string]any{"pointer": fmt.Sprintf("/prompt/%d/type", i), "unsupported": b.Other.Type})
		}
	}
	// The runtime registered the turn when the prompt was read, so a
	// session/cancel read after it ends it, even while it is held behind
	// another turn, and one read before it never does. The turn runs on
	// after the response: Keep keeps it registered until it reports idle.
	turn := dispatch.TurnFrom(ctx)
	release := turn.Keep()
	select {
	case s.turn <- struct{}{}:
	case <-turn.Done():
		release()
		return nil, acp2.NewRequestCancelledError(nil)
	case <-s.closed:
		release()
		return nil, acp2.NewRequestCancelledError(nil)
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
	a.mu.Lock()
	s.messages++
	userID := acp2.MessageID(fmt.Sprintf("user-%d", s.messages))
	agentID := acp2.MessageID(fmt.Sprintf("agent-%d", s.messages))
	a.mu.Unlock()

	// Inserted: echo the user message, report running, answer, and run the
	// turn after the response.
	echo := acp2.UserMessage{MessageID: userID, Content: p.Prompt}
	if err := a.record(s, p.SessionID, acp2.NewSessionUpdateUserMessage(echo)); err != nil {
		<-s.turn
		release()
		return nil, err
	}
	if err := a.update(p.SessionID, acp2.NewSessionUpdateStateUpdate(acp2.RunningUpdate())); err != nil {
		<-s.turn
		release()
		return nil, err
	}
	// A drain of the connection waits for the turn, and ends it at its
	// deadline as session/cancel does.
	turnDone, expired := release, (<-chan struct{})(nil)
	release = func() {}
	if d := jsonrpc.DrainFrom(ctx); d != nil {
		release, expired = d.Hold(), d.Expired()
	}
	go func() {
		defer release()
		defer turnDone()
		defer func() { <-s.turn }()
		stop := a.run(s, p, agentID, turn.Done(), expired)
		idle := acp2.IdleStateUpdate{StopReason: stop}
		if err := a.update(p.SessionID, acp2.NewSessionUpdateStateUpdate(acp2.NewStateUpdateIdle(idle))); err != nil {
			a.logSendFailure("v2 turn: reporting idle failed", err)
		}
	}()
	return &acp2.PromptResponse{MessageID: userID}, nil
}

// run streams the prompt's words and returns the turn's stop reason:
// cancelled once cancelled, the session closed or expired (a drain's
// deadline) is closed.
func (a *agentV2) run(s *sessionV2, p *acp2.PromptRequest, msg acp2.MessageID, cancelled, expired <-chan struct{}) acp2.IdleStateUpdateStopReason {
	sep := ""
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		for _, w := range strings.Fields(b.Text.Text) {
			if w == waitWord {
				select { // a long-running step, until session/cancel
				case <-cancelled:
				case <-s.closed:
				case <-expired:
				case <-a.ctx.Done():
				}
			}
			select {
			case <-cancelled:
				return acp2.NewIdleStateUpdateStopReasonCancelled(acp2.IdleStateUpdateStopReasonCancelled{})
			case <-s.closed:
				return acp2.NewIdleStateUpdateStopReasonCancelled(acp2.IdleStateUpdateStopReasonCancelled{})
			case <-expired:
				return acp2.NewIdleStateUpdateStopReasonCancelled(acp2.IdleStateUpdateStopReasonCancelled{})
			default:
			}
			chunk := acp2.ContentChunk{MessageID: msg, Content: acp2.TextBlock(sep + w)}
			if err := a.record(s, p.SessionID, acp2.NewSessionUpdateAgentMessageChunk(chunk)); err != nil {
				a.logSendFailure("v2 turn: streaming failed", err)
				return acp2.NewIdleStateUpdateStopReasonError(acp2.ErrorStopReason{})
			}
			sep = " "
		}
	}
	return acp2.NewIdleStateUpdateStopReasonEndTurn(acp2.IdleStateUpdateStopReasonEndTurn{})
}

// logSendFailure logs a turn's failed send: a warning, unless the
// connection has ended (the client left), which is ordinary.
func (a *agentV2) logSendFailure(msg string, err error) {
	level := slog.LevelWarn
	if a.ctx.Err() != nil || errors.Is(err, jsonrpc.ErrClosed) {
		level = slog.LevelDebug
	}
	a.log.Log(context.Background(), level, msg, "err", err)
}

// record sends a message update of session s and keeps it in s's history.
func (a *agentV2) record(s *sessionV2, id acp2.SessionID, u acp2.SessionUpdate) error {
	a.mu.Lock()
	s.history = append(s.history, u)
	a.mu.Unlock()
	return a.update(id, u)
}

func (a *agentV2) update(id acp2.SessionID, u acp2.SessionUpdate) error {
	return a.conn.SessionUpdate(a.ctx, &acp2.UpdateSessionNotification{SessionID: id, Update: u})
}

// SessionCancel is for bookkeeping: the runtime has already ended the
// session's turns read before the cancel, the running one and those held
// behind it (answered -32800).
func (a *agentV2) SessionCancel(ctx context.Context, p *acp2.CancelSessionNotification) {
	a.log.Info("v2 turn cancelled", "sessionId", p.SessionID)
}
