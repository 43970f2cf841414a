package proxy

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// exchange is one intercepted message on its way through its interceptor.
type exchange struct {
	c      *chain
	r      *route
	from   side
	id     wire.Raw // nil for a notification
	key    string
	origin origin // where a request's answer goes
	params wire.Raw
	passed atomic.Pointer[wire.Raw] // the last result next got: what initialize's answer keeps

	ctx       context.Context
	cancel    context.CancelFunc
	cancelled atomic.Bool   // by the sender's $/cancel_request
	release   func()        // lets the relay of the direction it came from go on
	answered  chan struct{} // closed once the interceptor has returned and answered
}

// claim makes an intercepted message an exchange as it is read, so a
// $/cancel_request read after it finds it even before it runs.
func (c *chain) claim(s side, r *route, it *item) *exchange {
	x := &exchange{c: c, r: r, from: s, params: it.env.Params, origin: it.origin, answered: make(chan struct{})}
	x.ctx, x.cancel = context.WithCancel(c.base)
	if it.isRequest() {
		x.id = append(wire.Raw(nil), it.env.ID...)
		x.key = jsonrpc.IDKey(x.id)
		c.mu.Lock()
		c.held[s][x.key] = x
		c.mu.Unlock()
	}
	return x
}

// cancelHeld handles $/cancel_request from side s: a request the proxy
// intercepted has its interceptor's context cancelled (its next cancels
// the request it sent, under the proxy's id); true when it was one. One
// naming an id under the proxy's prefix is dropped: s sent no request
// under it (those are refused), and relayed it would cancel one of the
// proxy's own. Any other is relayed, the id being the same on both sides.
func (c *chain) cancelHeld(s side, params wire.Raw) bool {
	id, ok := jsonrpc.CancelledID(params)
	if !ok {
		return false
	}
	key, own := c.ids.owns(id)
	if own {
		c.log.Debug("proxy: cancel of a request of the proxy's own dropped", "from", s.String(), "id", string(id))
		return true
	}
	c.mu.Lock()
	x := c.held[s][key]
	c.mu.Unlock()
	if x == nil {
		return false
	}
	x.cancelled.Store(true)
	x.cancel()
	return true
}

// intercept runs x's interceptor and waits until the direction it came
// from may go on: a request's once it has been passed on (next wrote it)
// or answered, a notification's once its interceptor returned. So the
// messages read after it are relayed after it. A request past the
// in-flight bound is answered -32001 and its interceptor does not run.
func (c *chain) intercept(x *exchange) {
	if x.id != nil && x.from == predecessor && c.draining() {
		// Read before the drain began, reaching its turn after.
		c.mu.Lock()
		c.forget(x)
		c.mu.Unlock()
		x.cancel()
		c.replyError(x.from, x.origin, x.id, errShuttingDown)
		c.checkDrained()
		return
	}
	if x.id != nil && !c.admitHeld(x) {
		c.replyError(x.from, x.origin, x.id, overloaded)
		return
	}
	rel := make(chan struct{})
	x.release = sync.OnceFunc(func() { close(rel) })
	c.work.Go(func() { c.serve(x) })
	c.wait(rel)
}

// admitHeld counts x in flight, or forgets it when its side is at the
// bound.
func (c *chain) admitHeld(x *exchange) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admit(x.from) {
		return true
	}
	c.forget(x)
	return false
}

// forget takes x out of the held requests, with c.mu held.
func (c *chain) forget(x *exchange) {
	if c.held[x.from][x.key] == x {
		delete(c.held[x.from], x.key)
	}
}

// unhold forgets x once answered.
func (c *chain) unhold(x *exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[x.from][x.key] == x {
		delete(c.held[x.from], x.key)
	}
	c.inflight[x.from]--
}

// serve calls x's interceptor and answers a request with what it returns.
func (c *chain) serve(x *exchange) {
	defer x.release()
	defer close(x.answered)
	defer x.cancel()
	ctx, finish := c.observeIn(x)
	if x.id == nil {
		err := c.runNotify(ctx, x)
		if err != nil {
			c.log.Warn("proxy: notification not passed on", "method", x.r.method.Wire, "error", err)
		}
		finish(codeOf(err), err)
		return
	}
	res, err := c.runRequest(ctx, x)
	c.unhold(x)
	if x.from == predecessor {
		defer c.checkDrained() // once the answer is written
	}
	if err != nil {
		e := c.rpcError(x, err)
		finish(e.Code, err)
		c.replyError(x.from, x.origin, x.id, e)
		return
	}
	finish(0, nil)
	c.reply(x.from, x.origin, appendResult(nil, x.id, res))
}

// errPanic is what an interceptor that panicked is answered with.
var errPanic = &wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error"}

// runNotify calls x's notification interceptor; a panic is logged with its stack
// and returned as an error, so a message that makes an interceptor panic
// does not end the proxy.
func (c *chain) runNotify(ctx context.Context, x *exchange) (err error) {
	defer c.recovered(x, &err)
	return x.r.notify(ctx, x)
}

// runRequest calls x's request interceptor as runNotify does, and holds
// initialize's answer to what the successor answered (checkInitialize).
func (c *chain) runRequest(ctx context.Context, x *exchange) (res wire.Raw, err error) {
	defer c.recovered(x, &err)
	res, err = x.r.request(ctx, x)
	if err == nil && x.r.method.Wire == methodInitialize {
		res, err = c.checkInitialize(x, res)
	}
	return res, err
}

// recovered turns a panic of x's interceptor into *err.
func (c *chain) recovered(x *exchange, err *error) {
	if v := recover(); v != nil {
		c.log.Error("proxy: interceptor panicked", "method", x.r.method.Wire, "id", string(x.id), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		*err = errPanic
	}
}

// rpcError is what an interceptor's error is answered with: -32800 once
// the sender cancelled the request; the error's own JSON-RPC error; what
// ended the chain; else -32603 with its text.
func (c *chain) rpcError(x *exchange, err error) *wire.RPCError {
	if x.cancelled.Load() {
		return &wire.RPCError{Code: wire.CodeCancelled, Message: "Request cancelled"}
	}
	var re *wire.RPCError
	if errors.As(err, &re) && re != nil {
		return re
	}
	var conv interface{ RPCError() *wire.RPCError }
	if errors.As(err, &conv) {
		if re := conv.RPCError(); re != nil {
			return re
		}
	}
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if cause != nil && errors.Is(err, context.Canceled) {
		return endError(cause)
	}
	return &wire.RPCError{Code: wire.CodeInternalError, Message: err.Error()}
}

// Request intercepts m's requests in the direction they travel (m's Side
// handles them: an agent-side method comes from the predecessor, a
// client-side one from the successor). f gets the decoded params and next,
// which passes params on to the other side under the proxy's own id and
// returns the decoded answer; f may inspect or change the params or the
// result, answer without calling next, or refuse with an error (a
// *wire.RPCError, or any error with an RPCError method, is answered as
// is; another error is -32603). Params that fail to decode are answered
// -32602 without calling f; a panic in f is logged and answered -32603.
// ctx is cancelled when the sender cancels the request ($/cancel_request);
// next then cancels its own. f's answer to initialize keeps the
// successor's protocolVersion, and is refused unless next succeeded (a
// proxy must not change the version, nor answer before its successor is
// initialized). It panics for a method intercepted twice or after Run.
func Request[P, R any](p *Proxy, m *dispatch.Request[P, R], f func(ctx context.Context, params P, next func(context.Context, P) (R, error)) (R, error)) {
	p.add(&route{method: &m.Method, request: func(ctx context.Context, x *exchange) (wire.Raw, error) {
		return interceptRequest(ctx, x, m, f)
	}})
}

func interceptRequest[P, R any](ctx context.Context, x *exchange, m *dispatch.Request[P, R], f func(context.Context, P, func(context.Context, P) (R, error)) (R, error)) (wire.Raw, error) {
	params := newOf[P]()
	if err := dispatch.DecodeParams(&m.Method, x.params, params, x.c.mode); err != nil {
		return nil, err
	}
	res, err := f(ctx, params, func(ctx context.Context, params P) (R, error) {
		return callMethod(ctx, x.c, x.from.other(), m, params, x)
	})
	if err != nil {
		return nil, err
	}
	return encode(x.c.mode, m.Wire, "result", m.Result, res)
}

// callMethod sends m with params to side to and decodes the answer.
func callMethod[P, R any](ctx context.Context, c *chain, to side, m *dispatch.Request[P, R], params P, x *exchange) (R, error) {
	var zero R
	raw, err := encode(c.mode, m.Wire, "params", m.Params, params)
	if err == nil {
		raw, err = c.call(ctx, to, m.Wire, raw, x)
	}
	if err != nil {
		return zero, err
	}
	res := newOf[R]()
	if err := dispatch.DecodeResult(&m.Method, raw, res, c.mode); err != nil {
		return zero, err
	}
	return res, nil
}

// Notification intercepts m's notifications as Request does requests: f
// gets the decoded params and next, which passes them on; a notification
// f does not pass on is dropped, and an error it returns is logged.
// Notifications that fail to decode are dropped and logged. Messages read
// after it from the same side wait until f returns, so order is kept.
func Notification[P any](p *Proxy, m *dispatch.Notification[P], f func(ctx context.Context, params P, next func(context.Context, P) error) error) {
	p.add(&route{method: &m.Method, notify: func(ctx context.Context, x *exchange) error {
		params := newOf[P]()
		if err := dispatch.DecodeParams(&m.Method, x.params, params, x.c.mode); err != nil {
			return err
		}
		return f(ctx, params, func(ctx context.Context, params P) error {
			return send(ctx, x.c, x.from.other(), m, params)
		})
	}})
}

// send sends m's notification with params to side to.
func send[P any](ctx context.Context, c *chain, to side, m *dispatch.Notification[P], params P) error {
	raw, err := encode(c.mode, m.Wire, "params", m.Params, params)
	if err != nil {
		return err
	}
	return c.notify(ctx, to, m.Wire, raw)
}

// encode checks v valid (leniently unless the proxy is strict, as it was
// decoded) and encodes it; a failure is this side's bug, a
// *wire.LocalError.
func encode[T any](mode wire.Mode, method, what string, t wire.Table, v T) (wire.Raw, error) {
	var zero T
	if any(v) == any(zero) {
		return nil, &wire.LocalError{Err: errors.New("none given"), Method: method, What: what}
	}
	if err := wire.Check(mode == wire.Lenient, func(vd *wire.Validator) { t.ValidateValue(vd, v) }); err != nil {
		return nil, &wire.LocalError{Err: err, Method: method, What: what}
	}
	return t.AppendValue(nil, v), nil
}

// newOf allocates what P, a pointer to a generated type, points to.
func newOf[P any]() P { return reflect.New(reflect.TypeFor[P]().Elem()).Interface().(P) }

// Call sends m's request to the side that handles it (an agent-side method
// to the successor, a client-side one to the predecessor) under the
// proxy's own id, and returns the decoded result: a request of the proxy's
// own, whose answer is never relayed. It needs Run to be running.
func Call[P, R any](ctx context.Context, p *Proxy, m *dispatch.Request[P, R], params P) (R, error) {
	c, to, err := running(p, &m.Method)
	if err != nil {
		var zero R
		return zero, err
	}
	return callMethod(ctx, c, to, m, params, nil)
}

// Notify sends m's notification to the side that handles it.
func Notify[P any](ctx context.Context, p *Proxy, m *dispatch.Notification[P], params P) error {
	c, to, err := running(p, &m.Method)
	if err != nil {
		return err
	}
	return send(ctx, c, to, m, params)
}

// running returns p's chain and the side that handles m.
func running(p *Proxy, m *dispatch.Method) (*chain, side, error) {
	c := p.chain.Load()
	if c == nil {
		return nil, 0, errors.New("proxy: " + m.Wire + ": the proxy is not running")
	}
	s, err := from(m)
	return c, s.other(), err
}
