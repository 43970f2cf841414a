package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
)

// BatchRecorder keeps the updates of the session/update notifications it is
// given and appends them on Commit, in order, one Append per session; other
// methods, replays (Unrecorded) and sessions the store does not hold are not
// recorded; an update the store refuses fails the Commit.
func TestBatchRecorderCommitsUpdatesPerSession(t *testing.T) {
	ctx := context.Background()
	st := session.NewMemory()
	for _, id := range []string{"a", "b", "shut"} {
		if _, err := st.Create(ctx, session.Info{ID: id, Cwd: "/"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CloseSession(ctx, "shut"); err != nil {
		t.Fatal(err)
	}
	r := session.NewBatchRecorder(st)
	update := func(ctx context.Context, method, id, u string) error {
		return r.Record(ctx, method, id, []byte(`{"sessionId":"`+id+`","update":`+u+`}`))
	}
	for _, err := range []error{
		update(ctx, session.UpdateMethod, "a", `{"n":1}`),
		update(ctx, session.UpdateMethod, "b", `{"n":2}`),
		update(ctx, "session/request_permission", "a", `{"n":0}`),
		update(session.Unrecorded(ctx), session.UpdateMethod, "a", `{"n":0}`),
		update(ctx, session.UpdateMethod, "unknown", `{"n":0}`),
		update(ctx, session.UpdateMethod, "a", `{"n":3}`),
	} {
		if err != nil {
			t.Fatalf("Record: %v", err)
		}
	}
	if err := r.Record(ctx, session.UpdateMethod, "a", []byte(`{"sessionId":"a"}`)); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Record without an update: %v, want ErrInvalid", err)
	}
	if err := r.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	logOf := func(id string) string {
		evs, err := st.Events(ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, e := range evs {
			s = append(s, e.Kind.String()+" "+string(e.Data))
		}
		return strings.Join(s, ", ")
	}
	if got := logOf("a"); got != `update {"n":1}, update {"n":3}` {
		t.Errorf("session a's log: %s", got)
	}
	if got := logOf("b"); got != `update {"n":2}` {
		t.Errorf("session b's log: %s", got)
	}
	if err := r.Commit(ctx); err != nil || logOf("a") != `update {"n":1}, update {"n":3}` {
		t.Errorf("an empty Commit: %v, session a's log %s", err, logOf("a"))
	}
	if err := update(ctx, session.UpdateMethod, "shut", `{"n":4}`); err != nil {
		t.Fatal(err)
	}
	if err := update(ctx, session.UpdateMethod, "b", `{"n":5}`); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Commit with an update of a closed session: %v, want ErrClosed", err)
	}
	if err := r.Commit(ctx); err != nil {
		t.Errorf("the Commit after a failed one: %v, want nothing left to append", err)
	}
}

// writeCounter counts a store's writes.
type writeCounter struct {
	session.Store
	writes int
}

func (w *writeCounter) Append(ctx context.Context, id string, evs ...session.Event) (uint64, error) {
	w.writes++
	return w.Store.Append(ctx, id, evs...)
}

func (w *writeCounter) AppendBatch(ctx context.Context, id string, b session.Batch) (uint64, error) {
	w.writes++
	return w.Store.AppendBatch(ctx, id, b)
}

// A turn's marks queued for the BatchRecorder join the updates around them
// in one write per commit, in order: a turn whose start, updates and end
// meet in one Commit costs one write; one whose end follows another turn's
// in the same Commit gets its own write after it.
func TestBatchRecorderCommitsTurnMarksWithUpdates(t *testing.T) {
	ctx := context.Background()
	st := &writeCounter{Store: session.NewMemory()}
	if _, err := st.Create(ctx, session.Info{ID: "a", Cwd: "/"}); err != nil {
		t.Fatal(err)
	}
	r := session.NewBatchRecorder(st)
	record := func(method string, params []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Record(ctx, method, "a", params); err != nil {
			t.Fatalf("Record %s: %v", method, err)
		}
	}
	update := func(n string) {
		record(session.UpdateMethod, []byte(`{"sessionId":"a","update":{"n":`+n+`}}`), nil)
	}
	start := func(data string) {
		p, err := session.TurnStartParams("a", []byte(data))
		record(session.TurnStartMethod, p, err)
	}
	end := func(stop, why string) {
		p, err := session.TurnEndParams("a", stop, why)
		record(session.TurnEndMethod, p, err)
	}
	start(`{"turn":1}`)
	update("1")
	update("2")
	end("end_turn", "")
	if err := r.Commit(ctx); err != nil || st.writes != 1 {
		t.Fatalf("Commit of a whole turn: %v, %d writes, want 1", err, st.writes)
	}
	start(`null`)
	update("3")
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	update("4")
	end("", "turn failed")
	start(`{"turn":3}`)
	end("cancelled", "")
	if err := r.Commit(ctx); err != nil || st.writes != 4 {
		t.Fatalf("Commits: %v, %d writes, want 4", err, st.writes)
	}
	evs, err := st.Events(ctx, "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Kind.String()+" "+string(e.Data))
	}
	want := `turn_start {"turn":1}, update {"n":1}, update {"n":2}, turn_end "end_turn", ` +
		`turn_start null, update {"n":3}, update {"n":4}, turn_interrupted "turn failed", ` +
		`turn_start {"turn":3}, turn_end "cancelled"`
	if strings.Join(got, ", ") != want {
		t.Errorf("log:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
	if s, _ := st.Get(ctx, "a"); s.Turn.State != session.TurnEnded || s.Turn.Start != 9 || s.Turn.Reason != "cancelled" {
		t.Errorf("turn %+v", s.Turn)
	}
}
