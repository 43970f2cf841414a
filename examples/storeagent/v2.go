package storeagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/session"
)

// InterruptedCode is the JSON-RPC error code of the stopReason error that
// v2's resume reports for a turn whose process died before it ended
// (internal error): the turn ended, explicitly, without a result.
const InterruptedCode = -32603

// connV2 serves one v2 connection. A prompt answers once its user message
// is inserted (recorded and sent as user_message, messageId "u" and the
// turn's start sequence); the turn runs on, streaming agent_message_chunk
// updates (messageId "a" and the same sequence), and ends with an idle
// state_update carrying its stop reason. Message ids are unique in the
// session across processes, so a replay's upserts never collide.
type connV2 struct {
	acp2.UnimplementedAgentHandler
	*Agent
	log *slog.Logger
	// ctx is the connection's: turns outlive the session/prompt request
	// that started them, not the connection.
	ctx  context.Context
	conn *acp2.AgentConn
}

// ServeV2 runs the v2 agent on one connection whose initialize the router
// has read.
func (a *Agent) ServeV2(ctx context.Context, r io.Reader, w io.Writer, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &connV2{Agent: a, log: log, ctx: ctx}
	rpc := acp2.RPCOptions{Logger: log, Recorder: session.NewBatchRecorder(a.Store())}
	c.conn = acp2.NewAgentConn(c, r, w, acp2.ConnOptions{RPC: rpc})
	return c.conn.Run(ctx)
}

// Initialize grants v2's baseline session methods (new, list, resume,
// close, prompt, cancel), which v2 requires of an agent with sessions: with
// no store they serve the process's memory. delete and fork are advertised
// only with the store; additional directories are kept either way.
func (c *connV2) Initialize(ctx context.Context, p *acp2.InitializeRequest) (*acp2.InitializeResponse, error) {
	caps := &acp2.SessionCapabilities{AdditionalDirectories: &acp2.SessionAdditionalDirectoriesCapabilities{}}
	if c.Durable() {
		caps.Delete = &acp2.SessionDeleteCapabilities{}
		caps.Fork = &acp2.SessionForkCapabilities{}
	}
	return &acp2.InitializeResponse{
		ProtocolVersion: acp2.CurrentProtocolVersion,
		Info:            acp2.Implementation{Name: "acpgen-store-agent", Version: "0.1.0"},
		Capabilities:    &acp2.AgentCapabilities{Session: caps},
	}, nil
}

func v2Err(id acp2.SessionID, err error) error {
	switch {
	case errors.Is(err, session.ErrNotFound):
		return acp2.NewResourceNotFoundError(map[string]any{"sessionId": id})
	case errors.As(err, new(*VersionError)):
		return acp2.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": err.Error()})
	case errors.Is(err, session.ErrClosed):
		return acp2.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": "the session is closed: session/resume reopens it"})
	}
	return err
}

func roots(dirs []acp2.AbsolutePath) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = string(d)
	}
	return out
}

func (c *connV2) SessionNew(ctx context.Context, p *acp2.NewSessionRequest) (*acp2.NewSessionResponse, error) {
	id, err := c.New(ctx, session.Info{Owner: acphttp.PrincipalFrom(ctx), Cwd: string(p.Cwd), AdditionalDirectories: roots(p.AdditionalDirectories), Meta: protocolMeta(2)})
	if err != nil {
		return nil, err
	}
	return &acp2.NewSessionResponse{SessionID: acp2.SessionID(id)}, nil
}

func (c *connV2) SessionPrompt(ctx context.Context, p *acp2.PromptRequest) (*acp2.PromptResponse, error) {
	id := string(p.SessionID)
	sess, err := c.own(ctx, id, 2)
	if err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	for i, b := range p.Prompt {
		if b.Other != nil {
			return nil, acp2.NewInvalidParamsError(map[string]any{"pointer": fmt.Sprintf("/prompt/%d/type", i), "unsupported": b.Other.Type})
		}
	}
	// The runtime registered the turn when the prompt was read, so a
	// session/cancel read after it ends it; Keep keeps it registered after
	// the response, until the turn reports idle.
	turn := dispatch.TurnFrom(ctx)
	release := turn.Keep()
	tctx, cancel := context.WithCancelCause(c.ctx)
	var seq uint64
	for { // a prompt sent during a turn of this process is held until it ends
		s, busy, err := c.StartTurn(ctx, id, nil, cancel)
		if err == nil {
			seq = s
			break
		}
		if busy == nil {
			release()
			cancel(nil)
			if !sess.Closed && (errors.Is(err, session.ErrClosed) || errors.Is(err, session.ErrNotFound)) {
				// Closed or deleted before it was inserted (held, or
				// during the close): the schema's -32800.
				return nil, acp2.NewRequestCancelledError(nil)
			}
			return nil, v2Err(p.SessionID, err)
		}
		select {
		case <-busy:
		case <-turn.Done():
			release()
			cancel(nil)
			return nil, acp2.NewRequestCancelledError(nil)
		case <-ctx.Done():
			release()
			cancel(nil)
			return nil, ctx.Err()
		}
	}
	userID := acp2.MessageID(fmt.Sprintf("u%d", seq))
	agentID := acp2.MessageID(fmt.Sprintf("a%d", seq))
	err = c.update(p.SessionID, acp2.NewSessionUpdateUserMessage(acp2.UserMessage{MessageID: userID, Content: p.Prompt}))
	if err == nil {
		err = c.update(p.SessionID, acp2.NewSessionUpdateStateUpdate(acp2.RunningUpdate()))
	}
	if err != nil {
		c.endTurn(id, "", "turn failed")
		release()
		cancel(nil)
		return nil, err
	}
	flush := context.WithoutCancel(ctx) // the connection's writer, after the answer
	go func() {
		defer release()
		defer cancel(nil)
		stop := c.run(tctx, turn.Done(), p, agentID)
		if stop == "" { // the connection ended: nobody to tell
			c.endTurn(id, "", "connection ended during the turn")
			return
		}
		// The turn's updates recorded first (the connection writes behind),
		// then its end, before the idle is sent, so a resume after the
		// client saw it finds the turn ended; released once the idle is
		// recorded and out, so close answers only then and closes no
		// session an update of the turn is still queued for.
		if err := jsonrpc.FlushFrom(flush); err != nil {
			c.endTurn(id, "", "turn failed")
			return
		}
		if err := c.RecordEnd(id, stop, ""); err != nil {
			c.log.Warn("recording the turn's end failed", "sessionId", id, "err", err)
		}
		if err := c.update(p.SessionID, acp2.NewSessionUpdateStateUpdate(idle(session.Turn{State: session.TurnEnded, Reason: stop}))); err != nil {
			c.log.Debug("v2 turn: reporting idle failed", "err", err)
		}
		_ = jsonrpc.FlushFrom(flush)
		c.Release(id)
	}()
	return &acp2.PromptResponse{MessageID: userID}, nil
}

func (c *connV2) endTurn(id, stop, why string) {
	if err := c.EndTurn(id, stop, why); err != nil {
		c.log.Warn("recording the turn's end failed", "sessionId", id, "err", err)
	}
}

// run streams the prompt's words and returns the turn's stop reason:
// cancelled once cancelled (session/cancel) or ctx ends by close or delete;
// "" when the connection ended or a send failed.
func (c *connV2) run(ctx context.Context, cancelled <-chan struct{}, p *acp2.PromptRequest, msg acp2.MessageID) string {
	stopped := func() (string, bool) {
		select {
		case <-cancelled:
			return "cancelled", true
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), session.ErrSessionClosed) {
				return "cancelled", true
			}
			return "", true
		default:
			return "", false
		}
	}
	sep := ""
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		for _, w := range strings.Fields(b.Text.Text) {
			if w == "wait" {
				select {
				case <-cancelled:
				case <-ctx.Done():
				}
			}
			if stop, ok := stopped(); ok {
				return stop
			}
			chunk := acp2.ContentChunk{MessageID: msg, Content: acp2.TextBlock(sep + w)}
			if err := c.update(p.SessionID, acp2.NewSessionUpdateAgentMessageChunk(chunk)); err != nil {
				return ""
			}
			sep = " "
		}
	}
	return "end_turn"
}

func (c *connV2) update(id acp2.SessionID, u acp2.SessionUpdate) error {
	return c.conn.SessionUpdate(c.ctx, &acp2.UpdateSessionNotification{SessionID: id, Update: u})
}

func (c *connV2) SessionCancel(ctx context.Context, p *acp2.CancelSessionNotification) {
	// The runtime has ended the session's turns (dispatch.Turn).
}

// idle is the state_update that reports a session's last turn: idle with
// its stop reason; with stopReason error (code InterruptedCode, the reason
// as message) for a turn its process left; idle without one before any
// turn; running for a turn this process runs.
func idle(t session.Turn) acp2.StateUpdate {
	v := map[string]any{"state": "idle"}
	switch t.State {
	case session.TurnRunning:
		return acp2.RunningUpdate()
	case session.TurnEnded:
		v["stopReason"] = t.Reason
	case session.TurnInterrupted:
		v["stopReason"] = "error"
		v["error"] = map[string]any{"code": InterruptedCode, "message": t.Reason}
	}
	var u acp2.StateUpdate
	b, _ := json.Marshal(v)
	if err := u.UnmarshalJSON(b); err != nil {
		panic(err) // the shapes above are the schema's
	}
	return u
}

// TurnCursor is the replayFrom type this agent adds to the schema's
// "start" (the schema reserves types beginning with "_" for an
// implementation's own): {"type":"_acpgen/turn","messageId":ID} replays
// from the start of the turn whose user message (or agent message) has id
// ID, inclusive, so a client that holds a session up to a turn asks only
// for what follows.
const TurnCursor = "_acpgen/turn"

// replayFrom is the sequence a resume replays from (0: no replay), or the
// -32602 the schema requires for a cursor the agent does not support.
func (c *connV2) replayFrom(ctx context.Context, id string, rf *acp2.ReplayFrom) (uint64, error) {
	switch {
	case rf == nil:
		return 0, nil
	case rf.Start != nil:
		return 1, nil
	case rf.Other != nil && rf.Other.Type == TurnCursor:
		var msg string
		raw, _ := rf.Other.Unknown.Get("messageId")
		json.Unmarshal(raw, &msg)
		if len(msg) > 1 && (msg[0] == 'u' || msg[0] == 'a') {
			if seq, err := strconv.ParseUint(msg[1:], 10, 64); err == nil && seq > 0 {
				evs, err := c.Store().Events(ctx, id, seq-1, 1)
				if err != nil {
					return 0, err
				}
				if len(evs) == 1 && evs[0].Seq == seq && evs[0].Kind == session.KindTurnStart {
					return seq, nil
				}
			}
		}
		return 0, acp2.NewInvalidParamsError(map[string]any{"pointer": "/replayFrom/messageId", "reason": "no turn of this session has that message id"})
	}
	return 0, acp2.NewInvalidParamsError(map[string]any{"pointer": "/replayFrom/type", "unsupported": rf.Kind()})
}

// SessionResume makes the caller's session current with the request's
// roots, replays the recorded messages from replayFrom ({"type":"start"}:
// all of them; TurnCursor: from a turn; none without replayFrom; another
// cursor is refused with -32602, as the schema requires), sends the
// session's current state, and answers. The answer's
// _meta["acp/turnState"] is v1's (TurnState).
func (c *connV2) SessionResume(ctx context.Context, p *acp2.ResumeSessionRequest) (*acp2.ResumeSessionResponse, error) {
	if _, err := c.own(ctx, string(p.SessionID), 2); err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	from, err := c.replayFrom(ctx, string(p.SessionID), p.ReplayFrom)
	if err != nil {
		return nil, err
	}
	s, err := c.Reopen(ctx, acphttp.PrincipalFrom(ctx), string(p.SessionID), string(p.Cwd), roots(p.AdditionalDirectories))
	if err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	if from > 0 {
		replay := session.Unrecorded(c.ctx)
		_, err := c.ReplayFrom(ctx, string(p.SessionID), from, func(_ uint64, raw json.RawMessage) error {
			var u acp2.SessionUpdate
			if err := u.UnmarshalJSON(raw); err != nil {
				return err
			}
			if u.StateUpdate != nil { // history, superseded by the current state below
				return nil
			}
			return c.conn.SessionUpdate(replay, &acp2.UpdateSessionNotification{SessionID: p.SessionID, Update: u})
		})
		if err != nil {
			return nil, err
		}
	}
	if s.Turn.State == session.TurnRunning && !c.Running(s.ID) {
		// The turn of this process Reopen saw has ended since: report how.
		if s, err = c.Store().Get(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	if err := c.conn.SessionUpdate(session.Unrecorded(c.ctx), &acp2.UpdateSessionNotification{SessionID: p.SessionID, Update: acp2.NewSessionUpdateStateUpdate(idle(s.Turn))}); err != nil {
		return nil, err
	}
	b, err := json.Marshal(TurnStateOf(s.Turn))
	return &acp2.ResumeSessionResponse{Meta: map[string]acp2.Raw{TurnStateKey: b}}, err
}

// SessionClose ends the session's running turn (its last updates and idle
// with stopReason cancelled are sent first) and keeps its record.
func (c *connV2) SessionClose(ctx context.Context, p *acp2.CloseSessionRequest) (*acp2.CloseSessionResponse, error) {
	if err := c.Close(ctx, acphttp.PrincipalFrom(ctx), string(p.SessionID)); err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	return &acp2.CloseSessionResponse{}, nil
}

// SessionDelete ends the session's running turn and removes it.
func (c *connV2) SessionDelete(ctx context.Context, p *acp2.DeleteSessionRequest) (*acp2.DeleteSessionResponse, error) {
	if err := c.Delete(ctx, acphttp.PrincipalFrom(ctx), string(p.SessionID)); err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	return &acp2.DeleteSessionResponse{}, nil
}

// SessionFork copies the session's record into a new session.
func (c *connV2) SessionFork(ctx context.Context, p *acp2.ForkSessionRequest) (*acp2.ForkSessionResponse, error) {
	if _, err := c.own(ctx, string(p.SessionID), 2); err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	id, err := c.Fork(ctx, string(p.SessionID), session.Info{Owner: acphttp.PrincipalFrom(ctx), Cwd: string(p.Cwd), AdditionalDirectories: roots(p.AdditionalDirectories), Meta: protocolMeta(2)})
	if err != nil {
		return nil, v2Err(p.SessionID, err)
	}
	return &acp2.ForkSessionResponse{SessionID: acp2.SessionID(id)}, nil
}

// SessionList lists the caller's sessions from the store, one page at a
// time.
func (c *connV2) SessionList(ctx context.Context, p *acp2.ListSessionsRequest) (*acp2.ListSessionsResponse, error) {
	q := session.Query{Cwd: (*string)(p.Cwd)}
	if p.Cursor != nil {
		q.Cursor = string(*p.Cursor)
	}
	page, err := c.List(ctx, acphttp.PrincipalFrom(ctx), q)
	if errors.Is(err, session.ErrBadCursor) {
		return nil, acp2.NewInvalidParamsError(map[string]any{"pointer": "/cursor"})
	}
	if err != nil {
		return nil, err
	}
	out := &acp2.ListSessionsResponse{Sessions: []acp2.SessionInfo{}}
	for _, s := range page.Sessions {
		updated := s.Updated.Format(time.RFC3339Nano)
		info := acp2.SessionInfo{SessionID: acp2.SessionID(s.ID), Cwd: acp2.AbsolutePath(s.Cwd), UpdatedAt: &updated}
		for _, d := range s.AdditionalDirectories {
			info.AdditionalDirectories = append(info.AdditionalDirectories, acp2.AbsolutePath(d))
		}
		if s.Title != "" {
			info.Title = &s.Title
		}
		out.Sessions = append(out.Sessions, info)
	}
	if page.NextCursor != "" {
		c := acp2.SessionListCursor(page.NextCursor)
		out.NextCursor = &c
	}
	return out, nil
}
