package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// InterruptedReason is the reason Host records for a turn found running in
// the store that no turn of this process runs: its process died (or its
// connection ended) before the turn did.
const InterruptedReason = "agent process ended during the turn"

// Host is the protocol-independent part of an agent whose sessions live in
// a Store: who may reach a session, the turns this process runs, and the
// session lifecycle every ACP version shares (create, reopen for load and
// resume, replay, close, delete, fork, list). The v1 and v2 agents of
// examples/storeagent are thin adapters over it, translating their
// generated types. A session of another owner is answered ErrNotFound, as
// an unknown one, by every method.
type Host struct {
	st      Store
	durable bool

	mu      sync.Mutex
	running map[string]*hostTurn // sessions with a turn in this process
	closing map[string]int       // sessions a Close or Delete is ending
	ended   uint64               // Closes and Deletes done, for BeginTurn
	known   map[string]known     // what this process last read of sessions
}

// known is what a Host keeps of a session it created or read, so that a
// turn (BeginTurn) needs no read: its owner and _meta, which only its
// creation sets (the Host never changes them), and whether it was closed.
// Close and Delete forget it, as does a turn that failed, since the store
// may then hold what this process does not know (another process's turn or
// close; the connection whose record failed has ended, and the next turn
// reads again). At most maxKnown sessions are kept; when full it starts
// over.
type known struct {
	owner  string
	meta   json.RawMessage
	closed bool
}

const maxKnown = 1 << 14

// remember keeps what s says of its session; the caller holds h.mu.
func (h *Host) remember(s Session) {
	if len(h.known) >= maxKnown {
		clear(h.known)
	}
	h.known[s.ID] = known{owner: s.Owner, meta: s.Meta, closed: s.Closed}
}

func (h *Host) rememberNow(s Session) {
	h.mu.Lock()
	h.remember(s)
	h.mu.Unlock()
}

func (h *Host) forgetKnown(id string) {
	h.mu.Lock()
	delete(h.known, id)
	h.mu.Unlock()
}

type hostTurn struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed by Release
}

// NewHost returns a Host over st. A nil st (the store could not be opened)
// keeps sessions in memory for the life of the process, and Durable reports
// false, so that the agent advertises no load, list, resume, close, delete
// or fork.
func NewHost(st Store) *Host {
	h := &Host{st: st, durable: st != nil, running: map[string]*hostTurn{}, closing: map[string]int{}, known: map[string]known{}}
	if st == nil {
		h.st = NewMemory()
	}
	return h
}

// Store is the store sessions live in (a Memory when NewHost was given nil).
func (h *Host) Store() Store { return h.st }

// Durable reports whether the Host has the store it was given: the
// capabilities an agent derives from the store are advertised only then.
func (h *Host) Durable() bool { return h.durable }

// New creates a session from info (its Owner, Cwd, AdditionalDirectories,
// Title and Meta) with a random 128-bit id, and returns the id.
func (h *Host) New(ctx context.Context, info Info) (string, error) {
	info.ID = newID()
	if info.AdditionalDirectories == nil {
		info.AdditionalDirectories = []string{}
	}
	s, err := h.st.Create(ctx, info)
	if err == nil {
		h.rememberNow(s)
	}
	return info.ID, err
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return "sess-" + hex.EncodeToString(b[:])
}

// Get returns owner's session id; ErrNotFound when there is none or it is
// another owner's.
func (h *Host) Get(ctx context.Context, owner, id string) (Session, error) {
	s, err := h.st.Get(ctx, id)
	if err != nil {
		return s, err
	}
	h.rememberNow(s)
	if s.Owner != owner {
		return Session{}, ErrNotFound
	}
	return s, nil
}

// Reopen makes owner's session current again with the request's roots
// (never the stored ones: roots are not carried over), reopens it if it was
// closed, and interrupts a turn the store says is running that this process
// does not run. It returns the session as it then is: what load and resume
// report as its turn state.
func (h *Host) Reopen(ctx context.Context, owner, id, cwd string, dirs []string) (Session, error) {
	if _, err := h.Get(ctx, owner, id); err != nil {
		return Session{}, err
	}
	if dirs == nil {
		dirs = []string{}
	}
	s, err := h.st.Update(ctx, id, Change{Cwd: &cwd, AdditionalDirectories: dirs, Reopen: true})
	if err != nil {
		return Session{}, err
	}
	if s.Turn.State == TurnRunning && !h.Running(id) {
		if _, err := h.st.InterruptTurn(ctx, id, InterruptedReason); err != nil && !errors.Is(err, ErrNoTurn) {
			return Session{}, err
		}
		return h.Get(ctx, owner, id)
	}
	h.rememberNow(s)
	return s, nil
}

// Running reports whether this process runs a turn of session id.
func (h *Host) Running(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running[id] != nil
}

// StartTurn registers a turn of session id in this process, cancelled by
// cancel on close and delete, and records its start with data (see
// Store.StartTurn), interrupting first a turn a dead process left running.
// It returns the start's sequence, unique in the session: a name for the
// turn's messages that no later turn, in any process, reuses. When this
// process already runs a turn of the session it returns ErrTurnRunning and
// that turn's end (closed by Release), for a caller that holds the prompt;
// while a Close or Delete of the session is under way, ErrClosed.
func (h *Host) StartTurn(ctx context.Context, id string, data json.RawMessage, cancel context.CancelCauseFunc) (seq uint64, busy <-chan struct{}, err error) {
	h.mu.Lock()
	if h.closing[id] > 0 {
		h.mu.Unlock()
		return 0, nil, ErrClosed
	}
	if t := h.running[id]; t != nil {
		h.mu.Unlock()
		return 0, t.done, ErrTurnRunning
	}
	h.running[id] = &hostTurn{cancel: cancel, done: make(chan struct{})}
	h.mu.Unlock()
	s, err := h.st.Get(ctx, id)
	if err == nil && s.Turn.State == TurnRunning {
		_, err = h.st.InterruptTurn(ctx, id, InterruptedReason)
	}
	if err == nil {
		seq, err = h.st.StartTurn(ctx, id, data)
	}
	if err != nil {
		h.forget(id)
	}
	return seq, nil, err
}

// BeginTurn is StartTurn for an agent whose connection records the turn's
// start itself, in the batch of the turn's first updates (TurnStartMethod
// through its BatchRecorder), and its end in the batch of its last
// (TurnEndMethod, flushed before Release): a turn then costs the store no
// write of its own. It checks owner's session id (ErrNotFound for another
// owner's) with what this process knows of it (the session it created or
// last read: owner, _meta, closed), reading it only when it knows nothing,
// passes that to check when check is not nil (an error from check is
// returned as it is), and registers a turn of the session in this process
// as StartTurn does (ErrTurnRunning when one runs here, ErrClosed while a
// Close or Delete is under way or when the session is closed). It writes
// to the store only to interrupt a turn a read found running that no turn
// here runs (its process died). On an error nothing stays registered.
//
// What another process did since (a close, a turn it runs) is found by the
// turn's first batch, whose start the store then refuses: the connection
// fails as for any record failure, the failed turn's RecordEnd forgets what
// this process knew, and the session's next turn reads it.
func (h *Host) BeginTurn(ctx context.Context, owner, id string, check func(Session) error, cancel context.CancelCauseFunc) error {
	h.mu.Lock()
	ended := h.ended
	k, ok := h.known[id]
	h.mu.Unlock()
	var s Session
	var err error
	if ok {
		s = Session{Info: Info{ID: id, Owner: k.owner, Meta: k.meta}, Closed: k.closed}
		if k.owner != owner {
			err = ErrNotFound
		}
	} else {
		s, err = h.Get(ctx, owner, id)
	}
	if err == nil && check != nil {
		err = check(s)
	}
	if err != nil {
		return err
	}
	h.mu.Lock()
	if h.closing[id] > 0 {
		h.mu.Unlock()
		return ErrClosed
	}
	if h.running[id] != nil {
		h.mu.Unlock()
		return ErrTurnRunning
	}
	h.running[id] = &hostTurn{cancel: cancel, done: make(chan struct{})}
	reread := h.ended != ended
	h.mu.Unlock()
	if reread {
		// A Close or Delete of this process ended between the check and
		// the registration: read what it left.
		s, err = h.Get(ctx, owner, id)
	}
	switch {
	case err != nil:
	case s.Closed:
		err = ErrClosed
	case s.Turn.State == TurnRunning:
		// Not this process's (it would be registered), or one of this
		// process that has ended since the read (then ErrNoTurn).
		if _, err = h.st.InterruptTurn(ctx, id, InterruptedReason); errors.Is(err, ErrNoTurn) {
			err = nil
		}
	}
	if err != nil {
		h.forget(id)
	}
	return err
}

// EndTurn records how this process's turn of session id ended
// (RecordEnd), then forgets it (Release).
func (h *Host) EndTurn(id, stop, why string) error {
	err := h.RecordEnd(id, stop, why)
	h.Release(id)
	return err
}

// RecordEnd records how this process's turn of session id ended (stop ""
// means it failed, recorded as interrupted with reason why), on a context
// of its own, since the turn's may have ended; a turn close already
// interrupted is not an error. The turn stays registered until Release, so
// a turn that reports its end to the client after recording it (v2's idle
// state_update) is waited for by close until it has.
func (h *Host) RecordEnd(id, stop, why string) error {
	if stop == "" {
		h.forgetKnown(id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if stop != "" {
		_, err = h.st.EndTurn(ctx, id, stop)
	} else {
		_, err = h.st.InterruptTurn(ctx, id, why)
	}
	if errors.Is(err, ErrNoTurn) || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Release forgets this process's turn of session id: close and delete stop
// waiting for it, and a held prompt may start.
func (h *Host) Release(id string) { h.forget(id) }

func (h *Host) forget(id string) {
	h.mu.Lock()
	t := h.running[id]
	delete(h.running, id)
	h.mu.Unlock()
	if t != nil {
		close(t.done)
	}
}

// ErrSessionClosed is the cause a turn's context gets when close or delete
// ends it.
var ErrSessionClosed = errors.New("session closed")

// stop cancels this process's turn of session id, if any, and waits until
// it has ended (Release) or ctx ends: what the turn sends last is sent
// before close answers. No turn of the session starts until done is
// called, once the session is closed or deleted.
func (h *Host) stop(ctx context.Context, id string) (done func(), err error) {
	h.mu.Lock()
	h.closing[id]++
	t := h.running[id]
	delete(h.known, id)
	h.mu.Unlock()
	done = func() {
		h.mu.Lock()
		if h.closing[id]--; h.closing[id] == 0 {
			delete(h.closing, id)
		}
		h.ended++
		h.mu.Unlock()
	}
	if t == nil {
		return done, nil
	}
	t.cancel(ErrSessionClosed)
	select {
	case <-t.done:
		return done, nil
	case <-ctx.Done():
		return done, ctx.Err()
	}
}

// Close ends owner's session's running turn and marks it closed, keeping
// its record.
func (h *Host) Close(ctx context.Context, owner, id string) error {
	if _, err := h.Get(ctx, owner, id); err != nil {
		return err
	}
	done, err := h.stop(ctx, id)
	defer done()
	if err != nil {
		return err
	}
	_, err = h.st.CloseSession(ctx, id)
	return err
}

// Delete ends owner's session's running turn and removes the session.
func (h *Host) Delete(ctx context.Context, owner, id string) error {
	if _, err := h.Get(ctx, owner, id); err != nil {
		return err
	}
	done, err := h.stop(ctx, id)
	defer done()
	if err != nil {
		return err
	}
	return h.st.Delete(ctx, id)
}

// Fork copies session from of info.Owner into a new session made from info
// (as New does), and returns its id. The copy's log is the original's; a
// turn running there is interrupted in the copy (Store.Fork).
func (h *Host) Fork(ctx context.Context, from string, info Info) (string, error) {
	if _, err := h.Get(ctx, info.Owner, from); err != nil {
		return "", err
	}
	info.ID = newID()
	if info.AdditionalDirectories == nil {
		info.AdditionalDirectories = []string{}
	}
	s, err := h.st.Fork(ctx, from, info)
	if err == nil {
		h.rememberNow(s)
	}
	return info.ID, err
}

// List returns a page of owner's sessions (q's Owner is set to owner).
func (h *Host) List(ctx context.Context, owner string, q Query) (Page, error) {
	q.Owner = owner
	return h.st.List(ctx, q)
}

// ReplayFrom calls send with every update recorded in session id's log at
// or after sequence from (inclusive, as v2's replayFrom cursors are; 0 and
// 1 both mean the first), in order: what v1's session/load and v2's
// session/resume with replayFrom send (on a context from Unrecorded, so
// the replay is not recorded again). Events are read in pages, so a long
// log is not held whole.
func (h *Host) ReplayFrom(ctx context.Context, id string, from uint64, send func(seq uint64, update json.RawMessage) error) (n int, err error) {
	const page = 1024
	after := uint64(0)
	if from > 0 {
		after = from - 1
	}
	for {
		evs, err := h.st.Events(ctx, id, after, page)
		if err != nil {
			return n, err
		}
		for _, e := range evs {
			after = e.Seq
			if e.Kind != KindUpdate {
				continue
			}
			if err := send(e.Seq, e.Data); err != nil {
				return n, err
			}
			n++
		}
		if len(evs) < page {
			return n, nil
		}
	}
}
