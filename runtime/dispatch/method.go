package dispatch

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

// message is what dispatch calls on a generated message itself (a pointer
// to a generated struct, union or alias); decoding and encoding go through
// the wire.Table of the message's type, which the method's Method holds.
type message interface {
	Validate() error
}

// Method is what every method's descriptor says whatever its types.
type Method struct {
	// noCompare keeps Method and the descriptor types that embed it from
	// being comparable, so Go generates no equality function per
	// descriptor type.
	noCompare [0]func()
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
	// Params and Result are the tables of the params' and the result's
	// types (Result nil for a notification): how they are decoded, encoded
	// and validated, taking the messages as any.
	Params, Result wire.Table
}

// Method has no methods, nor have Request and Notification, which embed
// it: Go compiles a method of a generic type, and a method it promotes,
// once per instantiation, so a generated package would compile one per
// method it describes. The connection takes a *Method and messages as any.

// Request describes a request whose params are P and whose result is R,
// pointers to generated types. Its type arguments type what takes it (the
// descriptor tables, runtime/proxy); the connection uses its Method.
type Request[P, R any] struct {
	Method
}

// Notification describes a notification whose params are P, a pointer to
// a generated type.
type Notification[P any] struct {
	Method
}

// NewRequest describes a request method whose params are *P and result
// *R, of the wire.Tables tp and tr.
func NewRequest[P, R any](m Method, tp, tr wire.Table) *Request[*P, *R] {
	m.Params, m.Result = tp, tr
	return &Request[*P, *R]{Method: m}
}

// NewNotification describes a notification method whose params are *P, of
// the wire.Table tp.
func NewNotification[P any](m Method, tp wire.Table) *Notification[*P] {
	m.Params = tp
	return &Notification[*P]{Method: m}
}

// DecodeParams decodes received params of m into p, a new value of m's
// params type, and validates them. Params that do not decode are, for a
// request, a *wire.RPCError -32602 naming the offending pointer, and the
// decoder's error for a notification; params that do not validate are a
// *wire.ValidationError (-32602 as well).
func DecodeParams(m *Method, params wire.Raw, p any, mode wire.Mode) error {
	decErr, err := received(m.Params, params, p, mode)
	switch {
	case decErr != nil && !m.Notification:
		return invalidParams(decErr)
	case decErr != nil:
		return decErr
	}
	return err
}

// DecodeResult decodes a received result of m into r, a new value of m's
// result type, and validates it.
func DecodeResult(m *Method, result wire.Raw, r any, mode wire.Mode) error {
	decErr, err := received(m.Result, result, r, mode)
	if decErr != nil {
		err = decErr
	}
	if err != nil {
		return fmt.Errorf("%s: invalid result: %w", m.Wire, err)
	}
	return nil
}

// received decodes data into v and validates it. Lenient mode accepts a
// closed union's variant this version does not know, so a newer peer's
// additions reach the handler. decErr is the decoder's error, err the
// validator's.
func received(t wire.Table, data wire.Raw, v any, mode wire.Mode) (decErr, err error) {
	if err := wire.DecodeWith(data, v, t, mode); err != nil {
		return err, nil
	}
	return nil, wire.Check(mode == wire.Lenient, func(vd *wire.Validator) { t.ValidateValue(vd, v) })
}
