package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Options configure a Proxy; the zero value is usable.
type Options struct {
	// Strict decodes intercepted messages without the schema's leniency.
	Strict bool
	// Observer, when set, is told of every message the proxy relays, both
	// as received from one side and as sent to the other, and of its own
	// requests; what it injects on the way out (trace context) is written
	// into the forwarded params' _meta. It is the one rewrite of a message
	// no interceptor claims.
	Observer dispatch.Observer
	// Logger receives what the proxy logs: interceptors' refusals of
	// notifications, messages it drops. Default: text on os.Stderr.
	Logger *slog.Logger
	// MaxQueued bounds the bytes read from one side and not yet written to
	// the other (each message counted as its length plus
	// jsonrpc.FrameOverhead). Default DefaultMaxQueued.
	MaxQueued int
	// MaxInFlight bounds the requests from one side that are relayed or
	// with an interceptor and not answered yet (an interceptor runs on a
	// goroutine of its own); one past it is answered
	// jsonrpc.CodeOverloaded (-32001) and goes no further, as pausing the
	// side's reading could wait forever for an answer read after it. A
	// batch of more requests is refused whole. Default
	// jsonrpc.DefaultMaxRelayed.
	MaxInFlight int
}

// DefaultMaxQueued is Options.MaxQueued's default.
const DefaultMaxQueued = 1 << 20

// Proxy relays one chain link between a predecessor (the editor's side) and
// a successor (the agent's side): to its predecessor it is an agent, to its
// successor a client. Messages no interceptor claims pass as the same bytes
// with the same id. Register interceptors (Request, Notification) before
// Run; a Proxy runs once.
type Proxy struct {
	o       Options
	routes  [2]map[string]*route // by the side the method's messages come from
	chain   atomic.Pointer[chain]
	started atomic.Bool
}

// New returns a Proxy that intercepts nothing yet.
func New(o Options) *Proxy {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = jsonrpc.DefaultMaxRelayed
	}
	return &Proxy{o: o, routes: [2]map[string]*route{{}, {}}}
}

// Run relays between predecessor and successor until the chain ends, and
// closes both. It returns nil when the predecessor closed its side first
// (the successor then ends as its input ended); otherwise what ended the
// chain: the successor exiting or closing ("agent exited: exit status
// 3"), a link that broke, or ctx ending. Requests still waiting for an
// answer when it ends are answered with a JSON-RPC error naming that.
//
// When ctx carries a jsonrpc.Drain (jsonrpc.WithDrain), Run drains once it
// starts: a request of the predecessor's read from then on is answered
// jsonrpc.CodeOverloaded ("Server shutting down") and not relayed, while
// everything else is relayed as before, so the requests in flight can
// finish; once none is left the chain ends and Run returns nil. At the
// drain's deadline those still in flight are cancelled (an intercepted
// one's context, a relayed one with $/cancel_request to the successor) and
// their answers still relayed; ctx bounds what follows. Drain.Start
// reports false for a Proxy, which is no jsonrpc.Conn.
func (p *Proxy) Run(ctx context.Context, predecessor, successor Link) error {
	if !p.started.CompareAndSwap(false, true) {
		return errors.New("proxy: Run called twice")
	}
	c := newChain(ctx, p, predecessor, successor)
	p.chain.Store(c)
	return c.run()
}

// side is one of a proxy's two links.
type side uint8

const (
	predecessor side = iota
	successor
)

func (s side) other() side { return 1 - s }

func (s side) String() string {
	if s == predecessor {
		return "predecessor"
	}
	return "successor"
}

// from returns the side a method's messages come from: the one opposite
// the side that handles it.
func from(m *dispatch.Method) (side, error) {
	switch m.Side {
	case "agent":
		return predecessor, nil
	case "client":
		return successor, nil
	}
	return 0, fmt.Errorf("proxy: %s is handled by the %s side, which a proxy does not relay", m.Wire, m.Side)
}

// route is how the proxy handles one intercepted method.
type route struct {
	method  *dispatch.Method
	request func(ctx context.Context, x *exchange) (wire.Raw, error)
	notify  func(ctx context.Context, x *exchange) error
}

// add registers r; a second interceptor for a method, or one added while
// running, is a programming error.
func (p *Proxy) add(r *route) {
	s, err := from(r.method)
	if err != nil {
		panic(err)
	}
	if p.started.Load() {
		panic("proxy: " + r.method.Wire + " intercepted after Run")
	}
	if _, dup := p.routes[s][r.method.Wire]; dup {
		panic("proxy: " + r.method.Wire + " intercepted twice")
	}
	p.routes[s][r.method.Wire] = r
}
