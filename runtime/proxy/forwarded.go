package proxy

import (
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// forwarded is a request relayed as is and not answered yet: the chain's
// end answers it.
type forwarded struct {
	id     wire.Raw // as its sender wrote it
	origin origin
	finish dispatch.Finish
}

// overloaded is the answer to a request past Options.MaxInFlight.
var overloaded = &wire.RPCError{Code: jsonrpc.CodeOverloaded, Message: "Overloaded: too many requests in flight through the proxy"}

// admit counts a request from side s in flight, or reports that s has
// Options.MaxInFlight of them already; the caller holds c.mu.
func (c *chain) admit(s side) bool {
	if c.inflight[s] >= c.p.o.MaxInFlight {
		return false
	}
	c.inflight[s]++
	return true
}

// relayRequest relays a request from side s, tracked until its answer;
// past the in-flight bound it is answered -32001 instead.
func (c *chain) relayRequest(s side, it *item) {
	if c.refuseDraining(s, it) { // read before the drain began, reaching its turn after
		c.checkDrained()
		return
	}
	frame, finish := c.observeRelay(it)
	f := &forwarded{id: append(wire.Raw(nil), it.env.ID...), origin: it.origin, finish: finish}
	key := jsonrpc.IDKey(f.id)
	c.mu.Lock()
	ended := c.ended
	admitted := !ended && c.admit(s)
	if admitted {
		c.fwd[s][key] = append(c.fwd[s][key], f) // ids in flight twice answer in order
	}
	c.mu.Unlock()
	switch {
	case ended:
		c.refuse(s, it)
		finish(wire.CodeInternalError, nil)
	case !admitted:
		finish(overloaded.Code, overloaded)
		c.replyError(s, it.origin, it.env.ID, overloaded)
	default:
		_ = c.write(s.other(), frame)
	}
}

// unforward takes the oldest request from side s relayed under key and
// still unanswered, nil when there is none.
func (c *chain) unforward(s side, key string) *forwarded {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.fwd[s][key]
	if len(q) == 0 {
		return nil
	}
	if len(q) == 1 {
		delete(c.fwd[s], key)
	} else {
		c.fwd[s][key] = q[1:]
	}
	c.inflight[s]--
	return q[0]
}

// relayResponse relays a response from side s to the request of the
// other side's it answers. One that answers no request relayed to s (a
// forged answer to a request with an interceptor, a second answer) is
// dropped; one with id null, which answers nothing, passes.
func (c *chain) relayResponse(s side, it *item) {
	o := s.other()
	f := c.unforward(o, jsonrpc.IDKey(it.env.ID))
	if f == nil {
		if it.env.ID.Kind() == wire.KindNull {
			_ = c.write(o, it.frame)
			return
		}
		c.log.Debug("proxy: answer to no request relayed dropped", "from", s.String(), "id", string(it.env.ID))
		return
	}
	var err error
	if it.env.Error != nil {
		err = rpcErrorOf(it.env.Error)
	}
	f.finish(codeOf(err), err)
	c.reply(o, f.origin, it.frame)
	if o == predecessor {
		c.checkDrained()
	}
}

// answerForwarded answers every relayed request still unanswered when the
// chain ended, on the sides that are still there.
func (c *chain) answerForwarded() {
	c.mu.Lock()
	cause := c.cause
	var todo [2][]*forwarded
	for _, s := range sides {
		for _, q := range c.fwd[s] {
			todo[s] = append(todo[s], q...)
		}
		c.fwd[s] = map[string][]*forwarded{}
		c.inflight[s] -= len(todo[s])
	}
	c.mu.Unlock()
	e := endError(cause)
	for _, s := range sides {
		for _, f := range todo[s] {
			f.finish(e.Code, e)
			c.replyError(s, f.origin, f.id, e)
		}
	}
}
