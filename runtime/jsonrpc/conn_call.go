package jsonrpc

import (
	"context"
	"errors"

	"github.com/acpgen/acpgen/runtime/wire"
)

// isDirect reports whether the call waiting for id was made from a
// notification handler, whose response is delivered without waiting.
func (c *Conn) isDirect(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending[id]
	return p != nil && p.direct
}

// deliver hands a response to the Call waiting for id.
func (c *Conn) deliver(id int64, rawID wire.Raw, r callResult) {
	c.mu.Lock()
	p := c.dropPending(id)
	abandoned := p != nil && p.abandoned
	c.mu.Unlock()
	switch {
	case p == nil:
		c.warn(warnUnknownID, "jsonrpc: response to unknown id ignored", "id", string(rawID))
	case abandoned:
		c.log.Debug("jsonrpc: late response to abandoned call ignored", "id", id, "method", p.method)
	default:
		p.ch <- r
	}
}

func (c *Conn) logUnknownResponse(m *message) {
	if m.rpcErr != nil {
		c.warn(warnUnknownID, "jsonrpc: error response to unknown id ignored", "id", string(m.id), "code", m.rpcErr.Code, "message", m.rpcErr.Message)
		return
	}
	c.warn(warnUnknownID, "jsonrpc: response to unknown id ignored", "id", string(m.id))
}

// dropPending removes the pending call id and returns it (nil if none).
// Called with mu held.
func (c *Conn) dropPending(id int64) *pendingCall {
	p := c.pending[id]
	if p == nil {
		return nil
	}
	delete(c.pending, id)
	if p.direct {
		c.direct--
	}
	c.wake()
	return p
}

// Call sends a request and waits for its response. It returns the result
// JSON, or a *wire.RPCError when the peer answers with an error. When ctx ends
// first, Call sends "$/cancel_request" for the request and returns ctx.Err();
// the peer's late answer is dropped. After shutdown it returns ErrClosed.
// params may be nil (omitted); it must be valid JSON.
func (c *Conn) Call(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id := c.lastID.Add(1)
	p := &pendingCall{method: method, ch: make(chan callResult, 1), direct: ctx.Value(inNotification{}) != nil}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[id] = p // before writing: the answer may arrive at once
	if p.direct {
		c.direct++
	}
	c.wake()    // a waiting reader may no longer pause (see pauseSafe)
	c.handOff() // a request running inline must not keep the answer unread
	c.mu.Unlock()

	buf := getBuf()
	b, err := appendRequest(*buf, id, method, params)
	if err == nil {
		if c.q != nil {
			err = c.enqueue(ctx, b, method, true)
		} else {
			err = c.write(ctx, b)
		}
	}
	putBuf(buf, b)
	if err != nil {
		c.mu.Lock()
		c.dropPending(id)
		c.mu.Unlock()
		return nil, err
	}

	select {
	case r := <-p.ch:
		return r.result, r.err
	case <-c.done:
		return c.closedAnswer(p)
	case <-ctx.Done():
	}
	c.mu.Lock()
	_, waiting := c.pending[id]
	if waiting {
		p.abandoned = true
	}
	c.mu.Unlock()
	if !waiting {
		// The answer won the race with ctx: it is in (or on its way to) p.ch.
		select {
		case r := <-p.ch:
			return r.result, r.err
		case <-c.done:
			return c.closedAnswer(p)
		}
	}
	if err := c.notify(context.WithoutCancel(ctx), CancelRequestMethod, appendCancelParams(nil, id)); err != nil && !errors.Is(err, ErrClosed) {
		c.log.Debug("jsonrpc: sending $/cancel_request failed", "id", id, "err", err)
	}
	return nil, ctx.Err()
}

// closedAnswer is what a Call whose connection has shut down returns: its
// answer when the peer's was read before the end, else ErrClosed. An answer
// read behind notifications is delivered in their queue, which the
// notification goroutine finishes after shutdown; a Call made from a
// notification handler is answered directly (see isDirect), and must not
// wait for that goroutine, which runs it.
func (c *Conn) closedAnswer(p *pendingCall) (wire.Raw, error) {
	if !p.direct {
		<-c.notesDone
	}
	select {
	case r := <-p.ch:
		return r.result, r.err
	default:
		return nil, ErrClosed
	}
}

// Notify sends a notification and returns once its frame is written (with
// Options.Recorder set: once it is queued; see Flush). params
// may be nil (omitted); it must be valid JSON. If ctx ends while waiting for
// the writer, Notify returns ctx.Err() and nothing is written.
func (c *Conn) Notify(ctx context.Context, method string, params wire.Raw) error {
	if err := c.recordFailure(); err != nil {
		return err // rather than the end of ctx it caused
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.notify(ctx, method, params)
}

func (c *Conn) notify(ctx context.Context, method string, params wire.Raw) error {
	if c.isClosed() {
		return ErrClosed
	}
	buf := getBuf()
	b, err := appendNotification(*buf, method, params)
	if err == nil {
		if c.q != nil {
			err = c.enqueue(ctx, b, method, false)
		} else {
			err = c.write(ctx, b)
		}
	}
	putBuf(buf, b)
	return err
}
