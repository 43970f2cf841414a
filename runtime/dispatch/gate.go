package dispatch

import (
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Capability is one capability that gates something: its path in the
// initialize messages (dotted, or a JSON pointer when a member name holds a
// dot) and how to read it from N, a generated package's *Negotiated.
type Capability[N any] struct {
	Path string
	// Allowed reports whether the capability was advertised; n is never nil.
	Allowed func(n N) bool
}

// Gate is one gated method, member, variant or enum value: a row of a
// generated package's gate table.
type Gate struct {
	Method string
	// Result is true for a gate on the result, false on the params.
	Result bool
	// Capability is the path of the capability (see Capability) it needs.
	Capability string
	// Variant is the gated variant or enum value, if any.
	Variant string
	// Required marks the inverse rule: once the capability is advertised,
	// the member must be present.
	Required bool
	// Uses appends to at the JSON pointer of each place in v (the params or
	// result, a pointer to its generated type) where the gated member,
	// variant or value is used, or, for a Required gate, where the member is
	// absent. Nil gates the method itself. See Walk.
	Uses func(v any, at []string) []string
}

// Walk adapts a walk over the generated type T to Gate.Uses: a v of
// another type, or a nil *T, uses nothing.
func Walk[T any](walk func(p *T, at []string) []string) func(any, []string) []string {
	return func(v any, at []string) []string {
		p, ok := v.(*T)
		if !ok || p == nil {
			return at
		}
		return walk(p, at)
	}
}

// GateTable evaluates a generated package's gates against N, its
// *Negotiated. The generated Negotiated's Allows, AllowsMethod, CheckParams
// and CheckResult call it.
type GateTable[N comparable] struct {
	caps    []Capability[N]
	byPath  map[string]int
	methods map[string]*methodGates
}

// methodGates are one method's gates: the capability the method itself
// needs (-1 for none) and the rows on its params and result.
type methodGates struct {
	cap  int
	rows [2][]gateRow
}

type gateRow struct {
	*Gate
	cap int
}

// NewGates builds the table. It panics when a gate names a capability that
// is not in caps: generated code is wrong.
func NewGates[N comparable](caps []Capability[N], gates []Gate) *GateTable[N] {
	t := &GateTable[N]{caps: caps, byPath: map[string]int{}, methods: map[string]*methodGates{}}
	for i, c := range caps {
		t.byPath[c.Path] = i
	}
	for i := range gates {
		g := &gates[i]
		c, ok := t.byPath[g.Capability]
		if !ok {
			panic(fmt.Sprintf("dispatch: gate on %s names the unknown capability %q", g.Method, g.Capability))
		}
		m := t.methods[g.Method]
		if m == nil {
			m = &methodGates{cap: -1}
			t.methods[g.Method] = m
		}
		if g.Uses == nil && m.cap < 0 {
			m.cap = c
		}
		side := 0
		if g.Result {
			side = 1
		}
		m.rows[side] = append(m.rows[side], gateRow{g, c})
	}
	return t
}

func (t *GateTable[N]) allowed(n N, i int) bool {
	var zero N
	return n != zero && t.caps[i].Allowed(n)
}

// Allows reports whether the capability at path was advertised in n; an
// unknown path is not.
func (t *GateTable[N]) Allows(n N, path string) bool {
	i, ok := t.byPath[path]
	return ok && t.allowed(n, i)
}

// MethodCapability returns the capability a peer must have advertised
// before it may be sent method.
func (t *GateTable[N]) MethodCapability(method string) (string, bool) {
	if m := t.methods[method]; m != nil && m.cap >= 0 {
		return t.caps[m.cap].Path, true
	}
	return "", false
}

// AllowsMethod reports whether method may be sent under n, and the
// capability it needs when it may not.
func (t *GateTable[N]) AllowsMethod(n N, method string) (bool, string) {
	m := t.methods[method]
	if m == nil || m.cap < 0 || t.allowed(n, m.cap) {
		return true, ""
	}
	return false, t.caps[m.cap].Path
}

// CheckParams returns every gated method, member or variant that v, the
// params of method, uses without the capability that allows it under n.
func (t *GateTable[N]) CheckParams(n N, method string, v any) []wire.GateViolation {
	return t.check(n, method, 0, v)
}

// CheckResult is CheckParams for the result of method.
func (t *GateTable[N]) CheckResult(n N, method string, v any) []wire.GateViolation {
	return t.check(n, method, 1, v)
}

// check evaluates method's rows on one side. A row's walk runs only when
// the capability's state makes what it finds a violation: a use without the
// capability, or (Required) an absence with it.
func (t *GateTable[N]) check(n N, method string, side int, v any) (out []wire.GateViolation) {
	m := t.methods[method]
	if m == nil {
		return nil
	}
	for _, r := range m.rows[side] {
		ok := t.allowed(n, r.cap)
		if r.Uses == nil {
			if !ok {
				out = append(out, wire.GateViolation{Method: method, Capability: r.Capability})
			}
			continue
		}
		if ok != r.Required {
			continue
		}
		for _, p := range r.Uses(v, nil) {
			out = append(out, wire.GateViolation{Method: method, Pointer: p, Variant: r.Variant, Capability: r.Capability, Required: r.Required})
		}
	}
	return out
}
