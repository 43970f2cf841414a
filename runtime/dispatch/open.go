package dispatch

import (
	"context"
	"fmt"
	"reflect"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Opening describes the request that opens a connection (initialize) of
// a generated package, as data both sides' Routes share: the runtime
// negotiates on it, so the generated connection calls the handler and
// sends the request like any other method.
type Opening struct {
	// Method is the request's wire name; it may arrive before the
	// connection is ready.
	Method string
	// Gates is the package's gate table, which the capabilities initialize
	// advertised are evaluated over (Grant); nil grants nothing.
	Gates *GateTable
	// Negotiated makes the package's record of the negotiation (its
	// *Negotiated) from initialize's params and result and what they
	// grant; End.Negotiated returns it. Nil records none.
	Negotiated func(req, res any, g *Grants) any
	// Version is the protocol version negotiated in it; nil when the
	// package negotiates none.
	Version *Version
}

// Version is how initialize negotiates the protocol version: the client
// sends the version it speaks, the agent answers with the version it
// speaks, and the client refuses an answer with another version. Either
// side's message that leaves the version 0 speaks Current.
type Version struct {
	// Current is the version the package speaks.
	Current uint64
	// Params and Result are the Go fields of initialize's params and
	// result types that carry the version, unsigned integers.
	Params, Result string
}

// VersionError is the client's initialize failing: the agent answered
// with a protocol version other than the one the package speaks.
type VersionError struct {
	Method    string
	Got, Want uint64
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s: the agent speaks protocol version %d, this package %d", e.Method, e.Got, e.Want)
}

// versionField is the version field of msg, a pointer to a generated
// struct; invalid when v or the field is missing.
func versionField(v *Version, msg any, field func(*Version) string) reflect.Value {
	if v == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(msg).Elem().FieldByName(field(v))
}

func paramsField(v *Version) string { return v.Params }
func resultField(v *Version) string { return v.Result }

// speak sets the version field f to v.Current when it is 0.
func speak(v *Version, f reflect.Value) {
	if f.IsValid() && f.Uint() == 0 {
		f.SetUint(v.Current)
	}
}

// opened records the negotiation of initialize, m, whose params were req
// and whose result res: this side's answer (answering true), checked
// valid and within what it grants, or the peer's, already checked.
func (e *End) opened(o *Opening, m *Method, req, res any, answering bool) error {
	if answering {
		speak(o.Version, versionField(o.Version, res, resultField))
		if err := res.(message).Validate(); err != nil {
			return refused(e.log, local(m.Wire, "result", err))
		}
	}
	var g Grants
	if o.Gates != nil {
		g = Grant(o.Gates, req, res)
	}
	var n any
	if o.Negotiated != nil {
		n = o.Negotiated(req, res, &g)
	}
	e.SetNegotiated(n, g)
	if !answering || o.Gates == nil {
		return nil
	}
	if vs := g.check(m.Gates, true, res); len(vs) > 0 {
		return refused(e.log, local(m.Wire, "result", &wire.GateError{Violations: vs}))
	}
	return nil
}

// Open is Call for the request that opens the connection (initialize): it
// may be sent before the connection is ready and is not gated. The
// protocol version of params is set to the package's when 0, and the
// answer's must be that version (a *VersionError otherwise); then the
// negotiation is recorded and the connection is ready.
func (e *End) Open(ctx context.Context, m *Method, params, res any) error {
	o := e.opening
	if o != nil {
		speak(o.Version, versionField(o.Version, params, paramsField))
	}
	if err := e.outbound(nil, m, params); err != nil {
		return err
	}
	raw, err := e.call(ctx, m.Wire, m.Params.AppendValue(nil, params))
	if err := e.result(nil, m, raw, err, res); err != nil {
		return err
	}
	if o == nil {
		return nil
	}
	if f := versionField(o.Version, res, resultField); f.IsValid() && f.Uint() != o.Version.Current {
		return &VersionError{Method: m.Wire, Got: f.Uint(), Want: o.Version.Current}
	}
	return e.opened(o, m, params, res, false)
}
