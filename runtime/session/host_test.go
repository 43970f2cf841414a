package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/session"
)

// Every Host method that names a session answers another owner's exactly
// as an unknown one (ErrNotFound) and leaves it as it was.
func TestHostHidesOtherOwnersSessions(t *testing.T) {
	ctx := context.Background()
	h := session.NewHost(session.NewMemory())
	id, err := h.New(ctx, session.Info{Owner: "alice", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Get":    func() error { _, err := h.Get(ctx, "bob", id); return err },
		"Reopen": func() error { _, err := h.Reopen(ctx, "bob", id, "/x", nil); return err },
		"Fork":   func() error { _, err := h.Fork(ctx, id, session.Info{Owner: "bob", Cwd: "/x"}); return err },
		"Close":  func() error { return h.Close(ctx, "bob", id) },
		"Delete": func() error { return h.Delete(ctx, "bob", id) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("%s of another owner's session: %v, want ErrNotFound", name, err)
		}
	}
	s, err := h.Get(ctx, "alice", id)
	if err != nil || s.Closed || s.Cwd != "/w" {
		t.Errorf("the owner's session: %+v, %v", s, err)
	}
	if p, err := h.List(ctx, "bob", session.Query{Owner: "alice"}); err != nil || len(p.Sessions) != 0 {
		t.Errorf("bob lists %+v, %v", p, err)
	}
}

// ReplayFrom's cursor is inclusive and it sends only updates, in order.
func TestHostReplayFromInclusive(t *testing.T) {
	ctx := context.Background()
	h := session.NewHost(session.NewMemory())
	id, _ := h.New(ctx, session.Info{Cwd: "/w"})
	st := h.Store()
	st.StartTurn(ctx, id, nil) // seq 1
	for _, u := range []string{`"a"`, `"b"`, `"c"`} {
		st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: json.RawMessage(u)}) // 2, 3, 4
	}
	st.EndTurn(ctx, id, "end_turn") // 5
	for _, tc := range []struct {
		from uint64
		want []string
	}{{0, []string{"2 a", "3 b", "4 c"}}, {1, []string{"2 a", "3 b", "4 c"}}, {3, []string{"3 b", "4 c"}}, {5, nil}} {
		var got []string
		n, err := h.ReplayFrom(ctx, id, tc.from, func(seq uint64, u json.RawMessage) error {
			var s string
			json.Unmarshal(u, &s)
			got = append(got, string(rune('0'+seq))+" "+s)
			return nil
		})
		if err != nil || n != len(tc.want) || !slices.Equal(got, tc.want) {
			t.Errorf("from %d: %q (%d, %v), want %q", tc.from, got, n, err, tc.want)
		}
	}
}

// A prompt while this process runs the session's turn learns when it ends;
// Close cancels the turn with ErrSessionClosed, lets no turn start while it
// runs, and answers only after the turn has ended; Reopen interrupts a turn
// no process runs.
func TestHostTurns(t *testing.T) {
	ctx := context.Background()
	h := session.NewHost(session.NewMemory())
	id, _ := h.New(ctx, session.Info{Owner: "o", Cwd: "/w"})
	tctx, cancel := context.WithCancelCause(ctx)
	if _, _, err := h.StartTurn(ctx, id, nil, cancel); err != nil {
		t.Fatal(err)
	}
	_, busy, err := h.StartTurn(ctx, id, nil, func(error) {})
	if !errors.Is(err, session.ErrTurnRunning) || busy == nil {
		t.Fatalf("a second turn: %v", err)
	}
	ended := make(chan struct{})
	go func() {
		<-tctx.Done()
		if !errors.Is(context.Cause(tctx), session.ErrSessionClosed) {
			t.Errorf("turn cancelled by %v", context.Cause(tctx))
		}
		if _, _, err := h.StartTurn(ctx, id, nil, func(error) {}); !errors.Is(err, session.ErrClosed) {
			t.Errorf("a turn starting while Close runs: %v, want ErrClosed", err)
		}
		time.Sleep(10 * time.Millisecond) // the turn's last sends
		close(ended)
		h.EndTurn(id, "cancelled", "")
	}()
	if err := h.Close(ctx, "o", id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	default:
		t.Error("Close answered before the turn ended")
	}
	select {
	case <-busy:
	default:
		t.Error("the held prompt was not told the turn ended")
	}
	s, _ := h.Get(ctx, "o", id)
	if !s.Closed || s.Turn.State != session.TurnEnded || s.Turn.Reason != "cancelled" {
		t.Errorf("after close: %+v", s)
	}

	// A turn the store says runs, which no process here runs.
	if _, err := h.Store().Update(ctx, id, session.Change{Reopen: true}); err != nil {
		t.Fatal(err)
	}
	h.Store().StartTurn(ctx, id, nil)
	s, err = h.Reopen(ctx, "o", id, "/w", nil)
	if err != nil || s.Turn.State != session.TurnInterrupted || s.Turn.Reason != session.InterruptedReason {
		t.Errorf("reopen: %+v, %v", s.Turn, err)
	}
}

// Without a store the Host keeps sessions in memory and is not Durable.
func TestHostWithoutStore(t *testing.T) {
	h := session.NewHost(nil)
	if h.Durable() || h.Store() == nil {
		t.Fatalf("durable %v, store %v", h.Durable(), h.Store())
	}
	if _, err := h.New(context.Background(), session.Info{Cwd: "/w"}); err != nil {
		t.Error(err)
	}
}

// BeginTurn registers a turn and writes nothing, refusing as StartTurn
// does: another owner's session is unknown, a second turn of the session
// is ErrTurnRunning, a closed one ErrClosed (closed by this Host, whose
// knowledge Close drops, or found closed by a read); a turn the store says
// is running that this process does not run is interrupted first. A
// refused BeginTurn leaves nothing registered.
func TestHostBeginTurn(t *testing.T) {
	ctx := context.Background()
	st := session.NewMemory()
	h := session.NewHost(st)
	id, err := h.New(ctx, session.Info{Owner: "alice", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	noop := func(error) {}
	if err := h.BeginTurn(ctx, "bob", id, nil, noop); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("BeginTurn of another owner's session: %v, want ErrNotFound", err)
	}
	checked := errors.New("refused by check")
	if err := h.BeginTurn(ctx, "alice", id, func(s session.Session) error {
		if s.Owner != "alice" || s.ID != id {
			t.Errorf("check given %+v", s.Info)
		}
		return checked
	}, noop); err != checked {
		t.Errorf("BeginTurn whose check fails: %v, want the check's error", err)
	}
	if h.Running(id) {
		t.Fatal("a refused BeginTurn left its turn registered")
	}
	if err := h.BeginTurn(ctx, "alice", id, nil, noop); err != nil {
		t.Fatal(err)
	}
	if s, _ := st.Get(ctx, id); s.LastSeq != 0 || s.Turn.State != session.TurnNone {
		t.Errorf("BeginTurn wrote: %+v", s)
	}
	if err := h.BeginTurn(ctx, "alice", id, nil, noop); !errors.Is(err, session.ErrTurnRunning) {
		t.Errorf("a second BeginTurn: %v, want ErrTurnRunning", err)
	}
	h.Release(id)
	if err := h.Close(ctx, "alice", id); err != nil {
		t.Fatal(err)
	}
	if err := h.BeginTurn(ctx, "alice", id, nil, noop); !errors.Is(err, session.ErrClosed) || h.Running(id) {
		t.Errorf("BeginTurn after Close: %v (running %v), want ErrClosed", err, h.Running(id))
	}
	// A turn a dead process left running, in a session this Host has not
	// read: interrupted, then the turn is registered.
	other, err := st.Create(ctx, session.Info{ID: "orphan", Owner: "alice", AdditionalDirectories: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartTurn(ctx, other.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.BeginTurn(ctx, "alice", other.ID, nil, noop); err != nil || !h.Running(other.ID) {
		t.Fatalf("BeginTurn over an orphaned turn: %v", err)
	}
	if s, _ := st.Get(ctx, other.ID); s.Turn.State != session.TurnInterrupted || s.Turn.Reason != session.InterruptedReason {
		t.Errorf("the orphaned turn: %+v, want interrupted", s.Turn)
	}
}
