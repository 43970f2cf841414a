package proxy

import (
	"errors"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// item is one message read from a side, waiting to be relayed.
type item struct {
	frame   []byte
	env     jsonrpc.Envelope
	valid   bool      // env holds a JSON-RPC object (not a batch, not garbage)
	x       *exchange // set when an interceptor claims the message
	answers string    // the key of the proxy's call it answers, when it waits its turn
	eof     bool      // the side's input ended after the messages before
	err     error     // how it ended
}

func (it *item) isRequest() bool { return it.valid && it.env.Method != nil && it.env.ID != nil }

func (it *item) isNotification() bool { return it.valid && it.env.Method != nil && it.env.ID == nil }

func (it *item) isResponse() bool { return it.valid && it.env.Method == nil && it.env.ID != nil }

// read reads side s until it ends: answers to the proxy's own requests and
// cancellations of intercepted ones are handled at once; everything else
// is queued for the other side, in order.
func (c *chain) read(s side) {
	for {
		frame, err := c.links[s].Read()
		if errors.Is(err, ErrFrameTooBig) {
			c.refuseTooBig(s)
			continue
		}
		if err != nil {
			c.readEnded(s, err)
			return
		}
		it := &item{frame: frame}
		env, perr := jsonrpc.PeekEnvelope(frame)
		it.env, it.valid = env, perr == nil
		if c.control(s, it) {
			continue
		}
		if !c.queue[s].push(it) {
			return
		}
	}
}

// refuseTooBig answers a message too long to hold: -32600, id null.
func (c *chain) refuseTooBig(s side) {
	b, _ := jsonrpc.AppendError(nil, nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: message too long"})
	_ = c.write(s, b[:len(b)-1])
}

// control handles what must not wait behind queued messages, and claims
// intercepted messages; true when it is done with it.
func (c *chain) control(s side, it *item) bool {
	switch {
	case it.isResponse():
		if key, own := c.ids.owns(it.env.ID); own {
			if c.passedOn(key) {
				it.answers = key
				return false
			}
			c.answered(key, it)
			return true
		}
	case it.isNotification() && it.env.Name == jsonrpc.CancelRequestMethod:
		return c.cancelHeld(s, it.env.Params)
	case it.valid && it.env.Method != nil:
		if r := c.p.routes[s][it.env.Name]; r != nil {
			it.x = c.claim(s, r, it)
		}
	}
	return false
}

// forward relays the messages read from side s to the other side, in
// order, until the chain ends; then it answers the requests left in the
// queue.
func (c *chain) forward(s side) {
	q := c.queue[s]
	for {
		it, ok := q.pop()
		if !ok {
			return
		}
		switch {
		case c.isDone():
			c.refuse(s, it)
		case it.answers != "":
			c.answerInOrder(it.answers, it)
		case it.eof:
			c.inputEnded(s, it.err)
		case it.x != nil:
			c.intercept(it.x)
		default:
			c.pass(s, it)
		}
	}
}

// wait waits for ch to close or the chain to end.
func (c *chain) wait(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-c.done:
	}
}

// pass relays a message no interceptor claims: the same bytes, unless the
// Observer injects trace context.
func (c *chain) pass(s side, it *item) {
	switch {
	case it.isRequest():
		c.relayRequest(s, it)
	case it.isResponse():
		c.relayResponse(s, it)
	case it.isNotification():
		frame, finish := c.observeRelay(it)
		finished(finish, c.write(s.other(), frame))
	default:
		_ = c.write(s.other(), it.frame)
	}
}

// refuse answers a request from side s that the chain can no longer relay.
func (c *chain) refuse(s side, it *item) {
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if it.isRequest() && cause != nil {
		c.answerError(s, it.env.ID, endError(cause))
	}
}

// answerError writes an error response to side s.
func (c *chain) answerError(s side, id wire.Raw, e *wire.RPCError) {
	b, err := jsonrpc.AppendError(nil, id, e)
	if err != nil {
		c.log.Warn("proxy: error data not encodable, dropped", "code", e.Code, "error", err)
	}
	_ = c.write(s, b[:len(b)-1])
}

// closeInput passes on a half-close: the side's input ends (an agent
// process's stdin is closed); a link that cannot half-close is closed.
func (c *chain) closeInput(s side) {
	if hc, ok := c.links[s].(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
		return
	}
	_ = c.links[s].Close()
}
