package storeagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/session"
	"io"
)

// callCounter counts the store calls a turn makes.
type callCounter struct {
	session.Store
	mu    sync.Mutex
	calls map[string]int
}

func (c *callCounter) count(name string) {
	c.mu.Lock()
	c.calls[name]++
	c.mu.Unlock()
}

func (c *callCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.calls
	c.calls = map[string]int{}
	return m
}

func (c *callCounter) Get(ctx context.Context, id string) (session.Session, error) {
	c.count("Get")
	return c.Store.Get(ctx, id)
}

func (c *callCounter) StartTurn(ctx context.Context, id string, data json.RawMessage) (uint64, error) {
	c.count("StartTurn")
	return c.Store.StartTurn(ctx, id, data)
}

func (c *callCounter) EndTurn(ctx context.Context, id, stop string) (uint64, error) {
	c.count("EndTurn")
	return c.Store.EndTurn(ctx, id, stop)
}

func (c *callCounter) InterruptTurn(ctx context.Context, id, why string) (uint64, error) {
	c.count("InterruptTurn")
	return c.Store.InterruptTurn(ctx, id, why)
}

func (c *callCounter) Append(ctx context.Context, id string, evs ...session.Event) (uint64, error) {
	c.count("Append")
	return c.Store.Append(ctx, id, evs...)
}

func (c *callCounter) AppendBatch(ctx context.Context, id string, b session.Batch) (uint64, error) {
	c.count("AppendBatch")
	return c.Store.AppendBatch(ctx, id, b)
}

func logKinds(t *testing.T, st session.Store, id acp.SessionID) string {
	t.Helper()
	evs, err := st.Events(ctx, string(id), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind.String())
	}
	return strings.Join(kinds, " ")
}

// A v1 turn of a session this process knows writes its start and end with
// its updates (AppendBatch, never StartTurn or EndTurn) and reads nothing;
// the log holds the start, the prompt, the updates and the end, in order.
func TestV1TurnRecordsItsMarksWithItsUpdates(t *testing.T) {
	st := &callCounter{Store: session.NewMemory(), calls: map[string]int{}}
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	id := newSession(t, c)
	st.take()
	if stop := prompt(t, c, id, "one two three"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %s", stop)
	}
	calls := st.take()
	for _, m := range []string{"Get", "StartTurn", "EndTurn", "InterruptTurn"} {
		if calls[m] != 0 {
			t.Errorf("the turn called %s %d times: %v", m, calls[m], calls)
		}
	}
	if calls["AppendBatch"] == 0 {
		t.Errorf("the turn recorded its marks without AppendBatch: %v", calls)
	}
	if got, want := logKinds(t, st, id), "turn_start update update update update turn_end"; got != want {
		t.Errorf("log %s, want %s", got, want)
	}
	if s, _ := st.Get(ctx, string(id)); s.Turn.State != session.TurnEnded || s.Turn.Reason != "end_turn" || s.Turn.Start != 1 {
		t.Errorf("turn %+v", s.Turn)
	}
	// A session this process has not seen (another agent made it, or a
	// restart): one read, then none.
	st.take()
	b := storeagent.New(st, slog.New(slog.DiscardHandler))
	c2, _ := connect(t, b)
	prompt(t, c2, id, "four")
	prompt(t, c2, id, "five")
	if calls := st.take(); calls["Get"] != 1 || calls["StartTurn"]+calls["EndTurn"] != 0 {
		t.Errorf("two turns of a session the process had not seen: %v, want one Get", calls)
	}
}

// A session another process closed behind this one's back: the turn's first
// batch is refused, which ends the connection (as any record failure does)
// and records the turn nowhere; the next connection's prompt reads the
// session and is answered as for a closed session (-32602).
func TestV1TurnOnASessionClosedElsewhere(t *testing.T) {
	st := session.NewMemory()
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	c := connectEnding(t, a)
	id := newSession(t, c)
	prompt(t, c, id, "before")
	if _, err := st.CloseSession(ctx, string(id)); err != nil { // another process's close
		t.Fatal(err)
	}
	if _, err := c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("after")}}); err == nil {
		t.Fatal("a prompt on a session closed elsewhere succeeded")
	}
	if got := c.take(); len(got) != 1 || got[0] != "agent before" {
		t.Errorf("the client got %q: an update of the refused turn reached it", got)
	}
	c2, _ := connect(t, a)
	_, err := c2.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id, Prompt: []acp.ContentBlock{acp.TextBlock("again")}})
	var rpcErr *acp.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || !strings.Contains(dataString(rpcErr.Data), "closed") {
		t.Errorf("the next prompt: %v, want -32602 naming the closed session", err)
	}
	if got, want := logKinds(t, st, id), "turn_start update update turn_end"; got != want {
		t.Errorf("log %s, want %s (the refused turn recorded nothing)", got, want)
	}
}

// connectEnding is connect for a connection the agent may end: its output
// closes when it does, as a process's stdout does when it exits, so the
// client sees the end.
func connectEnding(t *testing.T, a *storeagent.Agent) *client {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	ac := a.Connect(ar, aw, slog.New(slog.DiscardHandler))
	c := &client{}
	c.conn = acp.NewClientConn(c, cr, cw, acp.ConnOptions{})
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { ac.Run(runCtx); aw.Close() })
	wg.Go(func() { c.conn.Run(runCtx); cw.Close() })
	t.Cleanup(func() { stop(); cw.Close(); aw.Close(); wg.Wait() })
	if _, err := c.conn.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return c
}
