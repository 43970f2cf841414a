package dispatch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Route is how one inbound method reaches a handler of type H.
type Route[H any] struct {
	// Method is the method routed.
	Method  Descriptor
	request func(ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw) (wire.Raw, error)
	notify  func(ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw)
}

// Serve routes m's requests to handle, a method expression of the handler
// type (AgentHandler.SessionNew): the params are decoded, validated and
// gate-checked first, and the result is checked (a failure is this side's
// bug, answered -32603) and encoded.
func Serve[H, P, R any](m *Request[P, R], handle func(H, context.Context, P) (R, error)) Route[H] {
	// The closure only binds m and handle: serve's one body serves every method.
	return Route[H]{Method: m, request: func(ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw) (wire.Raw, error) {
		return serve(ctx, e, neg, h, params, m, handle)
	}}
}

func serve[H, P, R any](ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw, m *Request[P, R], handle func(H, context.Context, P) (R, error)) (wire.Raw, error) {
	p, err := m.DecodeParams(params, e.mode)
	if err != nil {
		return nil, err
	}
	if err := neg.checkParams(&m.Method, msg(p)); err != nil {
		return nil, err
	}
	res, err := handle(h, ctx, p)
	if err != nil {
		return nil, err
	}
	rm := msg(res)
	if rm == nil {
		return nil, fmt.Errorf("%s handler returned no result", m.Wire)
	}
	if err := rm.Validate(); err != nil {
		return nil, refused(e.log, local(m.Wire, "result", err))
	}
	if vs := neg.checkResult(&m.Method, rm); len(vs) > 0 {
		return nil, refused(e.log, local(m.Wire, "result", &wire.GateError{Violations: vs}))
	}
	return m.Result.encode(res), nil
}

// Receive routes m's notifications to handle after decoding, validating
// and gate-checking them; one that fails goes to the connection's OnDrop (a
// notification cannot be answered).
func Receive[H, P any](m *Notification[P], handle func(H, context.Context, P)) Route[H] {
	return Route[H]{Method: m, notify: func(ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw) {
		receive(ctx, e, neg, h, params, m, handle)
	}}
}

func receive[H, P any](ctx context.Context, e *End, neg *negotiation, h H, params wire.Raw, m *Notification[P], handle func(H, context.Context, P)) {
	p, err := m.DecodeParams(params, e.mode)
	if err != nil {
		e.onDrop(m.Wire, err)
		return
	}
	if err := neg.checkParams(&m.Method, msg(p)); err != nil {
		e.onDrop(m.Wire, err)
		return
	}
	handle(h, ctx, p)
}

// checkParams gate-checks params p of m, received or about to be sent: the
// method, then what the params use. A nil n (the request that opens the
// connection) checks nothing.
func (n *negotiation) checkParams(m *Method, p any) error {
	if n == nil || m.Gates == nil {
		return nil
	}
	if ok, need := allowsMethod(n.g.table(), n.g, m.Gates); !ok {
		return methodGate(m.Wire, need)
	}
	if vs := n.g.check(m.Gates, false, p); len(vs) > 0 {
		return &wire.GateError{Violations: vs}
	}
	return nil
}

// checkResult returns what result r of m uses without its capability; a
// nil n checks nothing.
func (n *negotiation) checkResult(m *Method, r any) []wire.GateViolation {
	if n == nil {
		return nil
	}
	return n.g.check(m.Gates, true, r)
}

// Routes is one side's inbound routing table, by wire name.
type Routes[H any] struct {
	open   string
	byWire map[string]Route[H]
}

// NewRoutes builds a routing table; open is the method that may arrive
// before the connection is ready (initialize).
func NewRoutes[H any](open string, routes ...Route[H]) *Routes[H] {
	t := &Routes[H]{open: open, byWire: make(map[string]Route[H], len(routes))}
	for _, r := range routes {
		t.byWire[r.Method.Info().Wire] = r
	}
	return t
}

// Lookup returns the route of method.
func (t *Routes[H]) Lookup(method string) (Route[H], bool) {
	r, ok := t.byWire[method]
	return r, ok
}

// router adapts an End and its routes to jsonrpc.Handler.
type router[H any] struct {
	e      *End
	routes *Routes[H]
	h      H
}

func (r router[H]) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if r.e.obs != nil {
		return r.e.observeRequest(ctx, method, params, func(ctx context.Context) (wire.Raw, error) {
			return r.request(ctx, method, params)
		})
	}
	return r.request(ctx, method, params)
}

func (r router[H]) request(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	neg := r.e.neg.Load()
	switch {
	case method == r.routes.open:
		neg = nil // the handler negotiates (End.Negotiate) and checks its result
	case neg == nil:
		return nil, errNotInitialized
	}
	if rt, ok := r.routes.byWire[method]; ok && rt.request != nil {
		return rt.request(ctx, r.e, neg, r.h, params)
	}
	if strings.HasPrefix(method, "_") && r.e.ext != nil {
		return r.e.ext.ExtRequest(ctx, method, params)
	}
	return nil, MethodNotFound(method)
}

func (r router[H]) HandleNotification(ctx context.Context, method string, params wire.Raw) {
	if r.e.obs != nil {
		r.e.observeNotification(ctx, method, params, func(ctx context.Context) {
			r.notification(ctx, method, params)
		})
		return
	}
	r.notification(ctx, method, params)
}

func (r router[H]) notification(ctx context.Context, method string, params wire.Raw) {
	neg := r.e.neg.Load()
	if neg == nil {
		r.e.onDrop(method, errors.New("received before initialize"))
		return
	}
	if rt, ok := r.routes.byWire[method]; ok && rt.notify != nil {
		rt.notify(ctx, r.e, neg, r.h, params)
		return
	}
	if strings.HasPrefix(method, "_") && r.e.ext != nil {
		r.e.ext.ExtNotification(ctx, method, params)
	}
}
