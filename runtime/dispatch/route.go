package dispatch

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Routes is one side's inbound routing table, a generated package's static
// data: the methods the side handles, numbered by their index in Methods,
// which is how its Route knows them. Routing is one switch over that
// number in the generated package and one body here for every method, not
// a function per method.
type Routes struct {
	// Open is the request that opens the connection (initialize), which
	// may arrive before the connection is ready and which the runtime
	// negotiates on.
	Open *Opening
	// Methods are the methods the side handles.
	Methods []Handled
	// Turn, when set, names the side's prompt turn: the End then tracks
	// turns in wire order (see Turn).
	Turn *TurnMethods

	once  sync.Once
	slots []int32 // see index
}

// Handled is one method a side handles.
type Handled struct {
	Method *Method
	// Params is a nil pointer to the params type, (*T)(nil), which the
	// compiler lays out statically: each message is decoded into a new T.
	Params any
}

// Route calls the handler of method i of a Routes with its params p,
// decoded and checked. It returns a request's result and error as the
// handler returned them, or nil, nil for a notification and for a request
// whose handler returned neither.
type Route func(ctx context.Context, i int, p any) (any, error)

// newParams returns a new value of method i's params type.
func (t *Routes) newParams(i int) any {
	return reflect.New(reflect.TypeOf(t.Methods[i].Params).Elem()).Interface()
}

// index returns the number of method in t, and whether t has it. It is
// asked twice for every message (the params' decoding, the route), so it
// is an open-addressed table on a hash of a few of the name's bytes, not a
// map, which hashes every byte.
func (t *Routes) index(method string) (int, bool) {
	t.once.Do(t.makeSlots)
	mask := len(t.slots) - 1
	for h := wireHash(method) & mask; ; h = (h + 1) & mask {
		e := int(t.slots[h])
		if e == 0 {
			return 0, false
		}
		if t.Methods[e-1].Method.Wire == method {
			return e - 1, true
		}
	}
}

// makeSlots fills slots: at most a quarter full, a method's number plus
// one at its hash or after, the last of equal names kept.
func (t *Routes) makeSlots() {
	n := 8
	for n < 4*len(t.Methods) {
		n *= 2
	}
	t.slots = make([]int32, n)
	for i, m := range t.Methods {
		h := wireHash(m.Method.Wire) & (n - 1)
		for t.slots[h] != 0 && t.Methods[t.slots[h]-1].Method.Wire != m.Method.Wire {
			h = (h + 1) & (n - 1)
		}
		t.slots[h] = int32(i + 1)
	}
}

// wireHash mixes a method name's length and three of its bytes, which
// tell a side's methods apart well enough for a quarter-full table.
func wireHash(s string) int {
	if s == "" {
		return 0
	}
	return len(s)*131 + int(s[len(s)-1])*31 + int(s[len(s)/2])*7 + int(s[len(s)*3/4])
}

// router adapts an End and its routes to jsonrpc.Handler.
type router struct {
	e      *End
	routes *Routes
	route  Route
}

// turnRouter is a router whose side has prompt turns: it sees each message
// in wire order (jsonrpc.ArrivalHandler) to register turns and apply
// cancels before any handler runs.
type turnRouter struct{ *router }

func (r turnRouter) Arrived(ctx context.Context, method string, params wire.Raw, request bool) context.Context {
	return r.e.turns.arrived(ctx, method, params, request)
}

// Answered is jsonrpc.AnswerHandler's: a turn ends with its request.
func (r turnRouter) Answered(ctx context.Context) { r.e.turns.answered(ctx) }

// The router is a jsonrpc.Dispatcher: params are decoded in the pass that
// reads the frame, and a result is encoded once, straight into the
// response frame, after Validate has checked it.

func (r *router) Mode() wire.Mode { return r.e.mode }

func (r *router) DecodeParams(method string, d *wire.Decoder) any {
	i, ok := r.routes.index(method)
	if !ok {
		return nil
	}
	p := r.routes.newParams(i)
	if r.routes.Methods[i].Method.Params.DecodeValue(d, p) != nil {
		return nil
	}
	return p
}

func (r *router) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	return r.AppendRequest(ctx, method, params, nil, nil)
}

func (r *router) AppendRequest(ctx context.Context, method string, params wire.Raw, decoded any, b []byte) ([]byte, error) {
	if r.e.obs != nil {
		return r.e.observeRequest(ctx, method, params, func(ctx context.Context) (wire.Raw, error) {
			return r.request(ctx, method, params, decoded, b)
		})
	}
	return r.request(ctx, method, params, decoded, b)
}

func (r *router) request(ctx context.Context, method string, params wire.Raw, decoded any, b []byte) (wire.Raw, error) {
	neg := r.e.negotiated()
	switch {
	case r.routes.Open != nil && method == r.routes.Open.Method:
		neg = nil // the answer is checked against what it negotiates (End.opened)
	case neg == nil:
		return nil, errNotInitialized
	}
	if i, ok := r.routes.index(method); ok && !r.routes.Methods[i].Method.Notification {
		return r.serve(ctx, neg, i, params, decoded, b)
	}
	if strings.HasPrefix(method, "_") && r.e.ext != nil {
		res, err := r.e.ext.ExtRequest(ctx, method, params)
		if err != nil || b == nil {
			return res, err
		}
		if len(res) > 0 && !wire.Valid(res) {
			return nil, fmt.Errorf("%s handler returned invalid result JSON", method)
		}
		return append(b, res...), nil // nothing appended is null
	}
	return nil, MethodNotFound(method)
}

// serve answers a request of method i: the params are decoded, validated
// and gate-checked first, and the handler's result is checked (a failure
// is this side's bug, answered -32603) and appended to b.
func (r *router) serve(ctx context.Context, neg *negotiation, i int, params wire.Raw, decoded any, b []byte) (wire.Raw, error) {
	m, e := r.routes.Methods[i].Method, r.e
	p, err := r.params(i, params, decoded)
	if err != nil {
		return nil, err
	}
	if err := neg.checkParams(m, p); err != nil {
		return nil, err
	}
	res, err := r.route(ctx, i, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("%s handler returned no result", m.Wire)
	}
	if neg == nil {
		if err := e.opened(r.routes.Open, m, p, res, true); err != nil {
			return nil, err
		}
		return m.Result.AppendValue(b, res), nil
	}
	rm := res.(message)
	if err := rm.Validate(); err != nil {
		return nil, refused(e.log, local(m.Wire, "result", err))
	}
	if vs := neg.checkResult(m, rm); len(vs) > 0 {
		return nil, refused(e.log, local(m.Wire, "result", &wire.GateError{Violations: vs}))
	}
	return m.Result.AppendValue(b, res), nil
}

// params returns method i's params: decoded, validated, or else params
// decoded and validated (DecodeParams).
func (r *router) params(i int, params wire.Raw, decoded any) (any, error) {
	m := r.routes.Methods[i].Method
	if decoded != nil && reflect.TypeOf(decoded) == reflect.TypeOf(r.routes.Methods[i].Params) {
		return decoded, wire.Check(r.e.mode == wire.Lenient, func(vd *wire.Validator) { m.Params.ValidateValue(vd, decoded) })
	}
	p := r.routes.newParams(i)
	return p, DecodeParams(m, params, p, r.e.mode)
}

func (r *router) HandleNotification(ctx context.Context, method string, params wire.Raw) {
	r.HandleDecoded(ctx, method, params, nil)
}

func (r *router) HandleDecoded(ctx context.Context, method string, params wire.Raw, decoded any) {
	if r.e.obs != nil {
		r.e.observeNotification(ctx, method, params, func(ctx context.Context) {
			r.notification(ctx, method, params, decoded)
		})
		return
	}
	r.notification(ctx, method, params, decoded)
}

func (r *router) notification(ctx context.Context, method string, params wire.Raw, decoded any) {
	neg := r.e.negotiated()
	if neg == nil {
		r.e.onDrop(method, errors.New("received before initialize"))
		return
	}
	if i, ok := r.routes.index(method); ok && r.routes.Methods[i].Method.Notification {
		r.receive(ctx, neg, i, params, decoded)
		return
	}
	if strings.HasPrefix(method, "_") && r.e.ext != nil {
		r.e.ext.ExtNotification(ctx, method, params)
	}
}

// receive hands a notification of method i to its handler after decoding,
// validating and gate-checking it; one that fails goes to the connection's
// OnDrop (a notification cannot be answered).
func (r *router) receive(ctx context.Context, neg *negotiation, i int, params wire.Raw, decoded any) {
	m := r.routes.Methods[i].Method
	p, err := r.params(i, params, decoded)
	if err != nil {
		r.e.onDrop(m.Wire, err)
		return
	}
	if err := neg.checkParams(m, p); err != nil {
		r.e.onDrop(m.Wire, err)
		return
	}
	_, _ = r.route(ctx, i, p) // a notification's handler returns nothing
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
