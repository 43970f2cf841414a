package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// The outbound calls take the method's *Method and its messages as any
// (pointers to generated types; res a new value of the result type to
// decode into), not typed descriptors: one body serves every method of
// every generated package, whose typed methods (ClientConn.SessionNew)
// allocate the result and type the answer.

// Call sends m's request with params to the peer and decodes the answer
// into res: the params are checked valid and allowed by what the peer
// advertised first, and the result is decoded, validated and checked
// against what this side advertised. It needs initialize to have
// completed.
func (e *End) Call(ctx context.Context, m *Method, params, res any) error {
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, m, params)
	}
	if err != nil {
		return err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.AppendValue(nil, params))
	return e.result(neg, m, raw, err, res)
}

// CallTurn is Call for a request that starts a turn the peer ends on a
// notification of its own, cancel with cancelParams: when ctx ends while
// the request is in flight, that notification is sent as well as the
// runtime's $/cancel_request (which peers may ignore). A ctx that has ended
// before sends nothing.
func (e *End) CallTurn(ctx context.Context, m *Method, params, res any, cancel string, cancelParams json.Marshaler) error {
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, m, params)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.AppendValue(nil, params))
	if err != nil && ctx.Err() != nil {
		// A failed write is logged by the runtime and fails every later call.
		if b, err := cancelParams.MarshalJSON(); err == nil {
			_ = e.notify(context.WithoutCancel(ctx), cancel, b)
		}
	}
	return e.result(neg, m, raw, err, res)
}

// Notify sends m's notification with params to the peer, checked as Call
// checks params. It returns once the frame is written (on a connection
// that writes behind, jsonrpc.Options.Recorder: once it is queued, in
// order), so notifications precede a later response. When ctx ends first, nothing is written and
// ctx's error is returned, except on the context of a prompt turn that the
// peer cancelled or a drain ended (see Turn): until the prompt is answered
// the turn's last updates are still written, each within FinalWriteTimeout,
// as the protocol asks an agent to send pending updates before it answers
// "cancelled".
func (e *End) Notify(ctx context.Context, m *Method, params any) error {
	neg, err := e.ready(m.Wire)
	if err == nil {
		err = e.outbound(neg, m, params)
	}
	if err != nil {
		return err
	}
	if t := TurnFrom(ctx); t != nil && ctx.Err() != nil && t.flushing(ctx) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), FinalWriteTimeout)
		defer cancel()
	}
	if e.obs != nil { // an Observer may keep what it reads of the params
		return e.notify(ctx, m.Wire, m.Params.AppendValue(nil, params))
	}
	buf := sendBufs.Get().(*[]byte)
	b := m.Params.AppendValue((*buf)[:0], params)
	err = e.notify(ctx, m.Wire, b)
	if cap(b) <= maxSendBuf { // one huge message would pin its buffer
		*buf = b[:0]
		sendBufs.Put(buf)
	}
	return err
}

// sendBufs holds the buffers Notify encodes params into: neither the
// connection nor the Record hook keeps them after the call, and a
// streamed notification's encoding would otherwise grow a new one each
// time.
var sendBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxSendBuf = 64 << 10

// ready returns the negotiation, or an error when initialize has not
// completed.
func (e *End) ready(method string) (*negotiation, error) {
	neg := e.negotiated()
	if neg == nil {
		return nil, errors.New(method + ": initialize first")
	}
	return neg, nil
}

// result decodes the result of a call that returned raw, err into res and
// checks it; neg nil skips the gate check.
func (e *End) result(neg *negotiation, m *Method, raw wire.Raw, err error, res any) error {
	if err != nil {
		return err
	}
	if err := DecodeResult(m, raw, res, e.mode); err != nil {
		return err
	}
	if vs := neg.checkResult(m, res); len(vs) > 0 {
		return &wire.GateError{Violations: vs}
	}
	return nil
}
