// Package storeagent is an example v1 agent whose sessions live in a
// session store (runtime/session): they survive the connection, and with a
// durable store the process and the machine. store/examples/agent runs it
// with -store memory|sqlite:FILE|postgres://...
//
// Each prompt turn echoes the prompt's words as agent_message_chunk updates
// and ends with stopReason end_turn; the word "wait" holds the turn until
// session/cancel (then a last update "stopped", and stopReason cancelled).
// Every update the agent sends is recorded before it is written, with the
// prompt's text as user_message_chunk, so session/load replays the whole
// conversation: the connection writes behind (session.BatchRecorder), so
// the updates sent during one commit share the next, and a turn's end is
// recorded once its updates are. session/resume restores a
// session without replay; session/close cancels the session's running turn
// and keeps its record; session/delete removes it; session/list lists the
// caller's sessions from the store, in pages. Both answers carry the
// session's turn state in _meta["acp/turnState"] (see TurnState), so a
// client that lost a turn to a dead process learns how it ended.
package storeagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/session"
)

// TurnStateKey is the _meta member of the load and resume answers that
// says how the session's last turn stands.
const TurnStateKey = "acp/turnState"

// InterruptedReason is the reason recorded for a turn whose process died
// before it ended, found running by a later load or resume.
const InterruptedReason = "agent process ended during the turn"

// Agent holds what every connection of one process shares: the store and
// the turns this process runs.
type Agent struct {
	st      session.Store
	durable bool // st is the store New was given, not a stand-in
	log     *slog.Logger

	mu      sync.Mutex
	running map[string]*running // sessions with a turn in this process
}

// running is a turn of this process.
type running struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once its end is recorded
}

// New returns an agent over st, which it records into; a nil st (the store
// could not be opened) serves sessions in memory and advertises none of
// load, list, resume, close and delete.
func New(st session.Store, log *slog.Logger) *Agent {
	a := &Agent{st: st, durable: st != nil, log: log, running: map[string]*running{}}
	if st == nil {
		a.st = session.NewMemory()
	}
	return a
}

// Conn serves one connection.
type Conn struct {
	acp.UnimplementedAgentHandler
	*Agent
	conn *acp.AgentConn
}

// Connect makes a v1 agent connection over r (the client's output) and w.
func (a *Agent) Connect(r io.Reader, w io.Writer, log *slog.Logger) *acp.AgentConn {
	c := &Conn{Agent: a}
	rpc := acp.RPCOptions{Logger: log, Recorder: session.NewBatchRecorder(a.st)}
	c.conn = acp.NewAgentConn(c, r, w, acp.ConnOptions{RPC: rpc})
	return c.conn
}

func (c *Conn) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	caps := &acp.AgentCapabilities{}
	if c.durable {
		caps.LoadSession = new(true)
		caps.SessionCapabilities = &acp.SessionCapabilities{
			List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{},
			Close: &acp.SessionCloseCapabilities{}, Delete: &acp.SessionDeleteCapabilities{},
		}
	}
	return &acp.InitializeResponse{
		ProtocolVersion:   acp.CurrentProtocolVersion,
		AgentInfo:         &acp.Implementation{Name: "acpgen-store-agent", Version: "0.1.0"},
		AgentCapabilities: caps,
	}, nil
}

func (c *Conn) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	var b [16]byte
	rand.Read(b[:])
	id := "sess-" + hex.EncodeToString(b[:])
	info := session.Info{ID: id, Owner: acphttp.PrincipalFrom(ctx), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories}
	if _, err := c.st.Create(ctx, info); err != nil {
		return nil, err
	}
	return &acp.NewSessionResponse{SessionID: acp.SessionID(id)}, nil
}

// get returns the caller's session; another principal's is answered
// exactly as an unknown one.
func (c *Conn) get(ctx context.Context, id acp.SessionID) (session.Session, error) {
	s, err := c.st.Get(ctx, string(id))
	if errors.Is(err, session.ErrNotFound) || (err == nil && s.Owner != acphttp.PrincipalFrom(ctx)) {
		return session.Session{}, acp.NewResourceNotFoundError(map[string]any{"sessionId": id})
	}
	return s, err
}

func (c *Conn) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := c.get(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	id := string(p.SessionID)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := c.startTurn(ctx, s, cancel); err != nil {
		return nil, err
	}
	stop, err := c.turn(ctx, p)
	if ferr := jsonrpc.FlushFrom(context.WithoutCancel(ctx)); ferr != nil && stop != "" {
		// What the turn sent could not be recorded: the connection has
		// failed, and the turn did not end as the client saw.
		stop, err = "", ferr
	}
	c.endTurn(id, stop)
	if stop == "" {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReason(stop)}, nil
}

// startTurn records the turn's start in session s, as read before, and
// registers the turn in this process so close and delete can cancel it.
func (c *Conn) startTurn(ctx context.Context, s session.Session, cancel context.CancelCauseFunc) error {
	id := s.ID
	c.mu.Lock()
	busy := c.running[id] != nil
	if !busy {
		c.running[id] = &running{cancel, make(chan struct{})}
	}
	c.mu.Unlock()
	if busy {
		return acp.NewInvalidParamsError(map[string]any{"sessionId": id, "reason": "a turn is running in this session"})
	}
	var err error
	if s.Turn.State == session.TurnRunning {
		// Left running by a process that died (this process runs none),
		// or ended by one since s was read: ErrNoTurn.
		if _, err = c.st.InterruptTurn(ctx, id, InterruptedReason); errors.Is(err, session.ErrNoTurn) {
			err = nil
		}
	}
	if err == nil {
		_, err = c.st.StartTurn(ctx, id, nil)
	}
	if err != nil {
		c.forget(id)
	}
	return err
}

// turn runs the prompt and returns its stop reason ("" with err when it
// failed).
func (c *Conn) turn(ctx context.Context, p *acp.PromptRequest) (string, error) {
	var user []acp.SessionUpdate
	for _, b := range p.Prompt {
		if b.Text != nil {
			user = append(user, acp.UserMessageChunkText(b.Text.Text))
		}
	}
	for _, u := range user {
		// The prompt is the user's, recorded for load: in the log before the
		// turn's updates, committed with the first of them.
		params, err := json.Marshal(&acp.SessionNotification{SessionID: p.SessionID, Update: u})
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

// endTurn records how the turn ended ("": it failed, recorded as
// interrupted) and forgets it. The store is written on a context of its
// own: the turn's may have ended.
func (c *Conn) endTurn(id, stop string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if stop != "" {
		_, err = c.st.EndTurn(ctx, id, stop)
	} else {
		_, err = c.st.InterruptTurn(ctx, id, "turn failed")
	}
	if err != nil && !errors.Is(err, session.ErrNoTurn) {
		c.log.Warn("recording the turn's end failed", "sessionId", id, "err", err)
	}
	c.forget(id)
}

func (c *Conn) forget(id string) {
	c.mu.Lock()
	if r := c.running[id]; r != nil {
		close(r.done)
	}
	delete(c.running, id)
	c.mu.Unlock()
}

// cancelRunning cancels the session's turn in this process, if any, and
// waits until its end is recorded (or ctx ends): the turn's last updates
// are recorded before the session is closed or deleted.
func (c *Conn) cancelRunning(ctx context.Context, id string, why error) error {
	c.mu.Lock()
	r := c.running[id]
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	r.cancel(why)
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Conn) SessionCancel(ctx context.Context, p *acp.CancelNotification) {
	// The runtime has cancelled the turn's context (dispatch.Turn).
}

// reopen makes the caller's session current with the request's roots
// (never the stored ones: roots are not carried over) and ends a turn a dead
// process left running. It returns the session's turn state.
func (c *Conn) reopen(ctx context.Context, id acp.SessionID, cwd string, dirs []string) (map[string]acp.Raw, error) {
	if _, err := c.get(ctx, id); err != nil {
		return nil, err
	}
	if dirs == nil {
		dirs = []string{}
	}
	s, err := c.st.Update(ctx, string(id), session.Change{Cwd: &cwd, AdditionalDirectories: dirs, Reopen: true})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	here := c.running[string(id)] != nil
	c.mu.Unlock()
	if s.Turn.State == session.TurnRunning && !here {
		if _, err := c.st.InterruptTurn(ctx, string(id), InterruptedReason); err != nil && !errors.Is(err, session.ErrNoTurn) {
			return nil, err
		}
		if s, err = c.st.Get(ctx, string(id)); err != nil {
			return nil, err
		}
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
	n, err := session.Replay(ctx, c.st, string(p.SessionID), func(raw json.RawMessage) error {
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

// errClosed ends a turn whose session was closed or deleted.
var errClosed = errors.New("session closed")

// SessionClose cancels the session's running turn and keeps its record.
func (c *Conn) SessionClose(ctx context.Context, p *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	if _, err := c.get(ctx, p.SessionID); err != nil {
		return nil, err
	}
	if err := c.cancelRunning(ctx, string(p.SessionID), errClosed); err != nil {
		return nil, err
	}
	if _, err := c.st.CloseSession(ctx, string(p.SessionID)); err != nil {
		return nil, err
	}
	return &acp.CloseSessionResponse{}, nil
}

// SessionDelete cancels the session's running turn and removes it.
func (c *Conn) SessionDelete(ctx context.Context, p *acp.DeleteSessionRequest) (*acp.DeleteSessionResponse, error) {
	if _, err := c.get(ctx, p.SessionID); err != nil {
		return nil, err
	}
	if err := c.cancelRunning(ctx, string(p.SessionID), errClosed); err != nil {
		return nil, err
	}
	if err := c.st.Delete(ctx, string(p.SessionID)); err != nil {
		return nil, err
	}
	return &acp.DeleteSessionResponse{}, nil
}

// SessionList lists the caller's sessions from the store, one page at a
// time.
func (c *Conn) SessionList(ctx context.Context, p *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	q := session.Query{Owner: acphttp.PrincipalFrom(ctx), Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories}
	if p.Cursor != nil {
		q.Cursor = *p.Cursor
	}
	page, err := c.st.List(ctx, q)
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

// TurnState is the value of _meta["acp/turnState"] on the load and resume
// answers: State "none" (no turn yet), "running" (a turn of this process),
// "idle" (ended, with StopReason) or "interrupted" (its process ended
// before it did, with Reason).
type TurnState struct {
	State      string `json:"state"`
	StopReason string `json:"stopReason,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// TurnStateOf is the turn state of a stored turn.
func TurnStateOf(t session.Turn) TurnState {
	switch t.State {
	case session.TurnRunning:
		return TurnState{State: "running"}
	case session.TurnEnded:
		return TurnState{State: "idle", StopReason: t.Reason}
	case session.TurnInterrupted:
		return TurnState{State: "interrupted", Reason: t.Reason}
	}
	return TurnState{State: "none"}
}
