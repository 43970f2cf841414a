package dispatch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// TurnMethods names a side's prompt turn: the request that starts a turn of
// a session and the notification that cancels every turn of that session
// read before it. Both carry the session as params' sessionId.
type TurnMethods struct {
	Prompt, Cancel string
}

// ErrTurnCancelled is the cancellation cause of a turn's context when the
// peer cancelled the turn (TurnMethods.Cancel).
var ErrTurnCancelled = errors.New("dispatch: turn cancelled by the peer")

// Turn is one prompt turn, registered when its request was read: a cancel
// read after the prompt ends it, one read before it never does, whatever
// order the handlers then run in (see jsonrpc.ArrivalHandler).
type Turn struct {
	turns   *turnTable
	session string
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed by a cancel
	// awaiting ends the connection's mark that a handler may wait for a
	// later message (the cancel): see jsonrpc.Conn.AwaitingInput.
	awaiting func()
	kept     int  // guarded by turns.mu: Keep calls not yet released
	ended    bool // guarded by turns.mu: the request is answered
}

type turnKey struct{}

// TurnFrom returns the turn a prompt handler's context belongs to, nil for
// any other context.
func TurnFrom(ctx context.Context) *Turn {
	t, _ := ctx.Value(turnKey{}).(*Turn)
	return t
}

// TurnCancelled reports whether ctx belongs to a turn the peer cancelled.
func TurnCancelled(ctx context.Context) bool {
	t := TurnFrom(ctx)
	return t != nil && t.Cancelled()
}

// Session is the turn's session.
func (t *Turn) Session() string { return t.session }

// Done is closed when the peer cancels the turn.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Cancelled reports whether the peer cancelled the turn.
func (t *Turn) Cancelled() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Keep keeps the turn registered after its request is answered, for a
// protocol whose turn runs on after the prompt's response (ACP v2): until
// release is called, a later cancel of the session still ends it. release
// may be called more than once.
func (t *Turn) Keep() (release func()) {
	tt := t.turns
	tt.mu.Lock()
	t.kept++
	tt.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			tt.mu.Lock()
			t.kept--
			tt.drop(t)
			tt.mu.Unlock()
		})
	}
}

// FinalWriteTimeout bounds each write of a cancelled turn's last updates
// (see End.Notify): a peer that stops reading cannot hold the turn.
const FinalWriteTimeout = 5 * time.Second

// flushing reports whether a notification sent on ctx, t's ended context,
// is one of t's last updates: the peer cancelled t, or a drain ended it,
// and its request is not answered yet.
func (t *Turn) flushing(ctx context.Context) bool {
	if !t.Cancelled() && !jsonrpc.Drained(ctx) {
		return false
	}
	t.turns.mu.Lock()
	defer t.turns.mu.Unlock()
	return !t.ended
}

// turnTable is a connection's turns by session.
type turnTable struct {
	mu      sync.Mutex
	methods *TurnMethods
	live    map[string]map[*Turn]struct{}
}

// arrived registers a prompt's turn or applies a cancel, on the reading
// goroutine, in wire order.
func (tt *turnTable) arrived(ctx context.Context, conn *jsonrpc.Conn, method string, params wire.Raw, request bool) context.Context {
	switch {
	case request && method == tt.methods.Prompt:
		if s, ok := jsonrpc.SessionID(params); ok {
			return tt.start(ctx, conn, s)
		}
	case !request && method == tt.methods.Cancel:
		if s, ok := jsonrpc.SessionID(params); ok {
			tt.cancel(s)
		}
	}
	return ctx
}

// start registers a turn of session s and returns the context its handler
// gets; req is its request's context, which the connection cancels once the
// request is answered: the turn then ends unless kept.
func (tt *turnTable) start(req context.Context, conn *jsonrpc.Conn, s string) context.Context {
	ctx, cancel := context.WithCancelCause(req)
	t := &Turn{turns: tt, session: s, cancel: cancel, done: make(chan struct{}), awaiting: conn.AwaitingInput()}
	ctx = context.WithValue(ctx, turnKey{}, t)
	tt.mu.Lock()
	if tt.live == nil {
		tt.live = map[string]map[*Turn]struct{}{}
	}
	ts := tt.live[s]
	if ts == nil {
		ts = map[*Turn]struct{}{}
		tt.live[s] = ts
	}
	ts[t] = struct{}{}
	tt.mu.Unlock()
	context.AfterFunc(req, func() {
		t.awaiting()
		tt.mu.Lock()
		t.ended = true
		tt.drop(t)
		tt.mu.Unlock()
	})
	return ctx
}

// drop unregisters t once its request is answered and no Keep holds it.
// Called with mu held.
func (tt *turnTable) drop(t *Turn) {
	if !t.ended || t.kept > 0 {
		return
	}
	delete(tt.live[t.session], t)
	if len(tt.live[t.session]) == 0 {
		delete(tt.live, t.session)
	}
}

// cancel ends every registered turn of session s.
func (tt *turnTable) cancel(s string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for t := range tt.live[s] {
		if !t.Cancelled() {
			close(t.done)
			t.cancel(ErrTurnCancelled)
		}
	}
}
