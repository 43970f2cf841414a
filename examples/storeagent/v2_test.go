package storeagent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/wire"
)

// clientV2 is a v2 client connection that keeps what the agent sent, as
// "user TEXT@ID", "agent TEXT@ID" and "state STATE [STOPREASON [CODE]]".
type clientV2 struct {
	acp2.UnimplementedClientHandler
	conn    *acp2.ClientConn
	mu      sync.Mutex
	updates []string
	idle    chan string // the stop reason of each idle state_update
	hangup  func()      // ends the connection, as a dropped socket does
}

func (c *clientV2) SessionUpdate(_ context.Context, p *acp2.UpdateSessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := p.Update; {
	case u.UserMessage != nil:
		c.updates = append(c.updates, fmt.Sprintf("user %s@%s", u.UserMessage.Content[0].Text.Text, u.UserMessage.MessageID))
	case u.AgentMessageChunk != nil:
		c.updates = append(c.updates, fmt.Sprintf("agent %s@%s", u.AgentMessageChunk.Content.Text.Text, u.AgentMessageChunk.MessageID))
	case u.StateUpdate != nil:
		c.updates = append(c.updates, stateString(*u.StateUpdate))
		if u.StateUpdate.Idle != nil {
			select {
			case c.idle <- stateString(*u.StateUpdate):
			default:
			}
		}
	}
}

func stateString(s acp2.StateUpdate) string {
	switch {
	case s.Running != nil:
		return "state running"
	case s.Idle != nil:
		r := s.Idle.StopReason
		switch {
		case r.None != nil:
			return "state idle"
		case r.Error != nil && r.Error.Error != nil:
			return fmt.Sprintf("state idle error %d", r.Error.Error.Code)
		case r.EndTurn != nil:
			return "state idle end_turn"
		case r.Cancelled != nil:
			return "state idle cancelled"
		}
		return "state idle ?"
	}
	return "state ?"
}

func (c *clientV2) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

// connectV2 opens an initialized v2 client connection to a, through the
// agent's version router.
func connectV2(t *testing.T, a *storeagent.Agent) (*clientV2, *acp2.InitializeResponse) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	c := &clientV2{idle: make(chan string, 16)}
	c.conn = acp2.NewClientConn(c, cr, cw, acp2.ConnOptions{})
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Serve(runCtx, ar, aw, slog.New(slog.DiscardHandler)) }()
	go func() { defer wg.Done(); c.conn.Run(runCtx) }()
	c.hangup = func() { stop(); cw.Close(); aw.Close(); wg.Wait() }
	t.Cleanup(c.hangup)
	res, err := c.conn.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

func newSessionV2(t *testing.T, c *clientV2) acp2.SessionID {
	t.Helper()
	s, err := c.conn.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionID
}

// promptV2 sends a prompt and waits for the turn's idle state_update.
func promptV2(t *testing.T, c *clientV2, id acp2.SessionID, text string) (acp2.MessageID, string) {
	t.Helper()
	for len(c.idle) > 0 { // a resume's snapshot, sent before its answer
		<-c.idle
	}
	res, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-c.idle:
		return res.MessageID, s
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end")
	}
	return "", ""
}

var startCursor = &acp2.ReplayFrom{Start: &acp2.ReplayFromStart{}}

// v2 session/resume with replayFrom start, on another connection, replays
// every recorded message (the agent's and the user's, with their message
// ids), then sends the current state, then answers; without replayFrom it
// sends only the state; a cursor type the agent does not know is -32602.
func TestV2ResumeReplaysThenStateThenAnswers(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	first, _ := connectV2(t, a)
	id := newSessionV2(t, first)
	u1, stop := promptV2(t, first, id, "hello world")
	if stop != "state idle end_turn" {
		t.Fatalf("first turn: %s", stop)
	}
	u2, _ := promptV2(t, first, id, "again")
	if u1 == u2 {
		t.Fatalf("two turns share the message id %s", u1)
	}
	sent := first.take()

	second, _ := connectV2(t, a)
	if _, err := second.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: startCursor}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, u := range sent {
		if u != "state running" && u != "state idle end_turn" {
			want = append(want, u)
		}
	}
	want = append(want, "state idle end_turn")
	if got := second.take(); !slices.Equal(got, want) {
		t.Errorf("resume with replayFrom sent %q, want %q", got, want)
	}
	if len(want) != 6 {
		t.Errorf("the turns sent %q", sent)
	}

	third, _ := connectV2(t, a)
	if _, err := third.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work"}); err != nil {
		t.Fatal(err)
	}
	if got := third.take(); !slices.Equal(got, []string{"state idle end_turn"}) {
		t.Errorf("resume without replayFrom sent %q, want only the state", got)
	}
	_, err := third.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: &acp2.ReplayFrom{Other: &acp2.ReplayFromOther{Type: "_acpgen/nowhere"}}})
	var re *acp2.RPCError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("unknown cursor type: %v, want -32602", err)
	}
}

// A turn left running by a process that died ends explicitly on resume:
// idle with stopReason error (storeagent.InterruptedCode), and
// _meta["acp/turnState"] interrupted; the next prompt runs.
func TestV2ResumeEndsATurnADeadProcessLeft(t *testing.T) {
	st := session.NewMemory()
	dead := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connectV2(t, dead)
	id := newSessionV2(t, c)
	if _, err := st.StartTurn(ctx, string(id), nil); err != nil { // the dead process's turn
		t.Fatal(err)
	}
	c2, _ := connectV2(t, storeagent.New(st, slog.New(slog.DiscardHandler)))
	res, err := c2.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: startCursor})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("state idle error %d", storeagent.InterruptedCode)
	if got := c2.take(); !slices.Equal(got, []string{want}) {
		t.Errorf("resume sent %q, want %q", got, want)
	}
	if s := turnState(t, res.Meta); s.State != "interrupted" || s.Reason != storeagent.InterruptedReason {
		t.Errorf("turn state %+v", s)
	}
	if _, stop := promptV2(t, c2, id, "next"); stop != "state idle end_turn" {
		t.Errorf("the next turn: %s", stop)
	}
}

// v2 session/close ends the running turn, sending its idle with stopReason
// cancelled before the close answer, and keeps the record; delete removes
// it.
func TestV2CloseEndsTurnBeforeAnswering(t *testing.T) {
	st := &getSignal{Store: session.NewMemory()}
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connectV2(t, a)
	id := newSessionV2(t, c)
	if _, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("one wait")}}); err != nil {
		t.Fatal(err)
	}
	// A second prompt, read while the session is open and not inserted
	// (held behind the turn, or reaching it during the close), is answered
	// -32800 once the close ends it.
	got := st.arm(string(id))
	heldErr := make(chan error, 1)
	go func() {
		_, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("held")}})
		heldErr <- err
	}()
	<-got // the agent has found the session open for it
	if _, err := c.conn.SessionClose(ctx, &acp2.CloseSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	sent := c.take()
	if len(sent) < 2 || sent[len(sent)-1] != "state idle cancelled" {
		t.Errorf("before the close answer: %q, want the turn's idle cancelled last", sent)
	}
	var re *acp2.RPCError
	if err := <-heldErr; !errors.As(err, &re) || re.Code != -32800 {
		t.Errorf("the prompt pending when the session closed: %v, want -32800", err)
	}
	l, err := c.conn.SessionList(ctx, &acp2.ListSessionsRequest{})
	if err != nil || len(l.Sessions) != 1 || l.Sessions[0].SessionID != id {
		t.Fatalf("list after close: %+v, %v", l, err)
	}
	_, err = c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("after")}})
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("prompt in a closed session: %v, want -32602", err)
	}
	if _, err := c.conn.SessionDelete(ctx, &acp2.DeleteSessionRequest{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	_, err = c.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work"})
	if !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("resume after delete: %v, want -32002", err)
	}
}

// session/fork (v2 unstable) copies the record: resuming the fork replays
// the original's conversation; the fork's turns stay out of the original.
func TestV2ForkCopiesRecord(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, res := connectV2(t, a)
	if res.Capabilities.Session.Fork == nil || res.Capabilities.Session.Delete == nil {
		t.Fatalf("capabilities %+v", res.Capabilities.Session)
	}
	id := newSessionV2(t, c)
	promptV2(t, c, id, "original")
	f, err := c.conn.SessionFork(ctx, &acp2.ForkSessionRequest{SessionID: id, Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	promptV2(t, c, f.SessionID, "forked")
	c.take()
	if _, err := c.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: startCursor}); err != nil {
		t.Fatal(err)
	}
	orig := c.take()
	if _, err := c.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: f.SessionID, Cwd: "/work", ReplayFrom: startCursor}); err != nil {
		t.Fatal(err)
	}
	fork := c.take()
	if len(orig) != 3 || len(fork) != 5 || !slices.Equal(fork[:2], orig[:2]) {
		t.Errorf("original replays %q, fork %q", orig, fork)
	}
}

// Without a store v2 still grants its baseline session methods (in memory)
// but neither delete nor fork.
func TestV2NoStoreAdvertisesNoStoreMethods(t *testing.T) {
	c, res := connectV2(t, storeagent.New(nil, slog.New(slog.DiscardHandler)))
	s := res.Capabilities.Session
	if s == nil || s.Delete != nil || s.Fork != nil || s.AdditionalDirectories == nil {
		t.Errorf("session capabilities %+v", s)
	}
	if _, stop := promptV2(t, c, newSessionV2(t, c), "hi"); stop != "state idle end_turn" {
		t.Errorf("prompt: %s", stop)
	}
}

// A connection that ends mid-turn ends the turn with it (turns outlive the
// prompt request, not the connection): a later resume reports it idle with
// stopReason error and _meta["acp/turnState"] interrupted, "connection
// ended during the turn".
func TestV2TurnEndsWithItsConnection(t *testing.T) {
	st := session.NewMemory()
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connectV2(t, a)
	id := newSessionV2(t, c)
	if _, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("one wait")}}); err != nil {
		t.Fatal(err)
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
	c2, _ := connectV2(t, a)
	res, err := c2.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("state idle error %d", storeagent.InterruptedCode)
	if got := c2.take(); !slices.Equal(got, []string{want}) {
		t.Errorf("resume sent %q, want %q", got, want)
	}
	if s := turnState(t, res.Meta); s.State != "interrupted" || s.Reason != "connection ended during the turn" {
		t.Errorf("turn state %+v", s)
	}
}

// replayFrom {"type":"_acpgen/turn","messageId":ID} replays from the start
// of the turn that message belongs to, inclusive; an id no turn of the
// session has (a sequence that is not a turn's start included) is -32602.
func TestV2ResumeFromATurn(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, _ := connectV2(t, a)
	id := newSessionV2(t, c)
	promptV2(t, c, id, "first")
	second, _ := promptV2(t, c, id, "second turn")
	c.take()
	cursor := func(msg string) *acp2.ReplayFrom {
		var f wire.Fields
		f.Set("messageId", wire.Raw(strconv.Quote(msg)))
		return &acp2.ReplayFrom{Other: &acp2.ReplayFromOther{Type: storeagent.TurnCursor, Unknown: f}}
	}
	agentID := "a" + strings.TrimPrefix(string(second), "u")
	for _, from := range []string{string(second), agentID} {
		if _, err := c.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: cursor(from)}); err != nil {
			t.Fatal(err)
		}
		want := []string{"user second turn@" + string(second), "agent second@" + agentID, "agent  turn@" + agentID, "state idle end_turn"}
		if got := c.take(); !slices.Equal(got, want) {
			t.Errorf("from %s: %q, want %q", from, got, want)
		}
	}
	for _, bad := range []string{"u999", "x1", "u", "a3", strings.Replace(string(second), "u", "u0", 1) + "1"} {
		_, err := c.conn.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id, Cwd: "/work", ReplayFrom: cursor(bad)})
		var re *acp2.RPCError
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("from %q: %v, want -32602", bad, err)
		}
	}
	if got := c.take(); len(got) != 0 {
		t.Errorf("refused resumes sent %q", got)
	}
}

// getSignal is a Store that, once armed, reports the Gets of one session.
type getSignal struct {
	session.Store
	mu  sync.Mutex
	id  string
	got chan struct{}
}

func (s *getSignal) arm(id string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id, s.got = id, make(chan struct{}, 1)
	return s.got
}

func (s *getSignal) Get(ctx context.Context, id string) (session.Session, error) {
	r, err := s.Store.Get(ctx, id)
	s.mu.Lock()
	if s.got != nil && id == s.id {
		select {
		case s.got <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	return r, err
}
