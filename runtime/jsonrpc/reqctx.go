package jsonrpc

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// reqCtx is an inbound request's context: a child of the connection's, ended
// when the peer cancels the request or once it is answered, which a
// context.WithCancelCause child would be too. It allocates no context of its
// own (it lives in the request's inbound) and is not registered with its
// parent until something waits on it: most handlers never call Done, and
// until then Err, Value (so context.Cause) and Deadline read the parent, whose
// end is the request's end too. The first Done, or a Value or Done once the
// request has ended, makes it a real context.WithCancelCause child (made),
// which answers from then on.
type reqCtx struct {
	base context.Context
	in   *inbound // the request whose context it is
	// peer is set when the peer cancelled the request ($/cancel_request),
	// whatever ended its context first.
	peer atomic.Bool
	made atomic.Pointer[madeCtx]
	// ended is set, under mu, once the request's context is cancelled while
	// not made; err and cause are then what Err and context.Cause report.
	ended atomic.Bool
	mu    sync.Mutex
	err   error
	cause error
}

type madeCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (r *reqCtx) Deadline() (time.Time, bool) { return r.base.Deadline() }

func (r *reqCtx) Done() <-chan struct{} { return r.make().ctx.Done() }

func (r *reqCtx) Err() error {
	if m := r.made.Load(); m != nil {
		return m.ctx.Err()
	}
	if r.ended.Load() {
		return r.err // written before ended was set, never after
	}
	return r.base.Err()
}

func (r *reqCtx) Value(key any) any {
	if m := r.made.Load(); m != nil {
		return m.ctx.Value(key)
	}
	if r.ended.Load() {
		return r.make().ctx.Value(key) // context.Cause reads the cause by Value
	}
	return r.base.Value(key)
}

// make returns the real context, making it on first use: a child of base, or,
// once the request has ended, one cancelled as it was (detached from base, so
// that base ending later changes nothing).
func (r *reqCtx) make() *madeCtx {
	if m := r.made.Load(); m != nil {
		return m
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.made.Load(); m != nil {
		return m
	}
	var m madeCtx
	if r.ended.Load() {
		m.ctx, m.cancel = context.WithCancelCause(context.WithoutCancel(r.base))
		m.cancel(r.cause)
	} else {
		m.ctx, m.cancel = context.WithCancelCause(r.base)
	}
	r.made.Store(&m)
	return &m
}

// cancel ends the request's context with cause (nil: context.Canceled). The
// first end wins, the parent's included, as with context.WithCancelCause.
func (r *reqCtx) cancel(cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.made.Load(); m != nil {
		m.cancel(cause)
		return
	}
	if r.ended.Load() {
		return
	}
	if err := r.base.Err(); err != nil {
		r.err, r.cause = err, context.Cause(r.base) // the parent ended first
	} else {
		if cause == nil {
			cause = context.Canceled
		}
		r.err, r.cause = context.Canceled, cause
	}
	r.ended.Store(true)
}

// CancelRequest ends ctx, the context of an inbound request as
// ArrivalHandler.Arrived gets it, with cause, as the connection's end or
// the request's answer would; the first end wins. It reports false, and
// does nothing, for any other context. (ACP: session/cancel ends the
// context of the prompt turn it cancels.)
func CancelRequest(ctx context.Context, cause error) bool {
	r, ok := ctx.(*reqCtx)
	if ok {
		r.cancel(cause)
	}
	return ok
}

// AwaitInput is Conn.AwaitingInput for the inbound request whose context is
// ctx, as ArrivalHandler.Arrived gets it: the mark ends when the request is
// answered. It reports false, and marks nothing, for any other context.
func AwaitInput(ctx context.Context) bool {
	r, ok := ctx.(*reqCtx)
	if !ok {
		return false
	}
	c := r.in.c
	c.mu.Lock()
	if !r.in.awaiting && !r.in.gone {
		r.in.awaiting = true
		c.awaiting++
		c.wake()
	}
	c.mu.Unlock()
	return true
}
