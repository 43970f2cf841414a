package dispatch

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

// message is what dispatch calls on a generated message: a pointer to a
// generated struct, union or alias, which decodes, encodes and validates
// itself. The connection's code holds messages as any and asserts this
// only where it decodes, validates or encodes one, so it is one body for
// every method of every generated package.
type message interface {
	wire.Decodable
	wire.Appender
	Validate() error
	ValidateWith(*wire.Validator)
}

// pointer is a message that is a pointer to T.
type pointer[T any] interface {
	*T
	message
}

// Codec is how dispatch handles messages of type T, a pointer to a
// generated type: New allocates one, Validate reports its problems into a
// wire.Validator. The generic code here takes its type parameters
// unconstrained, so Go compiles one body of it for all the methods of all
// the generated packages instead of one per method; only allocating a T
// needs code of T's own. Its fields are exported so a generated descriptor
// is a composite literal the compiler lays out statically: no package init
// code, so the linker keeps only the descriptors a program uses.
type Codec[T any] struct {
	New      func() T
	Validate func(T, *wire.Validator)
}

// New allocates a T; New[T] is a Codec's New for *T.
func New[T any]() *T { return new(T) }

func codecOf[T any, PT pointer[T]](validate func(PT, *wire.Validator)) Codec[PT] {
	return Codec[PT]{New: func() PT { return new(T) }, Validate: validate}
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

// Method has no methods, nor have Request and Notification, which embed
// it: Go compiles a method of a generic type, and a method it promotes,
// once per instantiation, so a generated package would compile one per
// method it describes. The connection takes a *Method and messages as any.

// Request describes a request whose params are P and whose result is R,
// pointers to generated types. Its type arguments type what takes it (the
// descriptor tables, runtime/proxy); the connection uses its Method.
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

// NewRequest describes a request method. vp and vr are the params and
// result types' generated validators, which report into a wire.Validator
// so a received message may be checked leniently (wire.Validator's
// AcceptUnknown).
func NewRequest[P, R any, PP pointer[P], RP pointer[R]](m Method, vp func(PP, *wire.Validator), vr func(RP, *wire.Validator)) *Request[PP, RP] {
	return &Request[PP, RP]{Method: m, Params: codecOf[P](vp), Result: codecOf[R](vr)}
}

// NewNotification describes a notification method; vp is as NewRequest's.
func NewNotification[P any, PP pointer[P]](m Method, vp func(PP, *wire.Validator)) *Notification[PP] {
	return &Notification[PP]{Method: m, Params: codecOf[P](vp)}
}

// DecodeParams decodes received params of m into p, a new value of m's
// params type, and validates them. Params that do not decode are, for a
// request, a *wire.RPCError -32602 naming the offending pointer, and the
// decoder's error for a notification; params that do not validate are a
// *wire.ValidationError (-32602 as well).
func DecodeParams(m *Method, params wire.Raw, p any, mode wire.Mode) error {
	decErr, err := received(params, p, mode)
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
	decErr, err := received(result, r, mode)
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
func received(data wire.Raw, v any, mode wire.Mode) (decErr, err error) {
	m := v.(message)
	if err := wire.Decode(data, m, mode); err != nil {
		return err, nil
	}
	return nil, wire.Check(mode == wire.Lenient, m.ValidateWith)
}
