package storeagent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/session"
)

// Conn serves one v1 connection.
type Conn struct {
	acp.UnimplementedAgentHandler
	*Agent
	log  *slog.Logger
	conn *acp.AgentConn
}

// Connect makes a v1 agent connection over r (the client's output) and w.
func (a *Agent) Connect(r io.Reader, w io.Writer, log *slog.Logger) *acp.AgentConn {
	c := &Conn{Agent: a, log: log}
	rpc := acp.RPCOptions{Logger: log, Recorder: session.NewBatchRecorder(a.Store())}
	c.conn = acp.NewAgentConn(c, r, w, acp.ConnOptions{RPC: rpc})
	return c.conn
}

func (c *Conn) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	// A session's additional directories are kept with it, in the store or
	// in memory (the dispatcher refuses relative, empty and null ones).
	sc := &acp.SessionCapabilities{AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{}}
	caps := &acp.AgentCapabilities{SessionCapabilities: sc}
	if c.Durable() {
		caps.LoadSession = new(true)
		sc.List, sc.Resume = &acp.SessionListCapabilities{}, &acp.SessionResumeCapabilities{}
		sc.Close, sc.Delete = &acp.SessionCloseCapabilities{}, &acp.SessionDeleteCapabilities{}
		sc.Fork = &acp.SessionForkCapabilities{}
	}
	return &acp.InitializeResponse{
		ProtocolVersion:   acp.CurrentProtocolVersion,
		AgentInfo:         &acp.Implementation{Name: "acpgen-store-agent", Version: "0.1.0"},
		AgentCapabilities: caps,
	}, nil
}

// v1Err turns a Host's error into the protocol's: an unknown session (or
// another principal's) is -32002 resource not found.
func v1Err(id acp.SessionID, err error) error {
	switch {
	case errors.Is(err, session.ErrNotFound):
		return acp.NewResourceNotFoundError(map[string]any{"sessionId": id})
	case errors.As(err, new(*VersionError)):
		return acp.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": err.Error()})
	case errors.Is(err, session.ErrClosed):
		return acp.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": "the session is closed: session/load or session/resume reopens it"})
	case errors.Is(err, session.ErrTurnRunning):
		return acp.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": "a turn is running in this session"})
	}
	return err
}

func (c *Conn) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	id, err := c.New(ctx, session.Info{Owner: acphttp.PrincipalFrom(ctx), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories, Meta: protocolMeta(1)})
	if err != nil {
		return nil, err
	}
	return &acp.NewSessionResponse{SessionID: acp.SessionID(id)}, nil
}

func (c *Conn) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	id := string(p.SessionID)
	if _, err := c.own(ctx, id, 1); err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if _, _, err := c.StartTurn(ctx, id, nil, cancel); err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	stop, err := c.turn(ctx, p)
	if ferr := jsonrpc.FlushFrom(context.WithoutCancel(ctx)); ferr != nil && stop != "" {
		// What the turn sent could not be recorded: the connection has
		// failed, and the turn did not end as the client saw.
		stop, err = "", ferr
	}
	if err := c.EndTurn(id, stop, "turn failed"); err != nil {
		c.log.Warn("recording the turn's end failed", "sessionId", id, "err", err)
	}
	if stop == "" {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReason(stop)}, nil
}

// turn runs the prompt and returns its stop reason ("" with err when it
// failed).
func (c *Conn) turn(ctx context.Context, p *acp.PromptRequest) (string, error) {
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		// The prompt is the user's, recorded for load: in the log before the
		// turn's updates, committed with the first of them.
		params, err := json.Marshal(&acp.SessionNotification{SessionID: p.SessionID, Update: acp.UserMessageChunkText(b.Text.Text)})
		if err == nil {
			err = jsonrpc.RecordFrom(ctx, session.UpdateMethod, params)
		}
		if err != nil {
			return "", err
		}
	}
	sep := ""
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		for _, w := range strings.Fields(b.Text.Text) {
			if w == "wait" {
				<-ctx.Done()
				// The turn's last update, written although its context
				// ended (see dispatch.End.Notify).
				_ = c.say(ctx, p.SessionID, sep+"stopped")
			}
			if ctx.Err() != nil {
				return string(acp.StopReasonCancelled), nil
			}
			if err := c.say(ctx, p.SessionID, sep+w); err != nil {
				return "", err
			}
			sep = " "
		}
	}
	return string(acp.StopReasonEndTurn), nil
}

func (c *Conn) say(ctx context.Context, id acp.SessionID, text string) error {
	return c.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: id, Update: acp.AgentMessageChunkText(text)})
}

func (c *Conn) SessionCancel(ctx context.Context, p *acp.CancelNotification) {
	// The runtime has cancelled the turn's context (dispatch.Turn).
}

// reopen makes the caller's session current with the request's roots and
// returns its turn state as the answer's _meta.
func (c *Conn) reopen(ctx context.Context, id acp.SessionID, cwd string, dirs []string) (map[string]acp.Raw, error) {
	if _, err := c.own(ctx, string(id), 1); err != nil {
		return nil, v1Err(id, err)
	}
	s, err := c.Reopen(ctx, acphttp.PrincipalFrom(ctx), string(id), cwd, dirs)
	if err != nil {
		return nil, v1Err(id, err)
	}
	b, err := json.Marshal(TurnStateOf(s.Turn))
	return map[string]acp.Raw{TurnStateKey: b}, err
}

// SessionLoad replays the recorded conversation, then answers.
func (c *Conn) SessionLoad(ctx context.Context, p *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	meta, err := c.reopen(ctx, p.SessionID, p.Cwd, p.AdditionalDirectories)
	if err != nil {
		return nil, err
	}
	replay := session.Unrecorded(ctx)
	n, err := c.ReplayFrom(ctx, string(p.SessionID), 0, func(_ uint64, raw json.RawMessage) error {
		var u acp.SessionUpdate
		if err := u.UnmarshalJSON(raw); err != nil {
			return err
		}
		return c.conn.SessionUpdate(replay, &acp.SessionNotification{SessionID: p.SessionID, Update: u})
	})
	if err != nil {
		return nil, err
	}
	c.log.Info("session loaded", "sessionId", p.SessionID, "replayed", n)
	return &acp.LoadSessionResponse{Meta: meta}, nil
}

// SessionResume restores the session without replay.
func (c *Conn) SessionResume(ctx context.Context, p *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	meta, err := c.reopen(ctx, p.SessionID, p.Cwd, p.AdditionalDirectories)
	if err != nil {
		return nil, err
	}
	return &acp.ResumeSessionResponse{Meta: meta}, nil
}

// SessionClose cancels the session's running turn and keeps its record.
func (c *Conn) SessionClose(ctx context.Context, p *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	if err := c.Close(ctx, acphttp.PrincipalFrom(ctx), string(p.SessionID)); err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	return &acp.CloseSessionResponse{}, nil
}

// SessionDelete cancels the session's running turn and removes it.
func (c *Conn) SessionDelete(ctx context.Context, p *acp.DeleteSessionRequest) (*acp.DeleteSessionResponse, error) {
	if err := c.Delete(ctx, acphttp.PrincipalFrom(ctx), string(p.SessionID)); err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	return &acp.DeleteSessionResponse{}, nil
}

// SessionFork copies the session's record into a new session.
func (c *Conn) SessionFork(ctx context.Context, p *acp.ForkSessionRequest) (*acp.ForkSessionResponse, error) {
	if _, err := c.own(ctx, string(p.SessionID), 1); err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	id, err := c.Fork(ctx, string(p.SessionID), session.Info{Owner: acphttp.PrincipalFrom(ctx), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories, Meta: protocolMeta(1)})
	if err != nil {
		return nil, v1Err(p.SessionID, err)
	}
	return &acp.ForkSessionResponse{SessionID: acp.SessionID(id)}, nil
}

// SessionList lists the caller's sessions from the store, one page at a
// time.
func (c *Conn) SessionList(ctx context.Context, p *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	q := session.Query{Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories}
	if p.Cursor != nil {
		q.Cursor = *p.Cursor
	}
	page, err := c.List(ctx, acphttp.PrincipalFrom(ctx), q)
	if errors.Is(err, session.ErrBadCursor) {
		return nil, acp.NewInvalidParamsError(map[string]any{"pointer": "/cursor"})
	}
	if err != nil {
		return nil, err
	}
	out := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, s := range page.Sessions {
		updated := s.Updated.Format(time.RFC3339Nano)
		info := acp.SessionInfo{SessionID: acp.SessionID(s.ID), Cwd: s.Cwd, AdditionalDirectories: s.AdditionalDirectories, UpdatedAt: &updated}
		if s.Title != "" {
			info.Title = &s.Title
		}
		out.Sessions = append(out.Sessions, info)
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	return out, nil
}
