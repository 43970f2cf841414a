package proxy

import (
	"errors"
	"fmt"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// item is one message read from a side, waiting to be relayed.
type item struct {
	frame   []byte
	env     jsonrpc.Envelope
	valid   bool      // env holds a JSON-RPC object (not a batch, not garbage)
	origin  origin    // where a request's answer goes
	x       *exchange // set when an interceptor claims the message
	answers string    // the key of the proxy's call it answers, when it waits its turn
	eof     bool      // the side's input ended after the messages before
	err     error     // how it ended
}

// isMessage reports a JSON-RPC object with a method or an id.
func (it *item) isMessage() bool { return it.valid && (it.env.Method != nil || it.env.ID != nil) }

// isRequest, isNotification and isResponse are jsonrpc's classes of a
// valid item. The proxy relays a request with id null as any other, and a
// response with id null (an error response to something unreadable) to
// the other side, since none of the proxy's own ids is null.
func (it *item) isRequest() bool { return it.valid && it.env.IsRequest() }

func (it *item) isNotification() bool { return it.valid && it.env.IsNotification() }

func (it *item) isResponse() bool { return it.valid && it.env.IsResponse() }

// read reads side s until it ends: answers to the proxy's own requests,
// cancellations of intercepted ones and what the proxy refuses are
// handled at once; everything else is queued for the other side, in
// order. A batch is read as its entries, one after the other.
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
		env, perr := jsonrpc.PeekEnvelope(frame)
		if perr != nil && isBatch(frame) {
			if !c.readBatch(s, frame) {
				return
			}
			continue
		}
		if !c.take(s, &item{frame: frame, env: env, valid: perr == nil}) {
			return
		}
	}
}

// take handles a message read from side s, or queues it for the other
// side; false once the chain has ended.
func (c *chain) take(s side, it *item) bool {
	if c.control(s, it) {
		return true
	}
	return c.queue[s].push(it)
}

// refuseTooBig answers a message too long to hold: -32600, id null.
func (c *chain) refuseTooBig(s side) {
	b, _ := jsonrpc.AppendError(nil, nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: message too long"})
	_ = c.write(s, b[:len(b)-1])
}

// control handles what must not wait behind queued messages, refuses
// requests whose id the proxy cannot relay, and claims intercepted
// messages; true when it is done with it.
func (c *chain) control(s side, it *item) bool {
	switch {
	case it.isResponse():
		if key, own := c.ids.owns(it.env.ID); own {
			return c.ownResponse(s, key, it)
		}
	case it.isRequest():
		if reason := c.badID(it.env.ID); reason != "" {
			c.reply(s, it.origin, refusal(it.env.ID, reason))
			return true
		}
		if c.refuseDraining(s, it) {
			return true
		}
	case it.isNotification() && it.env.Name == jsonrpc.CancelRequestMethod:
		return c.cancelHeld(s, it.env.Params)
	}
	if it.valid && it.env.Method != nil {
		if r := c.p.routes[s][it.env.Name]; r != nil {
			it.x = c.claim(s, r, it)
		}
	}
	return false
}

// badID says why a peer's request id is refused: one JSON-RPC does not
// allow, or one under the proxy's own prefix, whose answer would be taken
// for the answer to the proxy's request; "" when it is relayed.
func (c *chain) badID(id wire.Raw) string {
	key, own := c.ids.owns(id)
	switch {
	case len(id) > jsonrpc.MaxIDLength:
		return fmt.Sprintf("Invalid request: id longer than %d bytes", jsonrpc.MaxIDLength)
	case key == "":
		return "Invalid request: id must be a string, a number or null"
	case own:
		return "Invalid request: id under the proxy's own prefix"
	}
	return ""
}

// refusal is the -32600 answer to a request refused for its id: the id
// as sent when JSON-RPC allows it, else null.
func refusal(id wire.Raw, reason string) []byte {
	if jsonrpc.IDKey(id) == "" || len(id) > jsonrpc.MaxIDLength {
		id = nil
	}
	b, _ := jsonrpc.AppendError(nil, id, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: reason})
	return b[:len(b)-1]
}

// ownResponse handles a response from side s under the proxy's prefix: it
// answers the proxy's request only when that request went to s (another
// side could forge it); one passed on for an interception waits its turn.
// It is never relayed.
func (c *chain) ownResponse(s side, key string, it *item) bool {
	cl := c.pending(s, key)
	switch {
	case cl == nil:
		c.log.Debug("proxy: answer to no request of the proxy's own dropped", "from", s.String(), "id", string(it.env.ID))
		return true
	case cl.x != nil:
		it.answers = key
		return false
	}
	c.answered(s, key, it)
	return true
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
			c.answerInOrder(s, it.answers, it)
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
	cause, drained := c.cause, c.drained
	c.mu.Unlock()
	switch {
	case !it.isRequest() || cause == nil:
	case drained && s == predecessor:
		c.replyError(s, it.origin, it.env.ID, errShuttingDown)
	default:
		c.replyError(s, it.origin, it.env.ID, endError(cause))
	}
}

// answerError writes an error response to side s.
func (c *chain) answerError(s side, id wire.Raw, e *wire.RPCError) {
	c.replyError(s, origin{}, id, e)
}

// replyError answers a request from side s with an error, on its own or
// in its batch.
func (c *chain) replyError(s side, o origin, id wire.Raw, e *wire.RPCError) {
	b, err := jsonrpc.AppendError(nil, id, e)
	if err != nil {
		c.log.Warn("proxy: error data not encodable, dropped", "code", e.Code, "error", err)
	}
	c.reply(s, o, b[:len(b)-1])
}

// skipSpaceAt returns the index of the first non-space byte of b from i.
func skipSpaceAt(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
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
