package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Replies the runtime makes itself. They are shared, never mutated.
var errOverloaded = &wire.RPCError{Code: CodeOverloaded, Message: "Server overloaded: too many requests in flight; retry later"}

// startRequest admits an inbound request, once there is room for it, and
// runs it inline (see runInline) or hands it to a worker; past the bounds,
// when pausing is not safe, it refuses the request with CodeOverloaded. cost
// is what the frame counts against MaxBuffered. It reports whether this
// goroutine still holds the reading role.
func (c *Conn) startRequest(m *message, cost int, mayInline bool) (reading bool) {
	c.mu.Lock()
	switch c.admit(1, cost) {
	case refused:
		c.mu.Unlock()
		c.refuse(m)
		c.replyError(m.id, errOverloaded)
		return true
	case shutDown:
		c.mu.Unlock()
		c.log.Debug("jsonrpc: request read during shutdown not handled", "method", m.method, "id", string(m.id))
		return true
	case draining:
		c.mu.Unlock()
		c.log.Debug("jsonrpc: request read while draining refused", "method", m.method, "id", string(m.id))
		c.replyError(m.id, errShuttingDown)
		return true
	}
	j := c.track(m, cost)
	// Inline only when the reader could pause anyway (no answer or later
	// message awaited) and a handler slot is free at once.
	inline := mayInline && c.pauseSafe() && c.trySlot()
	if inline {
		c.inlining = true
		c.runs++
		if !c.ticking {
			c.ticking, c.watched = true, c.runs
			c.watchdog.Reset(inlineSlice)
		}
	}
	c.mu.Unlock()
	j.ctx = c.arrived(j.ctx, m, true)
	if inline {
		return c.runInline(j)
	}
	c.dispatch(j)
	return true
}

// arrived tells an ArrivalHandler of m, on the reading goroutine; see
// ArrivalHandler. It returns the context m is handled with. Called without
// mu (Arrived may call back into the Conn), before m is handed on.
func (c *Conn) arrived(ctx context.Context, m *message, request bool) context.Context {
	if c.arrivals == nil {
		return ctx
	}
	return c.arrivals.Arrived(ctx, m.method, m.params, request)
}

// admission is what admit decided.
type admission uint8

const (
	admitted admission = iota
	refused            // past the bounds, and pausing could deadlock
	shutDown           // read as the connection shut down (Close, end of Run's context)
	draining           // read while a Drain runs
)

// admit waits until n requests whose frames cost cost fit within the
// bounds, and counts them, unless pausing could deadlock (refused) or the
// connection stops taking requests. Called with mu held.
func (c *Conn) admit(n, cost int) admission {
	for !c.closed && !c.draining && !(c.requests+n <= c.maxInFlight && (c.held+cost <= c.maxBuffered || c.held == 0)) {
		if !c.pauseSafe() {
			return refused
		}
		c.wait()
	}
	switch {
	case c.closed:
		return shutDown
	case c.draining:
		return draining
	}
	c.requests += n
	c.held += cost
	return admitted
}

// refuse logs a request refused at the bounds.
func (c *Conn) refuse(m *message) {
	c.mu.Lock()
	n, held := c.requests, c.held
	c.mu.Unlock()
	c.warn(warnRefused, "jsonrpc: request refused, the connection is at its bounds", "method", m.method, "id", string(m.id),
		"inFlight", n, "maxInFlight", c.maxInFlight, "held", held, "maxBuffered", c.maxBuffered)
}

// track registers an admitted request for $/cancel_request and shutdown
// and returns its job. Called with mu held, the connection not closed.
func (c *Conn) track(m *message, cost int) job {
	in := &inbound{c: c, id: m.id, idx: len(c.inflight), cost: cost}
	in.ctx.base, in.ctx.in = c.base, in
	c.inflight = append(c.inflight, in)
	c.wg.Add(1) // under mu, so it happens before shutdown's Wait
	return job{ctx: &in.ctx, in: in, id: m.id, method: m.method, params: m.params, decoded: m.decoded}
}

// forget removes in, answered, from the requests in flight, with its
// AwaitInput mark. Called with mu held.
func (c *Conn) forget(in *inbound) {
	if in.awaiting {
		c.awaiting--
		c.wake()
	}
	in.awaiting, in.gone = false, true
	last := len(c.inflight) - 1
	moved := c.inflight[last]
	c.inflight[in.idx], moved.idx = moved, in.idx
	c.inflight[last] = nil
	c.inflight = c.inflight[:last]
}

// dispatch hands a job to an idle worker, or to a new one. Under mu, as
// shutdown closes jobs.
func (c *Conn) dispatch(j job) {
	c.mu.Lock()
	if !c.closed {
		select {
		case c.jobs <- j: // an idle worker takes it
			c.mu.Unlock()
			return
		default:
		}
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go c.worker(j)
}

// trySlot takes a handler slot if one is free.
func (c *Conn) trySlot() bool {
	select {
	case c.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// inlineSlice is the watchdog's period: a request runs inline, answer
// written included, for one to two periods before the reading role passes to
// a new goroutine.
const inlineSlice = 200 * time.Microsecond

// runInline runs a request on the goroutine holding the reading role, with a
// slot already taken: no hand-off to a worker and back (two goroutine
// switches and a wake-up per request). The reader stops meanwhile, so the
// role passes to a new goroutine (handOff) as soon as anything makes a Call,
// whose answer the reader must read, or once the request has run for one to
// two inlineSlice periods (tick), as it may be waiting for anything (a
// $/cancel_request, a later request, the peer to read our writes). It reports
// whether this goroutine still holds the role.
func (c *Conn) runInline(j job) (reading bool) {
	reading = c.answer(j, true, true)
	c.wg.Done()
	return reading
}

// tick is the watchdog: it hands the reading role off from a request that has
// run inline since the last tick, and ticks again while requests run inline.
// A watchdog rather than a timer per request: arming and stopping a timer for
// every request would cost a good part of what running inline saves.
func (c *Conn) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.inlining {
		c.ticking = false
		return
	}
	if c.runs == c.watched {
		c.handOff()
		c.ticking = false
		return
	}
	c.watched = c.runs
	c.watchdog.Reset(inlineSlice)
}

// handOff passes the reading role from a request running inline to a new
// goroutine. After shutdown nothing more is read, so none starts. Called with
// mu held.
func (c *Conn) handOff() {
	if !c.inlining {
		return
	}
	c.inlining = false
	if !c.closed {
		go c.read()
	}
}

// job is one inbound request for a worker.
type job struct {
	ctx     context.Context
	in      *inbound
	id      wire.Raw
	method  string
	params  wire.Raw
	decoded any         // see message
	batch   *batchReply // the batch the request came in, nil for a single one
}

// worker serves requests until shutdown. Workers are reused rather than one
// goroutine started per request: a fresh goroutine's small stack grows (and
// is copied) on every request deep in decoding; a warm one has grown already.
// There are never more workers than requests were once in flight together.
func (c *Conn) worker(j job) {
	defer c.wg.Done()
	for ok := true; ok; j, ok = <-c.jobs { // one channel: a select would cost more than the hand-off
		c.serve(j)
	}
}

// answered forgets an answered request and releases what it held; inline
// says it ran inline, and reading whether this goroutine still holds the
// reading role then (see runInline).
func (c *Conn) answered(in *inbound, inline bool) (reading bool) {
	c.mu.Lock()
	c.forget(in)
	c.requests--
	c.held -= in.cost
	if inline {
		reading, c.inlining = c.inlining, false
	}
	c.wake()
	c.checkDrained()
	c.mu.Unlock()
	return reading
}

// cancelInbound handles $/cancel_request.
func (c *Conn) cancelInbound(params wire.Raw) {
	id, ok := CancelledID(params)
	if !ok {
		c.warn(warnBadCancel, "jsonrpc: malformed $/cancel_request ignored", "params", preview(params))
		return
	}
	found := false
	c.mu.Lock()
	for _, in := range c.inflight {
		if sameID(in.id, id) {
			in.ctx.peer.Store(true)
			in.ctx.cancel(errPeerCancelled)
			found = true
		}
	}
	c.mu.Unlock()
	if !found {
		c.log.Debug("jsonrpc: $/cancel_request for unknown id", "id", string(id))
	}
}

// Replies the runtime makes itself. They are shared, never mutated.
var (
	errPanic     = &wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error"}
	errCancelled = &wire.RPCError{Code: wire.CodeCancelled, Message: "Request cancelled"}
)

// serve waits for a handler slot, then runs the request's handler and
// answers it. The handler runs unless the peer cancelled the request before
// it started; shutdown does not keep it from running (its context is then
// already cancelled), so every request read before EOF is handled the same
// way whatever the timing.
func (c *Conn) serve(j job) {
	defer c.wg.Done()
	slot := c.trySlot() // without waiting on Done, which would make the context
	if !slot {
		slot = true
		select {
		case c.sem <- struct{}{}:
		case <-j.ctx.Done():
			if slot = !j.in.ctx.peer.Load(); slot {
				c.sem <- struct{}{} // shutdown: the handler still runs
			}
		}
	}
	c.answer(j, slot, false)
}

// answer runs the handler, unless the peer has cancelled the request, and
// answers the request. slot says whether a handler slot is held for it; it is
// released as the handler returns. inline and reading are runInline's.
func (c *Conn) answer(j job, slot, inline bool) (reading bool) {
	ctx, in, id, method := j.ctx, j.in, j.id, j.method
	var (
		buf      *[]byte // the response frame, when the handler appends its result to it
		res      wire.Raw
		rerr     *wire.RPCError
		panicked bool
	)
	switch {
	case in.ctx.peer.Load():
		// Cancelled by the peer before it started: the handler never runs.
		rerr = errCancelled
	case c.appender != nil && j.batch == nil:
		buf = getBuf()
		*buf = appendResultHead(*buf, id)
		res, rerr, panicked = c.callHandler(ctx, j, *buf)
	default:
		res, rerr, panicked = c.callHandler(ctx, j, nil)
	}
	if slot {
		<-c.sem
	}
	cancelled := ctx.Err() != nil // before the cancel below
	in.ctx.cancel(nil)            // the request's context ends as it is answered
	if c.answers != nil {
		c.answers.Answered(ctx)
	}
	if rerr != nil && cancelled && !panicked {
		rerr = errCancelled
	}
	switch {
	case j.batch != nil:
		c.collect(j.batch, id, method, res, rerr)
		c.mu.Lock()
		c.forget(in)
		c.mu.Unlock()
		return false
	case buf != nil && rerr == nil:
		b, ok := endResult(res, len(*buf))
		if !ok {
			b = c.appendReply(b[:0], id, method, wire.Raw("-"), nil) // answered as invalid result JSON
		}
		c.writeReply(b)
		putBuf(buf, b)
	default:
		if buf != nil {
			putBuf(buf, *buf)
		}
		c.reply(id, method, res, rerr)
	}
	return c.answered(in, inline)
}

// callHandler runs the handler and converts its error, both under recover:
// an error's Error or RPCError method is user code too.
// With b not nil the handler is the Dispatcher, and res is b with the
// result appended.
func (c *Conn) callHandler(ctx context.Context, j job, b []byte) (res wire.Raw, rerr *wire.RPCError, panicked bool) {
	id, method := j.id, j.method
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("jsonrpc: request handler panicked", "method", method, "id", string(id), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res, rerr, panicked = nil, errPanic, true
		}
	}()
	var err error
	if b != nil {
		res, err = c.appender.AppendRequest(ctx, method, j.params, j.decoded, b)
	} else {
		res, err = c.h.HandleRequest(ctx, method, j.params)
	}
	if err != nil {
		rerr = toRPCError(err)
		c.log.Debug("jsonrpc: request failed", "method", method, "id", string(id), "code", rerr.Code, "err", rerr.Message)
		return nil, rerr, false
	}
	return res, nil, false
}

// rpcErrorer is what wire.ValidationError and wire.GateError implement.
type rpcErrorer interface{ RPCError() *wire.RPCError }

func toRPCError(err error) *wire.RPCError {
	var re *wire.RPCError
	if errors.As(err, &re) {
		if re != nil {
			return re
		}
		return errPanic // a typed nil *RPCError: nothing to report but failure
	}
	var conv rpcErrorer
	if errors.As(err, &conv) {
		if re := conv.RPCError(); re != nil {
			return re
		}
	}
	return &wire.RPCError{Code: wire.CodeInternalError, Message: err.Error()}
}

// reply writes the answer to request id: res, or rerr when not nil.
func (c *Conn) reply(id wire.Raw, method string, res wire.Raw, rerr *wire.RPCError) {
	buf := getBuf()
	b := c.appendReply(*buf, id, method, res, rerr)
	c.writeReply(b)
	putBuf(buf, b)
}

func (c *Conn) replyError(id wire.Raw, e *wire.RPCError) { c.reply(id, "", nil, e) }

// appendReply appends the answer to request id, newline-terminated: res, or
// rerr when not nil.
func (c *Conn) appendReply(b []byte, id wire.Raw, method string, res wire.Raw, rerr *wire.RPCError) []byte {
	if rerr != nil {
		return appendError(b, id, rerr, c.log)
	}
	mark := len(b)
	b, err := appendResult(b, id, res)
	if err != nil {
		c.log.Error("jsonrpc: handler returned invalid result JSON", "method", method, "id", string(id), "err", err)
		b = appendError(b[:mark], id, &wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error: invalid result JSON"}, c.log)
	}
	return b
}

// writeReply writes (or queues) a response; replies are owed even during
// shutdown, so it ignores the closed state. Failures are logged by write.
func (c *Conn) writeReply(b []byte) {
	if c.q != nil {
		_ = c.enqueue(context.Background(), b, "", false)
		return
	}
	_ = c.write(context.Background(), b)
}
