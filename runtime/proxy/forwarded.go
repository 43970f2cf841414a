package proxy

import (
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// forwarded is a request relayed as is and not answered yet: the chain's
// end answers it.
type forwarded struct {
	id     wire.Raw // as its sender wrote it
	finish dispatch.Finish
}

// relayRequest relays a request from side s, tracked until its answer.
func (c *chain) relayRequest(s side, it *item) {
	frame, finish := c.observeRelay(it)
	f := &forwarded{id: append(wire.Raw(nil), it.env.ID...), finish: finish}
	key := idKey(f.id)
	c.mu.Lock()
	ended := c.ended
	if !ended {
		c.fwd[s][key] = f
	}
	c.mu.Unlock()
	if ended {
		c.refuse(s, it)
		finish(wire.CodeInternalError, nil)
		return
	}
	_ = c.write(s.other(), frame)
}

// relayResponse relays a response from side s to a request of the other
// side's: the request is no longer tracked.
func (c *chain) relayResponse(s side, it *item) {
	o := s.other()
	c.mu.Lock()
	key := idKey(it.env.ID)
	f := c.fwd[o][key]
	delete(c.fwd[o], key)
	c.mu.Unlock()
	if f != nil {
		var err error
		if it.env.Error != nil {
			err = rpcErrorOf(it.env.Error)
		}
		f.finish(codeOf(err), err)
	}
	_ = c.write(o, it.frame)
}

// answerForwarded answers every relayed request still unanswered when the
// chain ended, on the sides that are still there.
func (c *chain) answerForwarded() {
	c.mu.Lock()
	cause := c.cause
	var todo [2][]*forwarded
	for _, s := range sides {
		for _, f := range c.fwd[s] {
			todo[s] = append(todo[s], f)
		}
		c.fwd[s] = map[string]*forwarded{}
	}
	c.mu.Unlock()
	e := endError(cause)
	for _, s := range sides {
		for _, f := range todo[s] {
			f.finish(e.Code, e)
			c.answerError(s, f.id, e)
		}
	}
}
