package dispatch

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Call sends m's request to the peer and returns its result: the params are
// checked valid and allowed by what the peer advertised first, and the
// result is decoded, validated and checked against what this side
// advertised. It needs initialize to have completed.
func Call[P, R any](ctx context.Context, e *End, m *Request[P, R], params P) (R, error) {
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, &m.Method, msg(params))
	}
	if err != nil {
		var zero R
		return zero, err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.encode(params))
	return result(e, neg, m, raw, err)
}

// Open is Call for the request that opens the connection (initialize): it
// may be sent before the connection is ready and is not gated. The caller
// records the negotiation (SetNegotiated).
func Open[P, R any](ctx context.Context, e *End, m *Request[P, R], params P) (R, error) {
	if err := e.outbound(nil, &m.Method, msg(params)); err != nil {
		var zero R
		return zero, err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.encode(params))
	return result(e, nil, m, raw, err)
}

// CallTurn is Call for a request that starts a turn the peer ends on a
// notification of its own, cancel with cancelParams: when ctx ends while
// the request is in flight, that notification is sent as well as the
// runtime's $/cancel_request (which peers may ignore). A ctx that has ended
// before sends nothing.
func CallTurn[P, R any](ctx context.Context, e *End, m *Request[P, R], params P, cancel string, cancelParams json.Marshaler) (R, error) {
	var zero R
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, &m.Method, msg(params))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return zero, err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.encode(params))
	if err != nil && ctx.Err() != nil {
		// A failed write is logged by the runtime and fails every later call.
		if b, err := cancelParams.MarshalJSON(); err == nil {
			_ = e.notify(context.WithoutCancel(ctx), cancel, b)
		}
	}
	return result(e, neg, m, raw, err)
}

// Notify sends m's notification to the peer, checked as Call checks params.
// It returns once the frame is written, so notifications precede a later
// response.
func Notify[P any](ctx context.Context, e *End, m *Notification[P], params P) error {
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, &m.Method, msg(params))
	}
	if err != nil {
		return err
	}
	return e.notify(ctx, m.Wire, m.Params.encode(params))
}

// ready returns the negotiation, or an error when initialize has not
// completed.
func (e *End) ready(method string) (*negotiation, error) {
	neg := e.neg.Load()
	if neg == nil {
		return nil, errors.New(method + ": initialize first")
	}
	return neg, nil
}

// result decodes and checks the result of a call that returned raw, err;
// neg nil skips the gate check.
func result[P, R any](e *End, neg *negotiation, m *Request[P, R], raw wire.Raw, err error) (R, error) {
	var zero R
	if err != nil {
		return zero, err
	}
	res, err := m.DecodeResult(raw, e.mode)
	if err != nil {
		return zero, err
	}
	if vs := neg.checkResult(&m.Method, msg(res)); len(vs) > 0 {
		return zero, &wire.GateError{Violations: vs}
	}
	return res, nil
}
