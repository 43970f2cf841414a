package proxy

import (
	"context"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// call is one of the proxy's own requests waiting for its answer.
type call struct {
	ch chan reply // buffered: whoever answers never waits
	to side       // the side it went to, the only one whose answer counts
	x  *exchange  // the interception whose next sent it; nil for Call
}

type reply struct {
	result wire.Raw
	err    error
}

// call sends a request of the proxy's own to side to, under an id of its
// own id space, and waits for the answer. x, when set, is the interception
// it passes on: the direction it came from is released once the request is
// written. When ctx ends first, $/cancel_request goes to side to for the
// proxy's id and ctx's error is returned; the late answer is dropped.
func (c *chain) call(ctx context.Context, to side, method string, params wire.Raw, x *exchange) (wire.Raw, error) {
	if x != nil {
		defer x.release()
	}
	id, key := c.ids.next()
	cl := &call{ch: make(chan reply, 1), to: to, x: x}
	if err := c.register(key, cl); err != nil {
		return nil, err
	}
	ctx, params, finish := c.observeOut(ctx, method, false, params)
	cancel := append(append([]byte(`{"requestId":`), id...), '}')
	cancel = appendMessage(nil, nil, "$/cancel_request", cancel)
	if err := c.writeBefore(ctx, to, appendMessage(nil, id, method, params), cancel); err != nil {
		c.drop(key)
		finish(0, err)
		return nil, err
	}
	if x != nil {
		x.release()
	}
	select {
	case r := <-cl.ch:
		return r.result, finished(finish, x.got(r))
	case <-ctx.Done():
	}
	if !c.drop(key) { // the answer won the race
		r := <-cl.ch
		return r.result, finished(finish, x.got(r))
	}
	go func() { _ = c.write(to, cancel) }() // a side that does not read does not hold the caller
	return nil, finished(finish, ctx.Err())
}

// writeBefore writes frame to side to, or returns ctx's error when ctx
// ends first (a side that does not read does not hold the caller): the
// write goes on, and cancel follows it once it is done.
func (c *chain) writeBefore(ctx context.Context, to side, frame, cancel []byte) error {
	if ctx.Done() == nil {
		return c.write(to, frame)
	}
	done := make(chan error, 1)
	go func() { done <- c.write(to, frame) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				_ = c.write(to, cancel)
			}
		}()
		return ctx.Err()
	}
}

// got records a successful answer to the interception x passed on, and
// returns the answer's error.
func (x *exchange) got(r reply) error {
	if x != nil && r.err == nil {
		x.passed.Store(&r.result)
	}
	return r.err
}

// finished ends an observation with err and returns err.
func finished(finish dispatch.Finish, err error) error {
	finish(codeOf(err), err)
	return err
}

// codeOf is the JSON-RPC code of an answer's error, 0 for none.
func codeOf(err error) wire.ErrorCode {
	if re, ok := err.(*wire.RPCError); ok {
		return re.Code
	}
	return 0
}

// register records a call; once the chain has ended it fails with what
// ended it.
func (c *chain) register(key string, cl *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return endError(c.cause)
	}
	c.calls[key] = cl
	return nil
}

// drop forgets a call; false when it was no longer waiting.
func (c *chain) drop(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.calls[key]
	delete(c.calls, key)
	return ok
}

// pending returns the proxy's call key when it went to side s and still
// waits for its answer, else nil.
func (c *chain) pending(s side, key string) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[key]; cl != nil && cl.to == s {
		return cl
	}
	return nil
}

// answered delivers a response from side s to the proxy's call key and
// returns the call, nil when nobody waits for it from s any more. An
// answer that passed on an interception waits its turn behind the
// messages read before it, so they reach the interception's sender before
// its answer; others are delivered at once, as the caller may be holding
// the relay they would wait in.
func (c *chain) answered(s side, key string, it *item) *call {
	c.mu.Lock()
	cl := c.calls[key]
	if cl != nil && cl.to == s {
		delete(c.calls, key)
	} else {
		cl = nil
	}
	c.mu.Unlock()
	if cl == nil {
		c.log.Debug("proxy: late answer to a request of the proxy's own dropped", "id", string(it.env.ID))
		return nil
	}
	r := reply{result: it.env.Result}
	if it.env.Error != nil {
		r.err = rpcErrorOf(it.env.Error)
	}
	cl.ch <- r
	return cl
}

// answerInOrder delivers the answer to a call that passed on an
// interception, and relays nothing more from the side it came from until
// the interceptor has answered: messages keep their order across it.
func (c *chain) answerInOrder(s side, key string, it *item) {
	if cl := c.answered(s, key, it); cl != nil {
		c.wait(cl.x.answered)
	}
}

// notify sends a notification of the proxy's own to side to.
func (c *chain) notify(ctx context.Context, to side, method string, params wire.Raw) error {
	_, params, finish := c.observeOut(ctx, method, true, params)
	return finished(finish, c.write(to, appendMessage(nil, nil, method, params)))
}
