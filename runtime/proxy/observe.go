package proxy

import (
	"context"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// nop is the Finish of an unobserved message.
func nop(wire.ErrorCode, error) {}

// observeIn tells the Observer of an intercepted message as received; the
// interceptor runs under the context it returns.
func (c *chain) observeIn(x *exchange) (context.Context, dispatch.Finish) {
	if c.p.o.Observer == nil {
		return x.ctx, nop
	}
	ctx, _, finish := dispatch.Observe(x.ctx, c.p.o.Observer, dispatch.Inbound, x.r.method.Wire, x.id == nil, x.params)
	return ctx, finish
}

// observeOut tells the Observer of a message the proxy sends itself and
// returns its params with what the Observer injects.
func (c *chain) observeOut(ctx context.Context, method string, notification bool, params wire.Raw) (context.Context, wire.Raw, dispatch.Finish) {
	if c.p.o.Observer == nil {
		return ctx, params, nop
	}
	return dispatch.Observe(ctx, c.p.o.Observer, dispatch.Outbound, method, notification, params)
}

// observeRelay tells the Observer of a message relayed as is, received
// then sent, and returns the frame to send (rebuilt when the Observer
// injects into _meta) and the Finish of both observations.
func (c *chain) observeRelay(it *item) ([]byte, dispatch.Finish) {
	o := c.p.o.Observer
	if o == nil {
		return it.frame, nop
	}
	note := it.env.ID == nil
	ctx, _, in := dispatch.Observe(c.base, o, dispatch.Inbound, it.env.Name, note, it.env.Params)
	_, params, out := dispatch.Observe(ctx, o, dispatch.Outbound, it.env.Name, note, it.env.Params)
	both := func(code wire.ErrorCode, err error) { out(code, err); in(code, err) }
	if same(params, it.env.Params) {
		return it.frame, both // nothing injected
	}
	return appendMessage(nil, it.env.ID, it.env.Name, params), both
}

// same reports whether a and b are the same slice: Observe returns the
// params it was given when nothing is injected.
func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
