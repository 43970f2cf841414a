package dispatch

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Message is what dispatch needs of a generated message type: a pointer to
// a generated struct, union or alias, which decodes, encodes and validates
// itself. Generated packages pass pointer types, so the generic code here
// is compiled once per package, not once per method.
type Message interface {
	comparable
	wire.Decodable
	wire.Appender
	Validate() error
}

// pointer is a Message that is a pointer to T: what lets NewRequest and
// NewNotification allocate a T.
type pointer[T any] interface {
	*T
	Message
}

// Method is what every method's descriptor says whatever its types.
type Method struct {
	// Wire is the JSON-RPC method name.
	Wire string
	// Side is the side that handles it: "agent" or "client".
	Side string
	// Notification is true for a notification, which gets no response.
	Notification bool
	// SessionScoped is true when the params carry the session the
	// message belongs to (a sessionId member).
	SessionScoped bool
}

// Info returns m; it makes *Request and *Notification a Descriptor.
func (m *Method) Info() *Method { return m }

// Descriptor is a method's descriptor, *Request or *Notification, without
// its types: what a table of every method holds.
type Descriptor interface {
	Info() *Method
}

// Request describes a request whose params are P and whose result is R,
// both pointers to generated types.
type Request[P, R Message] struct {
	Method
	newParams      func() P
	newResult      func() R
	validateParams func(P, *wire.Validator)
	validateResult func(R, *wire.Validator)
}

// Notification describes a notification whose params are P.
type Notification[P Message] struct {
	Method
	newParams      func() P
	validateParams func(P, *wire.Validator)
}

// NewRequest describes a request method. vp and vr are the params and
// result types' generated validators, which report into a wire.Validator
// so a received message may be checked leniently (wire.Validator's
// AcceptUnknown).
func NewRequest[P, R any, PP pointer[P], RP pointer[R]](m Method, vp func(PP, *wire.Validator), vr func(RP, *wire.Validator)) *Request[PP, RP] {
	return &Request[PP, RP]{
		Method:         m,
		newParams:      func() PP { return new(P) },
		newResult:      func() RP { return new(R) },
		validateParams: vp,
		validateResult: vr,
	}
}

// NewNotification describes a notification method; vp is as NewRequest's.
func NewNotification[P any, PP pointer[P]](m Method, vp func(PP, *wire.Validator)) *Notification[PP] {
	return &Notification[PP]{Method: m, newParams: func() PP { return new(P) }, validateParams: vp}
}

// DecodeParams decodes and validates received params: a message that does
// not decode is a *wire.RPCError -32602 naming the offending pointer; one
// that does not validate is a *wire.ValidationError (-32602 as well).
func (m *Request[P, R]) DecodeParams(params wire.Raw, mode wire.Mode) (P, error) {
	p, decErr, err := received(m.newParams(), m.validateParams, params, mode)
	if decErr != nil {
		return p, invalidParams(decErr)
	}
	return p, err
}

// DecodeResult decodes and validates a received result.
func (m *Request[P, R]) DecodeResult(result wire.Raw, mode wire.Mode) (R, error) {
	res, decErr, err := received(m.newResult(), m.validateResult, result, mode)
	if decErr != nil {
		err = decErr
	}
	if err != nil {
		return res, fmt.Errorf("%s: invalid result: %w", m.Wire, err)
	}
	return res, nil
}

// DecodeParams decodes and validates received params; the error is the
// decoder's or a *wire.ValidationError.
func (m *Notification[P]) DecodeParams(params wire.Raw, mode wire.Mode) (P, error) {
	p, decErr, err := received(m.newParams(), m.validateParams, params, mode)
	if decErr != nil {
		return p, decErr
	}
	return p, err
}

// received decodes data into v and validates it. Lenient mode accepts a
// closed union's variant this version does not know, so a newer peer's
// additions reach the handler. On failure v is the zero P and decErr or err
// is set.
func received[T Message](v T, vf func(T, *wire.Validator), data wire.Raw, mode wire.Mode) (_ T, decErr, err error) {
	var zero T
	if err := wire.Decode(data, v, mode); err != nil {
		return zero, err, nil
	}
	if err := wire.Check(mode == wire.Lenient, func(vd *wire.Validator) { vf(v, vd) }); err != nil {
		return zero, nil, err
	}
	return v, nil, nil
}
