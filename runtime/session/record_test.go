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
