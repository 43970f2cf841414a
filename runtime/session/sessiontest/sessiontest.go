// Package sessiontest is the conformance suite of runtime/session's Store:
// every implementation runs Run, so that the protocol built on a Store
// behaves the same on each.
package sessiontest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/session"
)

// Run runs the suite. open returns the store a subtest uses; it may return
// one that already holds sessions (of other subtests, say, on a shared
// database): each subtest uses ids and owners of its own. open closes the
// store when the test ends, or Run does if open did not.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := open(t)
			t.Cleanup(func() { st.Close() })
			c.run(t, st)
		})
	}
}

var cases = []struct {
	name string
	run  func(t *testing.T, st session.Store)
}{
	{"CreateGet", testCreateGet},
	{"CreateExists", testCreateExists},
	{"Invalid", testInvalid},
	{"NotFound", testNotFound},
	{"AppendEvents", testAppendEvents},
	{"EventsPaging", testEventsPaging},
	{"LargeBatch", testLargeBatch},
	{"SequencesPerSession", testSequencesPerSession},
	{"ConcurrentAppends", testConcurrentAppends},
	{"Turns", testTurns},
	{"TurnErrors", testTurnErrors},
	{"AppendBatch", testAppendBatch},
	{"AppendBatchErrors", testAppendBatchErrors},
	{"CloseKeepsRecord", testCloseKeepsRecord},
	{"CloseInterruptsTurn", testCloseInterruptsTurn},
	{"Update", testUpdate},
	{"Delete", testDelete},
	{"Fork", testFork},
	{"ListFilters", testListFilters},
	{"ListPaging", testListPaging},
	{"ListBadCursor", testListBadCursor},
	{"UpdatedAt", testUpdatedAt},
}

var ctx = context.Background()

// NewID returns an id no other test uses.
func NewID(prefix string) string {
	var b [8]byte
	rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

func create(t *testing.T, st session.Store, info session.Info) session.Session {
	t.Helper()
	s, err := st.Create(ctx, info)
	if err != nil {
		t.Fatalf("Create(%s): %v", info.ID, err)
	}
	return s
}

func get(t *testing.T, st session.Store, id string) session.Session {
	t.Helper()
	s, err := st.Get(ctx, id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return s
}

// Update returns a session/update's update member for the n-th chunk.
func Update(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d"}}`, n))
}

func appendOne(t *testing.T, st session.Store, id string, data json.RawMessage) uint64 {
	t.Helper()
	seq, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: data})
	if err != nil {
		t.Fatalf("Append(%s): %v", id, err)
	}
	return seq
}

func events(t *testing.T, st session.Store, id string, after uint64, limit int) []session.Event {
	t.Helper()
	evs, err := st.Events(ctx, id, after, limit)
	if err != nil {
		t.Fatalf("Events(%s, %d, %d): %v", id, after, limit, err)
	}
	return evs
}

func testCreateGet(t *testing.T, st session.Store) {
	before := time.Now().Add(-time.Second)
	info := session.Info{
		ID: NewID("s"), Owner: "alice", Cwd: "/work/project",
		AdditionalDirectories: []string{"/work/lib", "/work/docs"},
		Title:                 "A title", Meta: json.RawMessage(`{"x":{"y":[1,2]}}`),
	}
	created := create(t, st, info)
	got := get(t, st, info.ID)
	for name, s := range map[string]session.Session{"Create": created, "Get": got} {
		if s.ID != info.ID || s.Owner != "alice" || s.Cwd != "/work/project" || s.Title != "A title" {
			t.Errorf("%s returned %+v", name, s.Info)
		}
		if !slices.Equal(s.AdditionalDirectories, info.AdditionalDirectories) {
			t.Errorf("%s: additional directories %q, want %q", name, s.AdditionalDirectories, info.AdditionalDirectories)
		}
		if !jsonEqual(s.Meta, info.Meta) {
			t.Errorf("%s: _meta %s, want %s", name, s.Meta, info.Meta)
		}
		if s.Closed || s.LastSeq != 0 || s.Turn.State != session.TurnNone || s.Turn.Start != 0 {
			t.Errorf("%s: a new session is %+v", name, s)
		}
		if s.Created.Before(before) || s.Updated.Before(s.Created) || s.Created.Location() != time.UTC {
			t.Errorf("%s: created %v, updated %v (test started %v)", name, s.Created, s.Updated, before)
		}
	}
	if !got.Created.Equal(created.Created) {
		t.Errorf("Get's Created %v differs from Create's %v", got.Created, created.Created)
	}
	// No roots and no _meta: the list is empty, not nil; _meta is absent.
	bare := create(t, st, session.Info{ID: NewID("s"), Cwd: "/"})
	for _, s := range []session.Session{bare, get(t, st, bare.ID)} {
		if s.AdditionalDirectories == nil || len(s.AdditionalDirectories) != 0 || s.Meta != nil || s.Title != "" {
			t.Errorf("a bare session reads back as %+v", s.Info)
		}
	}
}

func testCreateExists(t *testing.T, st session.Store) {
	id := NewID("s")
	create(t, st, session.Info{ID: id, Owner: "alice", Cwd: "/a"})
	_, err := st.Create(ctx, session.Info{ID: id, Owner: "bob", Cwd: "/b"})
	if !errors.Is(err, session.ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	if s := get(t, st, id); s.Owner != "alice" || s.Cwd != "/a" {
		t.Errorf("the refused Create changed the session: %+v", s.Info)
	}
}

func testInvalid(t *testing.T, st session.Store) {
	if _, err := st.Create(ctx, session.Info{Cwd: "/"}); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Create without an id: %v, want ErrInvalid", err)
	}
	for _, meta := range []string{`[1]`, `"x"`, `{"a":`, `null`} {
		if _, err := st.Create(ctx, session.Info{ID: NewID("s"), Meta: json.RawMessage(meta)}); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Create with _meta %s: %v, want ErrInvalid", meta, err)
		}
	}
	id := NewID("s")
	create(t, st, session.Info{ID: id})
	bad := [][]session.Event{
		nil,
		{{Kind: session.KindUpdate, Data: json.RawMessage(`{"a":`)}},
		{{Kind: session.KindUpdate, Data: nil}},
		{{Kind: session.KindUpdate, Data: json.RawMessage(`{} {}`)}},
		{{Kind: session.KindTurnStart, Data: json.RawMessage(`1`)}},
		{{Kind: session.KindTurnEnd, Data: json.RawMessage(`"end_turn"`)}},
		{{Kind: 0, Data: json.RawMessage(`1`)}},
		{{Kind: 99, Data: json.RawMessage(`1`)}},
		// One bad event refuses the whole batch.
		{{Kind: session.KindUpdate, Data: Update(1)}, {Kind: session.KindUpdate, Data: json.RawMessage(`nope`)}},
	}
	for _, evs := range bad {
		if _, err := st.Append(ctx, id, evs...); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Append(%v): %v, want ErrInvalid", evs, err)
		}
	}
	if _, err := st.StartTurn(ctx, id, json.RawMessage(`{`)); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("StartTurn with bad data: %v, want ErrInvalid", err)
	}
	// Text a PostgreSQL column refuses is refused by every store.
	for _, info := range []session.Info{
		{ID: "nul\x00id"}, {ID: NewID("s"), Cwd: "/a\x00b"}, {ID: NewID("s"), Owner: "\xff"},
		{ID: NewID("s"), Title: "t\x00"}, {ID: NewID("s"), AdditionalDirectories: []string{"/ok", "\x00"}},
	} {
		if _, err := st.Create(ctx, info); !errors.Is(err, session.ErrInvalid) {
			t.Errorf("Create(%+q): %v, want ErrInvalid", info, err)
		}
	}
	if _, err := st.Update(ctx, id, session.Change{Cwd: new("\x00")}); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Update with a NUL cwd: %v, want ErrInvalid", err)
	}
	if _, err := st.List(ctx, session.Query{Cwd: new("\x00")}); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("List with a NUL cwd: %v, want ErrInvalid", err)
	}
	if _, err := st.Update(ctx, id, session.Change{Meta: json.RawMessage(`[]`)}); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Update with _meta []: %v, want ErrInvalid", err)
	}
	if s := get(t, st, id); s.LastSeq != 0 || s.Turn.State != session.TurnNone || s.Meta != nil {
		t.Errorf("refused writes changed the session: %+v", s)
	}
	if evs := events(t, st, id, 0, 0); len(evs) != 0 {
		t.Errorf("refused appends left events: %v", evs)
	}
}

func testNotFound(t *testing.T, st session.Store) {
	id := NewID("missing")
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, session.ErrNotFound) {
			t.Errorf("%s on an unknown session: %v, want ErrNotFound", op, err)
		}
	}
	_, err := st.Get(ctx, id)
	check("Get", err)
	_, err = st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: Update(1)})
	check("Append", err)
	_, err = st.StartTurn(ctx, id, nil)
	check("StartTurn", err)
	_, err = st.EndTurn(ctx, id, "end_turn")
	check("EndTurn", err)
	_, err = st.InterruptTurn(ctx, id, "gone")
	check("InterruptTurn", err)
	_, err = st.Events(ctx, id, 0, 0)
	check("Events", err)
	_, err = st.Update(ctx, id, session.Change{Title: new("t")})
	check("Update", err)
	_, err = st.CloseSession(ctx, id)
	check("CloseSession", err)
	check("Delete", st.Delete(ctx, id))
}

func testAppendEvents(t *testing.T, st session.Store) {
	id := NewID("s")
	create(t, st, session.Info{ID: id, Cwd: "/"})
	// Bytes are kept as given: whitespace, member order, escapes.
	odd := json.RawMessage("{ \"sessionUpdate\" : \"agent_message_chunk\",\n \"z\":1, \"a\":\"\\u00e9\\n\" }")
	if seq := appendOne(t, st, id, odd); seq != 1 {
		t.Fatalf("first Append returned %d, want 1", seq)
	}
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}`)
	buf := slices.Clone(Update(2))
	last, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: buf}, session.Event{Kind: session.KindMessage, Data: msg})
	if err != nil || last != 3 {
		t.Fatalf("batch Append: %d, %v; want 3", last, err)
	}
	// The store keeps a copy: the caller may reuse its buffer.
	for i := range buf {
		buf[i] = 'x'
	}
	start := time.Now().Add(-time.Minute)
	evs := events(t, st, id, 0, 0)
	want := []session.Event{{Seq: 1, Kind: session.KindUpdate, Data: odd}, {Seq: 2, Kind: session.KindUpdate, Data: Update(2)}, {Seq: 3, Kind: session.KindMessage, Data: msg}}
	if len(evs) != len(want) {
		t.Fatalf("Events returned %d events, want %d: %v", len(evs), len(want), evs)
	}
	for i, e := range evs {
		if e.Seq != want[i].Seq || e.Kind != want[i].Kind || string(e.Data) != string(want[i].Data) {
			t.Errorf("event %d: %d %s %s, want %d %s %s", i, e.Seq, e.Kind, e.Data, want[i].Seq, want[i].Kind, want[i].Data)
		}
		if e.At.Before(start) || e.At.Location() != time.UTC {
			t.Errorf("event %d recorded at %v", i, e.At)
		}
	}
	// The events returned are the caller's: changing them changes nothing stored.
	evs[0].Data[0] = '['
	if again := events(t, st, id, 0, 1); string(again[0].Data) != string(odd) {
		t.Errorf("changing a returned event changed the store: %s", again[0].Data)
	}
	if s := get(t, st, id); s.LastSeq != 3 {
		t.Errorf("LastSeq %d, want 3", s.LastSeq)
	}
}

func testEventsPaging(t *testing.T, st session.Store) {
	id := NewID("s")
	create(t, st, session.Info{ID: id})
	const n = 25
	for i := 1; i <= n; i++ {
		appendOne(t, st, id, Update(i))
	}
	var got []uint64
	for after := uint64(0); ; {
		page := events(t, st, id, after, 7)
		if len(page) > 7 {
			t.Fatalf("a page of limit 7 has %d events", len(page))
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			got = append(got, e.Seq)
			if string(e.Data) != string(Update(int(e.Seq))) {
				t.Errorf("event %d holds %s", e.Seq, e.Data)
			}
		}
		after = page[len(page)-1].Seq
	}
	if len(got) != n || got[0] != 1 || got[n-1] != n {
		t.Fatalf("paged sequences %v, want 1..%d", got, n)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("sequences not contiguous: %v", got)
		}
	}
	if tail := events(t, st, id, n-2, 0); len(tail) != 2 || tail[0].Seq != n-1 {
		t.Errorf("Events after %d: %v", n-2, tail)
	}
	if past := events(t, st, id, n+10, 0); len(past) != 0 {
		t.Errorf("Events after the end: %v", past)
	}
}

// One Append of many events records them all, in order, or none.
func testLargeBatch(t *testing.T, st session.Store) {
	id := NewID("s")
	create(t, st, session.Info{ID: id})
	appendOne(t, st, id, Update(0))
	const n = 250
	batch := make([]session.Event, n)
	for i := range batch {
		batch[i] = session.Event{Kind: session.KindUpdate, Data: Update(i + 1)}
	}
	last, err := st.Append(ctx, id, batch...)
	if err != nil || last != n+1 {
		t.Fatalf("Append of %d: %d, %v; want %d", n, last, err, n+1)
	}
	evs := events(t, st, id, 0, 0)
	if len(evs) != n+1 {
		t.Fatalf("%d events, want %d", len(evs), n+1)
	}
	for i, e := range evs {
		if e.Seq != uint64(i+1) || string(e.Data) != string(Update(i)) {
			t.Fatalf("event %d: %d %s", i, e.Seq, e.Data)
		}
	}
	batch[n-1].Data = json.RawMessage(`{`)
	if _, err := st.Append(ctx, id, batch...); !errors.Is(err, session.ErrInvalid) {
		t.Fatalf("a batch with one bad event: %v", err)
	}
	if s := get(t, st, id); s.LastSeq != n+1 {
		t.Errorf("a refused batch moved the last sequence to %d", s.LastSeq)
	}
}

func testSequencesPerSession(t *testing.T, st session.Store) {
	a, b := NewID("a"), NewID("b")
	create(t, st, session.Info{ID: a})
	create(t, st, session.Info{ID: b})
	for i := 1; i <= 3; i++ {
		if seq := appendOne(t, st, a, Update(i)); seq != uint64(i) {
			t.Errorf("session a's append %d got sequence %d", i, seq)
		}
	}
	if seq := appendOne(t, st, b, Update(1)); seq != 1 {
		t.Errorf("session b's first append got sequence %d, want 1 (sequences are per session)", seq)
	}
	if evs := events(t, st, b, 0, 0); len(evs) != 1 {
		t.Errorf("session b holds %d events, want 1", len(evs))
	}
}

func testConcurrentAppends(t *testing.T, st session.Store) {
	const writers, each = 8, 25
	ids := []string{NewID("c"), NewID("c")}
	for _, id := range ids {
		create(t, st, session.Info{ID: id})
	}
	var wg sync.WaitGroup
	seqs := make([][]uint64, writers)
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			id := ids[w%2]
			for i := range each {
				seq, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d}`, w, i))})
				if err != nil {
					errs <- err
					return
				}
				seqs[w] = append(seqs[w], seq)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w, s := range seqs {
		if !slices.IsSorted(s) {
			t.Errorf("writer %d's sequences went backwards: %v", w, s)
		}
	}
	for _, id := range ids {
		evs := events(t, st, id, 0, 0)
		if len(evs) != writers/2*each {
			t.Fatalf("%s holds %d events, want %d", id, len(evs), writers/2*each)
		}
		// Each writer's events are in the order it appended them.
		next := map[int]int{}
		for i, e := range evs {
			if e.Seq != uint64(i+1) {
				t.Fatalf("%s: event %d has sequence %d", id, i, e.Seq)
			}
			var v struct{ W, I int }
			if err := json.Unmarshal(e.Data, &v); err != nil {
				t.Fatal(err)
			}
			if v.I != next[v.W] {
				t.Fatalf("%s: writer %d's event %d came where %d was due", id, v.W, v.I, next[v.W])
			}
			next[v.W]++
		}
	}
}

func testTurns(t *testing.T, st session.Store) {
	id := NewID("t")
	create(t, st, session.Info{ID: id})
	start, err := st.StartTurn(ctx, id, json.RawMessage(`{"requestId":3}`))
	if err != nil || start != 1 {
		t.Fatalf("StartTurn: %d, %v; want 1", start, err)
	}
	s := get(t, st, id)
	if s.Turn.State != session.TurnRunning || s.Turn.Start != 1 || !jsonEqual(s.Turn.Data, json.RawMessage(`{"requestId":3}`)) {
		t.Errorf("running turn: %+v", s.Turn)
	}
	appendOne(t, st, id, Update(1))
	end, err := st.EndTurn(ctx, id, "end_turn")
	if err != nil || end != 3 {
		t.Fatalf("EndTurn: %d, %v; want 3", end, err)
	}
	s = get(t, st, id)
	if s.Turn.State != session.TurnEnded || s.Turn.Start != 1 || s.Turn.Reason != "end_turn" || s.LastSeq != 3 {
		t.Errorf("ended turn: %+v, last %d", s.Turn, s.LastSeq)
	}
	second, err := st.StartTurn(ctx, id, nil)
	if err != nil || second != 4 {
		t.Fatalf("second StartTurn: %d, %v", second, err)
	}
	if s := get(t, st, id); string(s.Turn.Data) != "null" || s.Turn.Reason != "" {
		t.Errorf("a turn started with nil data: %+v", s.Turn)
	}
	if _, err := st.InterruptTurn(ctx, id, "instance died"); err != nil {
		t.Fatal(err)
	}
	s = get(t, st, id)
	if s.Turn.State != session.TurnInterrupted || s.Turn.Start != 4 || s.Turn.Reason != "instance died" {
		t.Errorf("interrupted turn: %+v", s.Turn)
	}
	want := []struct {
		kind session.Kind
		data string
	}{
		{session.KindTurnStart, `{"requestId":3}`},
		{session.KindUpdate, string(Update(1))},
		{session.KindTurnEnd, `"end_turn"`},
		{session.KindTurnStart, `null`},
		{session.KindTurnInterrupted, `"instance died"`},
	}
	evs := events(t, st, id, 0, 0)
	if len(evs) != len(want) {
		t.Fatalf("log %v, want %d events", evs, len(want))
	}
	for i, e := range evs {
		if e.Kind != want[i].kind || !jsonEqual(e.Data, json.RawMessage(want[i].data)) {
			t.Errorf("event %d: %s %s, want %s %s", i+1, e.Kind, e.Data, want[i].kind, want[i].data)
		}
	}
}

func testTurnErrors(t *testing.T, st session.Store) {
	id := NewID("t")
	create(t, st, session.Info{ID: id})
	if _, err := st.EndTurn(ctx, id, "end_turn"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("EndTurn with no turn: %v, want ErrNoTurn", err)
	}
	if _, err := st.InterruptTurn(ctx, id, "x"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("InterruptTurn with no turn: %v, want ErrNoTurn", err)
	}
	if _, err := st.StartTurn(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndTurn(ctx, id, "bad\x00reason"); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("EndTurn with a NUL in the reason: %v, want ErrInvalid", err)
	}
	if _, err := st.StartTurn(ctx, id, nil); !errors.Is(err, session.ErrTurnRunning) {
		t.Errorf("StartTurn while one runs: %v, want ErrTurnRunning", err)
	}
	// Of several that find the same running turn, one interrupts it.
	var wg sync.WaitGroup
	results := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, err := st.InterruptTurn(ctx, id, "orphaned")
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, session.ErrNoTurn):
			t.Errorf("a losing InterruptTurn: %v, want ErrNoTurn", err)
		}
	}
	if won != 1 {
		t.Errorf("%d InterruptTurn calls succeeded, want 1", won)
	}
	if _, err := st.EndTurn(ctx, id, "end_turn"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("EndTurn after the interruption: %v, want ErrNoTurn", err)
	}
	if s := get(t, st, id); s.LastSeq != 2 {
		t.Errorf("refused turn marks were recorded: last sequence %d, want 2", s.LastSeq)
	}
}

func testCloseKeepsRecord(t *testing.T, st session.Store) {
	id := NewID("c")
	create(t, st, session.Info{ID: id, Owner: "o", Cwd: "/w"})
	appendOne(t, st, id, Update(1))
	closed, err := st.CloseSession(ctx, id)
	if err != nil || !closed.Closed {
		t.Fatalf("CloseSession: %+v, %v", closed, err)
	}
	s := get(t, st, id)
	if !s.Closed || s.Cwd != "/w" || s.LastSeq != 1 {
		t.Errorf("a closed session reads back as %+v", s)
	}
	if evs := events(t, st, id, 0, 0); len(evs) != 1 {
		t.Errorf("a closed session's log: %v", evs)
	}
	if _, err := st.CloseSession(ctx, id); err != nil {
		t.Errorf("closing a closed session: %v", err)
	}
	if _, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: Update(2)}); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Append to a closed session: %v, want ErrClosed", err)
	}
	if _, err := st.StartTurn(ctx, id, nil); !errors.Is(err, session.ErrClosed) {
		t.Errorf("StartTurn in a closed session: %v, want ErrClosed", err)
	}
	page, err := st.List(ctx, session.Query{Owner: "o", Cwd: new("/w")})
	if err != nil || !slices.ContainsFunc(page.Sessions, func(s session.Session) bool { return s.ID == id && s.Closed }) {
		t.Errorf("List does not show the closed session: %+v, %v", page, err)
	}
	re, err := st.Update(ctx, id, session.Change{Reopen: true})
	if err != nil || re.Closed {
		t.Fatalf("reopening: %+v, %v", re, err)
	}
	if seq := appendOne(t, st, id, Update(2)); seq != 2 {
		t.Errorf("Append after reopening got sequence %d, want 2", seq)
	}
}

func testCloseInterruptsTurn(t *testing.T, st session.Store) {
	id := NewID("c")
	create(t, st, session.Info{ID: id})
	if _, err := st.StartTurn(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	s, err := st.CloseSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Turn.State != session.TurnInterrupted || s.Turn.Reason != session.ClosedReason || s.LastSeq != 2 {
		t.Errorf("closing with a running turn: %+v", s)
	}
	evs := events(t, st, id, 1, 0)
	if len(evs) != 1 || evs[0].Kind != session.KindTurnInterrupted || !jsonEqual(evs[0].Data, session.ReasonData(session.ClosedReason)) {
		t.Errorf("the interruption's event: %v", evs)
	}
	// Ending a turn is still possible on a closed session only when one runs.
	if _, err := st.EndTurn(ctx, id, "cancelled"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("EndTurn after close: %v, want ErrNoTurn", err)
	}
}

func testUpdate(t *testing.T, st session.Store) {
	id := NewID("u")
	create(t, st, session.Info{ID: id, Owner: "o", Cwd: "/a", AdditionalDirectories: []string{"/x"}, Title: "t0", Meta: json.RawMessage(`{"k":1}`)})
	s, err := st.Update(ctx, id, session.Change{Title: new("t1")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "t1" || s.Cwd != "/a" || !slices.Equal(s.AdditionalDirectories, []string{"/x"}) || !jsonEqual(s.Meta, json.RawMessage(`{"k":1}`)) {
		t.Errorf("a title change changed more: %+v", s.Info)
	}
	s, err = st.Update(ctx, id, session.Change{Cwd: new("/b"), AdditionalDirectories: []string{"/y", "/z"}, Meta: json.RawMessage(`{"k":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	got := get(t, st, id)
	for name, s := range map[string]session.Session{"Update": s, "Get": got} {
		if s.Cwd != "/b" || !slices.Equal(s.AdditionalDirectories, []string{"/y", "/z"}) || !jsonEqual(s.Meta, json.RawMessage(`{"k":2}`)) || s.Title != "t1" || s.Owner != "o" {
			t.Errorf("%s after the change: %+v", name, s.Info)
		}
	}
	// An empty list clears the roots (load and resume give the complete list);
	// JSON null removes _meta.
	s, err = st.Update(ctx, id, session.Change{AdditionalDirectories: []string{}, Meta: json.RawMessage(`null`)})
	if err != nil {
		t.Fatal(err)
	}
	if s = get(t, st, id); s.AdditionalDirectories == nil || len(s.AdditionalDirectories) != 0 || s.Meta != nil {
		t.Errorf("after clearing roots and _meta: %+v", s.Info)
	}
}

func testDelete(t *testing.T, st session.Store) {
	id, other := NewID("d"), NewID("d")
	create(t, st, session.Info{ID: id, Owner: "o"})
	create(t, st, session.Info{ID: other, Owner: "o"})
	appendOne(t, st, id, Update(1))
	appendOne(t, st, other, Update(1))
	if err := st.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, id); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if _, err := st.Events(ctx, id, 0, 0); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Events after Delete: %v", err)
	}
	if err := st.Delete(ctx, id); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
	if evs := events(t, st, other, 0, 0); len(evs) != 1 {
		t.Errorf("deleting one session touched another's log: %v", evs)
	}
	// The id can be used again, for a session that starts empty.
	create(t, st, session.Info{ID: id, Owner: "o"})
	if s := get(t, st, id); s.LastSeq != 0 {
		t.Errorf("a re-created session starts at %d", s.LastSeq)
	}
	if evs := events(t, st, id, 0, 0); len(evs) != 0 {
		t.Errorf("a re-created session holds the old log: %v", evs)
	}
}

func testFork(t *testing.T, st session.Store) {
	src := NewID("src")
	create(t, st, session.Info{ID: src, Owner: "o", Cwd: "/a"})
	if _, err := st.StartTurn(ctx, src, json.RawMessage(`7`)); err != nil {
		t.Fatal(err)
	}
	appendOne(t, st, src, Update(1))
	if _, err := st.EndTurn(ctx, src, "end_turn"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartTurn(ctx, src, json.RawMessage(`8`)); err != nil {
		t.Fatal(err)
	}
	appendOne(t, st, src, Update(2))
	orig := events(t, st, src, 0, 0)

	fork := NewID("fork")
	f, err := st.Fork(ctx, src, session.Info{ID: fork, Owner: "o", Cwd: "/b", Title: "copy"})
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != fork || f.Cwd != "/b" || f.Title != "copy" || f.Closed || f.LastSeq != 6 {
		t.Errorf("the fork: %+v", f)
	}
	// The copy of the running turn is interrupted; the source's still runs.
	if f.Turn.State != session.TurnInterrupted || f.Turn.Start != 4 || f.Turn.Reason != session.ForkedReason || !jsonEqual(f.Turn.Data, json.RawMessage(`8`)) {
		t.Errorf("the fork's turn: %+v", f.Turn)
	}
	if s := get(t, st, src); s.Turn.State != session.TurnRunning || s.LastSeq != 5 {
		t.Errorf("forking changed the source: %+v", s)
	}
	copied := events(t, st, fork, 0, 0)
	if len(copied) != 6 {
		t.Fatalf("the fork's log: %v", copied)
	}
	for i, e := range orig {
		c := copied[i]
		if c.Seq != e.Seq || c.Kind != e.Kind || string(c.Data) != string(e.Data) || !c.At.Equal(e.At) {
			t.Errorf("copied event %d: %+v, source %+v", i, c, e)
		}
	}
	if last := copied[5]; last.Kind != session.KindTurnInterrupted || !jsonEqual(last.Data, session.ReasonData(session.ForkedReason)) {
		t.Errorf("the fork's last event: %+v", last)
	}
	// The two logs go on apart.
	if seq := appendOne(t, st, fork, Update(9)); seq != 7 {
		t.Errorf("the fork's next sequence: %d", seq)
	}
	if seq := appendOne(t, st, src, Update(3)); seq != 6 {
		t.Errorf("the source's next sequence: %d", seq)
	}
	if _, err := st.Fork(ctx, src, session.Info{ID: fork}); !errors.Is(err, session.ErrExists) {
		t.Errorf("forking onto a taken id: %v, want ErrExists", err)
	}
	if _, err := st.Fork(ctx, NewID("missing"), session.Info{ID: NewID("f")}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("forking an unknown session: %v, want ErrNotFound", err)
	}
	if _, err := st.Fork(ctx, src, session.Info{}); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("forking without an id: %v, want ErrInvalid", err)
	}
	// A fork of a session with no turn and no events is an empty session.
	empty := NewID("e")
	create(t, st, session.Info{ID: empty})
	e, err := st.Fork(ctx, empty, session.Info{ID: NewID("f")})
	if err != nil || e.LastSeq != 0 || e.Turn.State != session.TurnNone {
		t.Errorf("forking an empty session: %+v, %v", e, err)
	}
}

func ids(p session.Page) []string {
	var out []string
	for _, s := range p.Sessions {
		out = append(out, s.ID)
	}
	return out
}

func testListFilters(t *testing.T, st session.Store) {
	alice, bob := NewID("alice"), NewID("bob")
	s1 := create(t, st, session.Info{ID: NewID("s"), Owner: alice, Cwd: "/p"}).ID
	s2 := create(t, st, session.Info{ID: NewID("s"), Owner: alice, Cwd: "/p", AdditionalDirectories: []string{"/l", "/m"}}).ID
	s3 := create(t, st, session.Info{ID: NewID("s"), Owner: alice, Cwd: "/q", AdditionalDirectories: []string{"/m", "/l"}}).ID
	create(t, st, session.Info{ID: NewID("s"), Owner: bob, Cwd: "/p"})
	list := func(q session.Query) []string {
		t.Helper()
		p, err := st.List(ctx, q)
		if err != nil {
			t.Fatalf("List(%+v): %v", q, err)
		}
		if p.NextCursor != "" {
			t.Errorf("List(%+v) has a next page", q)
		}
		if p.Sessions == nil {
			t.Errorf("List(%+v) returned a nil list", q)
		}
		return ids(p)
	}
	for _, c := range []struct {
		q    session.Query
		want []string
	}{
		{session.Query{Owner: alice}, []string{s3, s2, s1}},
		{session.Query{Owner: alice, Cwd: new("/p")}, []string{s2, s1}},
		{session.Query{Owner: alice, Cwd: new("/nowhere")}, nil},
		{session.Query{Owner: alice, AdditionalDirectories: []string{"/l", "/m"}}, []string{s2}},
		{session.Query{Owner: alice, AdditionalDirectories: []string{"/m", "/l"}}, []string{s3}},
		{session.Query{Owner: alice, AdditionalDirectories: []string{}}, []string{s1}},
		{session.Query{Owner: alice, Cwd: new("/q"), AdditionalDirectories: []string{"/l", "/m"}}, nil},
		{session.Query{Owner: NewID("nobody")}, nil},
	} {
		if got := list(c.q); !slices.Equal(got, c.want) {
			t.Errorf("List(owner %s, cwd %v, dirs %q) = %q, want %q", c.q.Owner, c.q.Cwd, c.q.AdditionalDirectories, got, c.want)
		}
	}
	p, _ := st.List(ctx, session.Query{Owner: alice, Cwd: new("/p"), AdditionalDirectories: []string{"/l", "/m"}})
	if len(p.Sessions) != 1 || !slices.Equal(p.Sessions[0].AdditionalDirectories, []string{"/l", "/m"}) || p.Sessions[0].Owner != alice {
		t.Errorf("a listed session: %+v", p.Sessions)
	}
}

func testListPaging(t *testing.T, st session.Store) {
	owner := NewID("pager")
	var created []string
	for range 7 {
		created = append(created, create(t, st, session.Info{ID: NewID("s"), Owner: owner, Cwd: "/"}).ID)
	}
	slices.Reverse(created)
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 7 {
			t.Fatal("paging does not end")
		}
		p, err := st.List(ctx, session.Query{Owner: owner, Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sessions) > 3 {
			t.Fatalf("a page of limit 3 has %d sessions", len(p.Sessions))
		}
		seen = append(seen, ids(p)...)
		if pages == 0 {
			// A session created while paging does not shift the pages.
			create(t, st, session.Info{ID: NewID("late"), Owner: owner, Cwd: "/"})
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if !slices.Equal(seen, created) {
		t.Errorf("paged %q, want %q", seen, created)
	}
	// A limit past MaxPageSize reads MaxPageSize at most.
	huge, err := st.List(ctx, session.Query{Owner: owner, Limit: math.MaxInt})
	if err != nil || len(huge.Sessions) != 8 || huge.NextCursor != "" {
		t.Errorf("List with the largest limit: %d sessions, next %q, %v", len(huge.Sessions), huge.NextCursor, err)
	}
	// An exact fit: the last full page has no next cursor, or one that
	// leads to an empty page.
	p, err := st.List(ctx, session.Query{Owner: owner, Limit: 8})
	if err != nil || len(p.Sessions) != 8 {
		t.Fatalf("List limit 8: %d sessions, %v", len(p.Sessions), err)
	}
	if p.NextCursor != "" {
		rest, err := st.List(ctx, session.Query{Owner: owner, Limit: 8, Cursor: p.NextCursor})
		if err != nil || len(rest.Sessions) != 0 || rest.NextCursor != "" {
			t.Errorf("after an exact fit: %+v, %v", rest, err)
		}
	}
}

func testListBadCursor(t *testing.T, st session.Store) {
	for _, c := range []string{"x", "c1.", "c1.-4", "c1.0", "c1.007", "c1.99999999999999999999", "c2.5"} {
		if _, err := st.List(ctx, session.Query{Cursor: c}); !errors.Is(err, session.ErrBadCursor) {
			t.Errorf("List with cursor %q: %v, want ErrBadCursor", c, err)
		}
	}
}

func testUpdatedAt(t *testing.T, st session.Store) {
	id := NewID("u")
	s := create(t, st, session.Info{ID: id})
	prev := s.Updated
	step := func(what string, do func() error) {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // a clock step the store can see
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		now := get(t, st, id).Updated
		if !now.After(prev) {
			t.Errorf("%s left updatedAt at %v (was %v)", what, now, prev)
		}
		prev = now
	}
	step("Append", func() error {
		_, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: Update(1)})
		return err
	})
	step("StartTurn", func() error { _, err := st.StartTurn(ctx, id, nil); return err })
	step("EndTurn", func() error { _, err := st.EndTurn(ctx, id, "end_turn"); return err })
	step("Update", func() error { _, err := st.Update(ctx, id, session.Change{Title: new("x")}); return err })
	step("CloseSession", func() error { _, err := st.CloseSession(ctx, id); return err })
	evs := events(t, st, id, 0, 0)
	if last := evs[len(evs)-1]; last.At.After(prev) {
		t.Errorf("the last event is recorded at %v, after the session's updatedAt %v", last.At, prev)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// wantLog fails t unless session id's log is want: each event's kind and
// data (JSON-equal), sequences 1, 2, ...
func wantLog(t *testing.T, st session.Store, id string, want []logEntry) {
	t.Helper()
	evs := events(t, st, id, 0, 0)
	if len(evs) != len(want) {
		t.Fatalf("log of %d events, want %d: %v", len(evs), len(want), evs)
	}
	for i, e := range evs {
		if e.Seq != uint64(i+1) || e.Kind != want[i].kind || !jsonEqual(e.Data, json.RawMessage(want[i].data)) {
			t.Errorf("event %d: %d %s %s, want %d %s %s", i, e.Seq, e.Kind, e.Data, i+1, want[i].kind, want[i].data)
		}
	}
}

type logEntry struct {
	kind session.Kind
	data string
}

func updates(from, to int) []session.Event {
	var evs []session.Event
	for n := from; n <= to; n++ {
		evs = append(evs, session.Event{Kind: session.KindUpdate, Data: Update(n)})
	}
	return evs
}

func testAppendBatch(t *testing.T, st session.Store) {
	id := NewID("b")
	create(t, st, session.Info{ID: id})
	batch := func(b session.Batch, want uint64) {
		t.Helper()
		last, err := st.AppendBatch(ctx, id, b)
		if err != nil || last != want {
			t.Fatalf("AppendBatch(%+v): %d, %v; want %d", b, last, err, want)
		}
	}
	turn := func(want session.Turn) {
		t.Helper()
		s := get(t, st, id)
		if s.Turn.Start != want.Start || s.Turn.State != want.State || s.Turn.Reason != want.Reason || !jsonEqual(s.Turn.Data, want.Data) {
			t.Errorf("turn %+v (data %s), want %+v (data %s)", s.Turn, s.Turn.Data, want, want.Data)
		}
	}
	// A whole turn in one batch.
	batch(session.Batch{Start: true, StartData: json.RawMessage(`{"requestId":7}`), Events: updates(1, 2), End: session.TurnEnded, Reason: "end_turn"}, 4)
	turn(session.Turn{Start: 1, State: session.TurnEnded, Data: json.RawMessage(`{"requestId":7}`), Reason: "end_turn"})
	// A turn over three batches: started with no data, appended to, ended
	// with an interruption after its last events.
	batch(session.Batch{Start: true}, 5)
	turn(session.Turn{Start: 5, State: session.TurnRunning, Data: json.RawMessage(`null`)})
	batch(session.Batch{Events: updates(3, 3)}, 6)
	turn(session.Turn{Start: 5, State: session.TurnRunning, Data: json.RawMessage(`null`)})
	batch(session.Batch{Events: updates(4, 4), End: session.TurnInterrupted, Reason: "instance died"}, 8)
	turn(session.Turn{Start: 5, State: session.TurnInterrupted, Data: json.RawMessage(`null`), Reason: "instance died"})
	// Nothing to record: the last sequence, nothing written.
	batch(session.Batch{}, 8)
	// Start and end, no events; then the methods of one part each still
	// see the batches' turns.
	batch(session.Batch{Start: true, StartData: json.RawMessage(`"x"`), End: session.TurnEnded, Reason: "cancelled"}, 10)
	if seq, err := st.StartTurn(ctx, id, nil); err != nil || seq != 11 {
		t.Fatalf("StartTurn after batches: %d, %v", seq, err)
	}
	batch(session.Batch{End: session.TurnEnded, Reason: "refusal"}, 12)
	turn(session.Turn{Start: 11, State: session.TurnEnded, Data: json.RawMessage(`null`), Reason: "refusal"})
	if s := get(t, st, id); s.LastSeq != 12 {
		t.Errorf("last sequence %d, want 12", s.LastSeq)
	}
	wantLog(t, st, id, []logEntry{
		{session.KindTurnStart, `{"requestId":7}`},
		{session.KindUpdate, string(Update(1))},
		{session.KindUpdate, string(Update(2))},
		{session.KindTurnEnd, `"end_turn"`},
		{session.KindTurnStart, `null`},
		{session.KindUpdate, string(Update(3))},
		{session.KindUpdate, string(Update(4))},
		{session.KindTurnInterrupted, `"instance died"`},
		{session.KindTurnStart, `"x"`},
		{session.KindTurnEnd, `"cancelled"`},
		{session.KindTurnStart, `null`},
		{session.KindTurnEnd, `"refusal"`},
	})
}

// testAppendBatchErrors: a batch a part of which its own method would
// refuse writes nothing.
func testAppendBatchErrors(t *testing.T, st session.Store) {
	if _, err := st.AppendBatch(ctx, NewID("missing"), session.Batch{Events: updates(1, 1)}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("AppendBatch to an unknown session: %v, want ErrNotFound", err)
	}
	id := NewID("b")
	create(t, st, session.Info{ID: id})
	refused := func(b session.Batch, want error) {
		t.Helper()
		before := get(t, st, id)
		if _, err := st.AppendBatch(ctx, id, b); !errors.Is(err, want) {
			t.Errorf("AppendBatch(%+v): %v, want %v", b, err, want)
		}
		if after := get(t, st, id); after.LastSeq != before.LastSeq || after.Turn.State != before.Turn.State || after.Turn.Start != before.Turn.Start {
			t.Errorf("a refused AppendBatch(%+v) wrote: last %d turn %+v, before last %d turn %+v", b, after.LastSeq, after.Turn, before.LastSeq, before.Turn)
		}
	}
	refused(session.Batch{Events: updates(1, 1), End: session.TurnEnded, Reason: "end_turn"}, session.ErrNoTurn)
	refused(session.Batch{Events: []session.Event{{Kind: session.KindTurnStart, Data: json.RawMessage(`1`)}}}, session.ErrInvalid)
	refused(session.Batch{Events: []session.Event{{Kind: session.KindUpdate, Data: json.RawMessage(`{`)}}}, session.ErrInvalid)
	refused(session.Batch{Start: true, StartData: json.RawMessage(`{`)}, session.ErrInvalid)
	refused(session.Batch{Start: true, End: session.TurnRunning}, session.ErrInvalid)
	refused(session.Batch{Start: true, End: session.TurnEnded, Reason: "bad\x00reason"}, session.ErrInvalid)
	if _, err := st.StartTurn(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	refused(session.Batch{Start: true, Events: updates(1, 2)}, session.ErrTurnRunning)
	if _, err := st.CloseSession(ctx, id); err != nil { // interrupts the turn
		t.Fatal(err)
	}
	refused(session.Batch{Events: updates(1, 1)}, session.ErrClosed)
	refused(session.Batch{Start: true}, session.ErrClosed)
	refused(session.Batch{End: session.TurnEnded, Reason: "end_turn"}, session.ErrNoTurn)
	if s := get(t, st, id); s.LastSeq != 2 {
		t.Errorf("last sequence %d, want 2 (the turn's start and its interruption)", s.LastSeq)
	}
}
