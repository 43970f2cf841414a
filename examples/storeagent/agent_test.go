package storeagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/session"
)

// client is a client connection that keeps what the agent sent, as
// "kind text" strings.
type client struct {
	acp.UnimplementedClientHandler
	conn    *acp.ClientConn
	mu      sync.Mutex
	updates []string
	hangup  func() // ends the connection, as a dropped socket does
}

func (c *client) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := p.Update; {
	case u.UserMessageChunk != nil:
		c.updates = append(c.updates, "user "+u.UserMessageChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil:
		c.updates = append(c.updates, "agent "+u.AgentMessageChunk.Content.Text.Text)
	}
}

func (c *client) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

var ctx = context.Background()

// connect opens an initialized client connection to a.
func connect(t *testing.T, a *storeagent.Agent) (*client, *acp.InitializeResponse) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	ac := a.Connect(ar, aw, slog.New(slog.DiscardHandler))
	c := &client{}
	c.conn = acp.NewClientConn(c, cr, cw, acp.ConnOptions{})
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ac.Run(runCtx) }()
	go func() { defer wg.Done(); c.conn.Run(runCtx) }()
	c.hangup = func() { stop(); cw.Close(); aw.Close(); wg.Wait() }
	t.Cleanup(c.hangup)
	res, err := c.conn.Initialize(ctx, &acp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

func newSession(t *testing.T, c *client) acp.SessionID {
	t.Helper()
	s, err := c.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionID
}

func prompt(t *testing.T, c *client, id acp.SessionID, text string) acp.StopReason {
	t.Helper()
	res, err := c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return res.StopReason
}

func turnState(t *testing.T, meta map[string]acp.Raw) storeagent.TurnState {
	t.Helper()
	var s storeagent.TurnState
	if err := json.Unmarshal(meta[storeagent.TurnStateKey], &s); err != nil {
		t.Fatalf("turn state %s: %v", meta[storeagent.TurnStateKey], err)
	}
	return s
}

// session/load on another connection replays the whole conversation from
// the store, in order, and reports the last turn idle; session/resume
// replays nothing.
func TestLoadReplaysFromStoreResumeDoesNot(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	first, _ := connect(t, a)
	id := newSession(t, first)
	prompt(t, first, id, "hello world")
	prompt(t, first, id, "again")
	sent := first.take()

	second, _ := connect(t, a)
	res, err := second.conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user hello world", "agent hello", "agent  world", "user again", "agent again"}
	if got := second.take(); !slices.Equal(got, want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	if !slices.Equal(sent, []string{"agent hello", "agent  world", "agent again"}) {
		t.Errorf("the first connection got %q", sent)
	}
	if s := turnState(t, res.Meta); s.State != "idle" || s.StopReason != "end_turn" {
		t.Errorf("turn state %+v", s)
	}

	third, _ := connect(t, a)
	if _, err := third.conn.SessionResume(ctx, &acp.ResumeSessionRequest{SessionID: id, Cwd: "/work"}); err != nil {
		t.Fatal(err)
	}
	if prompt(t, third, id, "more") != acp.StopReasonEndTurn {
		t.Error("a turn after resume did not end")
	}
	if got := third.take(); !slices.Equal(got, []string{"agent more"}) {
		t.Errorf("after resume: %q, want only the new turn", got)
	}
}

// A turn left running by a process that died is reported interrupted by
// the next load, and the session takes new turns.
func TestLoadEndsATurnADeadProcessLeft(t *testing.T) {
	st := session.NewMemory()
	dead := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connect(t, dead)
	id := newSession(t, c)
	if _, err := st.StartTurn(ctx, string(id), nil); err != nil { // the dead process's turn
		t.Fatal(err)
	}
	restarted := storeagent.New(st, slog.New(slog.DiscardHandler))
	c2, _ := connect(t, restarted)
	res, err := c2.conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s := turnState(t, res.Meta); s.State != "interrupted" || s.Reason != storeagent.InterruptedReason {
		t.Errorf("turn state %+v, want interrupted", s)
	}
	if prompt(t, c2, id, "next") != acp.StopReasonEndTurn {
		t.Error("the next turn did not run")
	}
}

// session/close ends the session's running turn (stopReason cancelled) and
// keeps its record; session/delete removes it.
func TestCloseCancelsTurnKeepsRecordDeleteRemoves(t *testing.T) {
	st := session.NewMemory()
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	id := newSession(t, c)
	done := make(chan *acp.PromptResponse, 1)
	go func() {
		r, _ := c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("wait")}})
		done <- r
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if s, err := st.Get(ctx, string(id)); err == nil && s.Turn.State == session.TurnRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not start")
		}
	}
	if _, err := c.conn.SessionClose(ctx, &acp.CloseSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r == nil || r.StopReason != acp.StopReasonCancelled {
			t.Errorf("turn ended %+v, want stopReason cancelled", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("session/close did not end the running turn")
	}
	list, err := c.conn.SessionList(ctx, &acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != id {
		t.Fatalf("list after close: %+v, %v", list, err)
	}
	_, err = c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("after")}})
	var closed *acp.RPCError
	if !errors.As(err, &closed) || closed.Code != -32602 {
		t.Errorf("prompt in a closed session: %v, want -32602", err)
	}
	if _, err := c.conn.SessionResume(ctx, &acp.ResumeSessionRequest{SessionID: id, Cwd: "/work"}); err != nil {
		t.Fatal(err)
	}
	if prompt(t, c, id, "reopened") != acp.StopReasonEndTurn {
		t.Error("a turn after resume reopened the session did not run")
	}
	if _, err := c.conn.SessionDelete(ctx, &acp.DeleteSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	var re *acp.RPCError
	if !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("load after delete: %v, want -32002", err)
	}
}

// Without a store (one that could not be opened) the agent advertises none
// of load, list, resume, close, delete and fork (additional directories,
// kept either way, stay advertised), and still serves prompts.
func TestNoStoreAdvertisesNoStoreMethods(t *testing.T) {
	a := storeagent.New(nil, slog.New(slog.DiscardHandler))
	c, res := connect(t, a)
	caps := res.AgentCapabilities
	if caps == nil || caps.LoadSession != nil && *caps.LoadSession {
		t.Errorf("capabilities %+v", caps)
	}
	if sc := caps.SessionCapabilities; sc == nil || sc.List != nil || sc.Resume != nil || sc.Close != nil || sc.Delete != nil || len(sc.Unknown) != 0 || sc.AdditionalDirectories == nil {
		t.Errorf("session capabilities %+v, want additionalDirectories alone", sc)
	}
	if prompt(t, c, newSession(t, c), "hi") != acp.StopReasonEndTurn {
		t.Error("prompt failed")
	}
}

// session/list pages through the caller's sessions with the store's cursor.
func TestListPages(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	want := map[acp.SessionID]bool{}
	for range session.DefaultPageSize + 5 {
		want[newSession(t, c)] = true
	}
	var cursor *string
	pages := 0
	for {
		l, err := c.conn.SessionList(ctx, &acp.ListSessionsRequest{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range l.Sessions {
			if !want[s.SessionID] || s.UpdatedAt == nil {
				t.Fatalf("listed %+v", s)
			}
			delete(want, s.SessionID)
		}
		if cursor = l.NextCursor; cursor == nil {
			break
		}
	}
	if len(want) != 0 || pages != 2 {
		t.Errorf("%d sessions not listed, %d pages", len(want), pages)
	}
}

// A v1 turn is its prompt request's: a connection that ends mid-turn
// cancels it, recorded with stopReason cancelled, which the next load
// reports.
func TestTurnEndsWithItsConnection(t *testing.T) {
	st := session.NewMemory()
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	id := newSession(t, c)
	go c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("wait")}})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if s, _ := st.Get(ctx, string(id)); s.Turn.State == session.TurnRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not start")
		}
	}
	c.hangup()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if s, _ := st.Get(ctx, string(id)); s.Turn.State != session.TurnRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn outlived its connection")
		}
	}
	c2, _ := connect(t, a)
	res, err := c2.conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: id, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s := turnState(t, res.Meta); s.State != "idle" || s.StopReason != "cancelled" {
		t.Errorf("turn state %+v, want idle cancelled", s)
	}
}
