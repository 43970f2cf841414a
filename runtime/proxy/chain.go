package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// chain is one Run: the two links and what is in flight between them.
type chain struct {
	p     *Proxy
	log   *slog.Logger
	mode  wire.Mode
	links [2]Link
	wmu   [2]sync.Mutex // one writer per link at a time
	queue [2]*queue     // read from a side, to be written to the other
	ids   *idSpace

	mu         sync.Mutex
	calls      map[string]*call           // the proxy's own requests, by key
	fwd        [2]map[string][]*forwarded // relayed requests from a side, unanswered
	held       [2]map[string]*exchange    // intercepted requests from a side, unanswered
	inflight   [2]int                     // requests from a side relayed or intercepted, unanswered
	dead       [2]bool                    // the side's link failed: not written to
	ended      bool
	predClosed bool // the predecessor ended its input before the chain ended
	drained    bool // the drain of the context ended the chain
	cause      error

	drain *jsonrpc.Drain // the context's, nil when it carries none

	done  chan struct{} // closed when the chain ends
	base  context.Context
	stop  context.CancelFunc
	work  sync.WaitGroup // interceptors running
	relay sync.WaitGroup // the two relay goroutines
}

func newChain(ctx context.Context, p *Proxy, pred, succ Link) *chain {
	c := &chain{p: p, log: p.o.Logger, links: [2]Link{pred, succ}, ids: newIDSpace(), done: make(chan struct{})}
	if p.o.Strict {
		c.mode = wire.Strict
	}
	c.base, c.stop = context.WithCancel(ctx)
	c.drain = jsonrpc.DrainFrom(ctx)
	c.calls = map[string]*call{}
	for s := range 2 {
		c.queue[s] = newQueue(p.o.MaxQueued)
		c.fwd[s] = map[string][]*forwarded{}
		c.held[s] = map[string]*exchange{}
	}
	return c
}

var sides = [2]side{predecessor, successor}

// neither names no side: the chain ended for a reason of its own.
const neither side = 2

// run relays until the chain ends, then answers what is left and closes
// both links.
func (c *chain) run() error {
	for _, s := range sides {
		go c.read(s)
		c.relay.Go(func() { c.forward(s) })
	}
	if c.drain != nil {
		go c.watchDrain()
	}
	select {
	case <-c.done:
	case <-c.base.Done():
		c.end(neither, context.Cause(c.base))
	}
	c.closeDead()
	c.relay.Wait() // the queues' requests are answered
	c.stop()       // interceptors' next calls have failed; this ends what else they wait on
	c.work.Wait()
	c.answerForwarded()
	for _, l := range c.links {
		_ = l.Close()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.predClosed || c.drained {
		return nil
	}
	return c.cause
}

// closeDead closes the links that failed, which unblocks a write waiting
// on one, and both when the context ended.
func (c *chain) closeDead() {
	c.mu.Lock()
	dead := c.dead
	all := c.base.Err() != nil
	c.mu.Unlock()
	for _, s := range sides {
		if dead[s] || all {
			_ = c.links[s].Close()
		}
	}
}

// end ends the chain once: cause is what ended it, s the side whose link
// failed (neither: none). Pending calls of the proxy's own fail with cause;
// the queues stop taking messages.
func (c *chain) end(s side, cause error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended, c.cause = true, cause
	if s <= successor {
		c.dead[s] = true
	}
	calls := c.calls
	c.calls = nil
	c.mu.Unlock()
	close(c.done)
	for _, q := range c.queue {
		q.close()
	}
	for _, cl := range calls {
		cl.ch <- reply{err: endError(cause)}
	}
}

// endError is the JSON-RPC error a request left unanswered by the chain's
// end gets: -32603 naming what ended.
func endError(cause error) *wire.RPCError {
	return &wire.RPCError{Code: wire.CodeInternalError, Message: cause.Error()}
}

// readEnded queues the end of side s's input behind what was read before
// it, so that is relayed first.
func (c *chain) readEnded(s side, err error) {
	if !c.queue[s].push(&item{eof: true, err: err}) {
		c.end(s, err) // the chain has ended already: this records nothing
	}
}

// inputEnded acts on the end of side s's input once what was read before
// it is relayed: the predecessor's io.EOF is a half-close, passed on to the
// successor (whose input ends, and which then ends the chain as its output
// ends); anything else ends the chain.
func (c *chain) inputEnded(s side, err error) {
	if s == predecessor && errors.Is(err, io.EOF) {
		c.mu.Lock()
		c.predClosed = !c.ended
		c.mu.Unlock()
		c.closeInput(s.other())
		return
	}
	if errors.Is(err, io.EOF) {
		err = errors.New(s.String() + " closed the connection")
	}
	c.end(s, err)
}

// write sends frame to side s; a failure ends the chain.
func (c *chain) write(s side, frame []byte) error {
	c.mu.Lock()
	dead := c.dead[s]
	c.mu.Unlock()
	if dead {
		return errors.New(s.String() + " is gone")
	}
	c.wmu[s].Lock()
	err := c.links[s].Write(frame)
	c.wmu[s].Unlock()
	if err != nil {
		err = errors.New("writing to " + s.String() + ": " + err.Error())
		c.end(s, err)
	}
	return err
}

// isDone reports whether the chain has ended.
func (c *chain) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
