package proxy

import (
	"errors"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// errDrained is what ends a chain whose drain has nothing left in flight.
var errDrained = errors.New("proxy: drained")

// errShuttingDown answers a predecessor's request read while the chain
// drains, as a draining jsonrpc.Conn answers one.
var errShuttingDown = &wire.RPCError{Code: jsonrpc.CodeOverloaded, Message: "Server shutting down: request not handled; retry on a new connection"}

// draining reports whether the chain's drain has started.
func (c *chain) draining() bool {
	if c.drain == nil {
		return false
	}
	select {
	case <-c.drain.Started():
		return true
	default:
		return false
	}
}

// refuseDraining answers a request from the predecessor with
// errShuttingDown while the chain drains; true when it did.
func (c *chain) refuseDraining(s side, it *item) bool {
	if s != predecessor || !it.isRequest() || !c.draining() {
		return false
	}
	c.replyError(s, it.origin, it.env.ID, errShuttingDown)
	return true
}

// watchDrain follows the drain of the chain's context: once it starts,
// the chain ends as soon as no request of the predecessor's is in flight;
// at its deadline, those still in flight are cancelled (an intercepted
// one's context, a relayed one with $/cancel_request to the successor),
// and their answers are still relayed.
func (c *chain) watchDrain() {
	select {
	case <-c.drain.Started():
	case <-c.done:
		return
	}
	c.checkDrained()
	select {
	case <-c.drain.Expired():
		c.cancelInFlight()
	case <-c.done:
	}
}

// checkDrained ends the chain when it drains and the predecessor has no
// request in flight. It is called once an answer to the predecessor has
// been written, so that answer goes before the end.
func (c *chain) checkDrained() {
	if !c.draining() {
		return
	}
	c.mu.Lock()
	over := c.inflight[predecessor] == 0 && !c.ended
	if over {
		c.drained = true
	}
	c.mu.Unlock()
	if over {
		c.end(neither, errDrained)
	}
}

// cancelInFlight cancels the predecessor's requests still in flight.
func (c *chain) cancelInFlight() {
	c.mu.Lock()
	var ids []wire.Raw
	for _, q := range c.fwd[predecessor] {
		for _, f := range q {
			ids = append(ids, f.id)
		}
	}
	var held []*exchange
	for _, x := range c.held[predecessor] {
		held = append(held, x)
	}
	c.mu.Unlock()
	for _, x := range held {
		x.cancelled.Store(true)
		x.cancel()
	}
	for _, id := range ids {
		b := append([]byte(`{"jsonrpc":"2.0","method":"`+jsonrpc.CancelRequestMethod+`","params":{"requestId":`), id...)
		_ = c.write(successor, append(b, "}}"...))
	}
}
