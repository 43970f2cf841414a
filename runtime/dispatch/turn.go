package dispatch

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
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
	ctx     turnCtx // the context its handler gets
	// next and prev link the turns of one session in turnTable.live.
	next, prev *Turn
	// set under turns.mu, read without it by Cancelled (which a prompt's
	// answer asks every time)
	cancelled atomic.Bool
	// guarded by turns.mu:
	done    chan struct{} // closed by a cancel; made when first asked for
	kept    int           // Keep calls not yet released
	ended   bool          // the request is answered
	dropped bool          // no longer in turnTable.live
}

// turnCtx is a turn's context: its request's, which a cancel of the turn
// ends (jsonrpc.CancelRequest), with the turn as a value.
type turnCtx struct {
	context.Context
	t *Turn
}

func (c *turnCtx) Value(key any) any {
	if key == (turnKey{}) {
		return c.t
	}
	return c.Context.Value(key)
}

type turnKey struct{}

// TurnFrom returns the turn a prompt handler's context belongs to, nil for
// any other context.
func TurnFrom(ctx context.Context) *Turn {
	if c, ok := ctx.(*turnCtx); ok {
		return c.t
	}
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

// closed is the Done of a turn cancelled before anything asked for it.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Done is closed when the peer cancels the turn.
func (t *Turn) Done() <-chan struct{} {
	t.turns.mu.Lock()
	defer t.turns.mu.Unlock()
	if t.done == nil {
		t.done = make(chan struct{})
		if t.cancelled.Load() {
			t.done = closed
		}
	}
	return t.done
}

// Cancelled reports whether the peer cancelled the turn.
func (t *Turn) Cancelled() bool { return t.cancelled.Load() }

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
	live    map[string]*Turn // the first of each session's turns, linked by next
	recent  [4]string        // the last sessions made (intern)
	next    int
}

// arrived registers a prompt's turn or applies a cancel, on the reading
// goroutine, in wire order.
func (tt *turnTable) arrived(ctx context.Context, method string, params wire.Raw, request bool) context.Context {
	switch {
	case request && method == tt.methods.Prompt:
		if s, ok := jsonrpc.SessionIDBytes(params); ok {
			return tt.start(ctx, s)
		}
	case !request && method == tt.methods.Cancel:
		if s, ok := jsonrpc.SessionIDBytes(params); ok {
			tt.cancel(s)
		}
	}
	return ctx
}

// start registers a turn of session s and returns the context its handler
// gets; req is its request's context, which ends once the request is
// answered (answered): the turn then ends unless kept. Until then the
// reader does not pause for room: the turn may wait for its cancel
// (jsonrpc.AwaitInput).
func (tt *turnTable) start(req context.Context, s []byte) context.Context {
	t := &Turn{turns: tt}
	t.ctx = turnCtx{req, t}
	jsonrpc.AwaitInput(req)
	tt.mu.Lock()
	if tt.live == nil {
		tt.live = map[string]*Turn{}
	}
	head := tt.live[string(s)]
	t.session = tt.intern(s, head)
	if head != nil {
		t.next, head.prev = head, t
	}
	tt.live[t.session] = t
	tt.mu.Unlock()
	return &t.ctx
}

// intern returns session s as a string: head's, the session's live turn,
// or one of the last sessions made, so that a prompt of a session seen
// lately makes none. Called with mu held.
func (tt *turnTable) intern(s []byte, head *Turn) string {
	if head != nil {
		return head.session
	}
	for _, r := range tt.recent {
		if r == string(s) {
			return r
		}
	}
	r := string(s)
	tt.recent[tt.next] = r
	tt.next = (tt.next + 1) % len(tt.recent)
	return r
}

// answered ends the turn whose request, of context ctx, is answered.
func (tt *turnTable) answered(ctx context.Context) {
	c, ok := ctx.(*turnCtx)
	if !ok {
		return
	}
	tt.mu.Lock()
	c.t.ended = true
	tt.drop(c.t)
	tt.mu.Unlock()
}

// drop unregisters t once its request is answered and no Keep holds it.
// Called with mu held.
func (tt *turnTable) drop(t *Turn) {
	if !t.ended || t.kept > 0 || t.dropped {
		return
	}
	switch {
	case t.prev != nil:
		t.prev.next = t.next
	case t.next != nil:
		tt.live[t.session] = t.next
	default:
		delete(tt.live, t.session)
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	t.next, t.prev, t.dropped = nil, nil, true
}

// cancel ends every registered turn of session s.
func (tt *turnTable) cancel(s []byte) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for t := tt.live[string(s)]; t != nil; t = t.next {
		if !t.cancelled.Load() {
			t.cancelled.Store(true)
			if t.done != nil {
				close(t.done)
			}
			jsonrpc.CancelRequest(t.ctx.Context, ErrTurnCancelled)
		}
	}
}
