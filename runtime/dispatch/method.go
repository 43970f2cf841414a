package dispatch

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

// message is what dispatch calls on a generated message itself (a pointer
// to a generated struct, union or alias); decoding and encoding go through
// the message type's wire.Table, which its Codec holds.
type message interface {
	Validate() error
}

// Codec is how dispatch handles messages of type T, a pointer to a
// generated type: New allocates one, Table decodes, encodes and validates
// it (a wire.Table takes the message as any, so the generic code here calls
// it without code of T's own). The generic code takes its type parameters
// unconstrained, so Go compiles one body of it for all the methods of all
// the generated packages instead of one per method; only allocating a T
// needs code of T's own. Its fields are exported so a generated descriptor
// is a composite literal the compiler lays out statically: no package init
// code, so the linker keeps only the descriptors a program uses.
type Codec[T any] struct {
	New   func() T
	Table wire.Table
}

// New allocates a T; New[T] is a Codec's New for *T.
func New[T any]() *T { return new(T) }

// encode is the JSON encoding of v.
func (c *Codec[T]) encode(v T) []byte { return c.Table.AppendValue(nil, v) }

// msg returns v, a pointer to a generated type, as a message; nil for a
// nil pointer.
func msg[T any](v T) message {
	var zero T
	if any(v) == any(zero) {
		return nil
	}
	return any(v).(message)
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
	// Gates are the method's capability gates, nil when it has none: a
	// message is checked against them with no lookup by name.
	Gates *MethodGates
}

// Info returns m; it makes *Request and *Notification a Descriptor.
func (m *Method) Info() *Method { return m }

// Descriptor is a method's descriptor, *Request or *Notification, without
// its types: what a table of every method holds.
type Descriptor interface {
	Info() *Method
}

// Request describes a request whose params are P and whose result is R,
// pointers to generated types.
type Request[P, R any] struct {
	Method
	// Params and Result are how the params and the result are decoded
	// and validated.
	Params Codec[P]
	Result Codec[R]
}

// Notification describes a notification whose params are P, a pointer to
// a generated type.
type Notification[P any] struct {
	Method
	// Params is how the params are decoded and validated.
	Params Codec[P]
}

// NewRequest describes a request method whose params are *P and result
// *R, of the wire.Tables tp and tr.
func NewRequest[P, R any](m Method, tp, tr wire.Table) *Request[*P, *R] {
	return &Request[*P, *R]{Method: m, Params: Codec[*P]{New[P], tp}, Result: Codec[*R]{New[R], tr}}
}

// NewNotification describes a notification method whose params are *P, of
// the wire.Table tp.
func NewNotification[P any](m Method, tp wire.Table) *Notification[*P] {
	return &Notification[*P]{Method: m, Params: Codec[*P]{New[P], tp}}
}

// DecodeParams decodes and validates received params: a message that does
// not decode is a *wire.RPCError -32602 naming the offending pointer; one
// that does not validate is a *wire.ValidationError (-32602 as well).
func (m *Request[P, R]) DecodeParams(params wire.Raw, mode wire.Mode) (P, error) {
	p, decErr, err := received(m.Params, params, mode)
	if decErr != nil {
		return p, invalidParams(decErr)
	}
	return p, err
}

// DecodeResult decodes and validates a received result.
func (m *Request[P, R]) DecodeResult(result wire.Raw, mode wire.Mode) (R, error) {
	res, decErr, err := received(m.Result, result, mode)
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
	p, decErr, err := received(m.Params, params, mode)
	if decErr != nil {
		return p, decErr
	}
	return p, err
}

// received decodes data into v and validates it. Lenient mode accepts a
// closed union's variant this version does not know, so a newer peer's
// additions reach the handler. On failure v is the zero P and decErr or err
// is set.
func received[T any](c Codec[T], data wire.Raw, mode wire.Mode) (_ T, decErr, err error) {
	var zero T
	v := c.New()
	if err := wire.DecodeWith(data, v, c.Table, mode); err != nil {
		return zero, err, nil
	}
	if err := wire.Check(mode == wire.Lenient, func(vd *wire.Validator) { c.Table.ValidateValue(vd, v) }); err != nil {
		return zero, nil, err
	}
	return v, nil, nil
}
