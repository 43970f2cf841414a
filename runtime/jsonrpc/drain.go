package jsonrpc

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/wire"
)

// ErrDrained is the cancellation cause of the handler contexts a drain
// cancels at its deadline; see Drain and Drained.
var ErrDrained = errors.New("jsonrpc: connection drained")

// Drained reports whether ctx, a handler's context or one derived from it,
// was cancelled by a drain's deadline rather than by the peer or the end of
// the connection. (ACP: a prompt turn ended so answers stopReason
// "cancelled".)
func Drained(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrDrained)
}

// errShuttingDown answers a request read while the connection drains.
var errShuttingDown = &wire.RPCError{Code: CodeOverloaded, Message: "Server shutting down: request not handled; retry on a new connection"}

// Drain ends a connection gracefully. Pass the context WithDrain returns to
// Run, directly or through code that hands its context on (a router, a
// generated AgentConn); Start then makes that Run:
//
//   - answer each request read from then on with [CodeOverloaded] ("Server
//     shutting down"), without running its handler; notifications and
//     answers to our Calls are still read and handled, so a handler can
//     finish a Call to the peer and the peer can still cancel;
//   - let the requests already read run to their end, and wait for the
//     work held with Hold;
//   - when Start's context ends first, cancel the handlers' contexts with
//     cause [ErrDrained] (see Drained), write their answers, and wait for
//     the holds to be released;
//   - then stop as at the end of its context, returning nil.
//
// A Drain serves one connection at a time; its methods are safe for
// concurrent use.
type Drain struct {
	holds   atomic.Int64
	started chan struct{} // closed by Start
	expiry  chan struct{} // closed when Start's context ends

	mu      sync.Mutex // before Conn.mu
	once    bool       // started
	expired bool
	conn    *Conn // the Run taking the drain, nil when none runs
}

type drainKey struct{}

// WithDrain returns a copy of parent that carries a new Drain, and the
// Drain.
func WithDrain(parent context.Context) (context.Context, *Drain) {
	d := &Drain{started: make(chan struct{}), expiry: make(chan struct{})}
	return context.WithValue(parent, drainKey{}, d), d
}

// DrainFrom returns the Drain ctx carries (nil if none): a handler reaches
// its connection's with it.
func DrainFrom(ctx context.Context) *Drain {
	d, _ := ctx.Value(drainKey{}).(*Drain)
	return d
}

// Start begins the drain; when ctx ends, what still runs is cancelled. It
// does not wait, and reports whether a Run takes the drain: when none does
// (none has started yet, or it has returned), the caller ends the
// connection itself. The first call's ctx is the deadline.
func (d *Drain) Start(ctx context.Context) (running bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.once {
		d.once = true
		close(d.started)
		context.AfterFunc(ctx, d.expire)
	}
	if d.conn != nil {
		d.conn.beginDrain()
	}
	return d.conn != nil
}

// expire cancels what the attached Run still runs.
func (d *Drain) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expired = true
	close(d.expiry)
	if d.conn != nil {
		d.conn.stop(ErrDrained)
	}
}

// Started returns a channel closed when the drain starts.
func (d *Drain) Started() <-chan struct{} { return d.started }

// Expired returns a channel closed when the drain's deadline (the end of
// Start's context) has passed: work held with Hold then ends at once.
func (d *Drain) Expired() <-chan struct{} { return d.expiry }

// Hold marks work of the connection that outlives its request (ACP v2: a
// prompt turn runs on after session/prompt is answered): a drain waits for
// it as for a request, and the work ends once Expired is closed. Call it
// while a request of the connection is in flight (typically in the handler
// that starts the work), and call release, once, when the work has written
// its last message.
func (d *Drain) Hold() (release func()) {
	d.holds.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			if d.holds.Add(-1) == 0 {
				d.mu.Lock()
				c := d.conn
				d.mu.Unlock()
				if c != nil {
					c.mu.Lock()
					c.checkDrained()
					c.mu.Unlock()
				}
			}
		})
	}
}

// attach makes c, whose Run has started, the Run taking d; a drain
// already started or expired applies at once.
func (d *Drain) attach(c *Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn = c
	if d.once {
		c.beginDrain()
	}
	if d.expired {
		c.stop(ErrDrained)
	}
}

// detach ends c's hold on d, as its Run returns.
func (d *Drain) detach(c *Conn) {
	d.mu.Lock()
	if d.conn == c {
		d.conn = nil
	}
	d.mu.Unlock()
}

// beginDrain makes the reader refuse requests from now on.
func (c *Conn) beginDrain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.draining = true
	c.wake() // a reader waiting for room refuses the request instead
	c.checkDrained()
}

// checkDrained ends Run once a drain has nothing left to wait for: no
// request in flight and no hold. Called with mu held.
func (c *Conn) checkDrained() {
	if c.draining && !c.drainDone && c.requests == 0 && c.drain.holds.Load() == 0 {
		c.drainDone = true
		close(c.drained)
	}
}
