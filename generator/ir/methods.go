package ir

import (
	"github.com/acpgen/acpgen/generator/load"
)

// methods binds x-method defs to methods, telling requests from notifications
// by the routing union that references them. A def whose x-side is "both"
// is a method of each side HandlingSides names.
func (b *builder) methods() error {
	kinds := b.roles()
	type key struct{ wire, side string }
	results := map[key]*Type{}
	requests := map[key]bool{}
	for _, d := range b.doc.Root.Defs {
		for _, side := range HandlingSides(d.Schema.XSide) {
			k := key{d.Schema.XMethod, side}
			switch kinds[d.Name] {
			case KindResponse:
				results[k] = b.m.byDef[d.Name]
			case KindRequest:
				requests[k] = true
			}
		}
	}
	// A response must answer a request of the same wire name and side; naming
	// the response def points at the likely typo.
	for _, d := range b.doc.Root.Defs {
		if d.Schema.XMethod == "" || kinds[d.Name] != KindResponse {
			continue
		}
		for _, side := range HandlingSides(d.Schema.XSide) {
			if !requests[key{d.Schema.XMethod, side}] {
				return b.errf(d.Schema, "response with x-method %q and x-side %q answers no request", d.Schema.XMethod, d.Schema.XSide)
			}
		}
	}
	seen := map[string]*load.Schema{}
	for _, d := range b.doc.Root.Defs {
		s := d.Schema
		if s.XMethod == "" {
			continue
		}
		if s.XSide == "" {
			return b.errf(s, "x-method %q without x-side", s.XMethod)
		}
		role := kinds[d.Name]
		if role == "" {
			return b.errf(s, "def with x-method %q is referenced by no routing union", s.XMethod)
		}
		if role == KindResponse {
			continue
		}
		for _, side := range HandlingSides(s.XSide) {
			k := side + " " + role + " " + s.XMethod
			if prev, ok := seen[k]; ok {
				return b.errf(s, "method %q is defined twice as a %s handled by %s (also at %s)", s.XMethod, role, side, prev.Pointer)
			}
			seen[k] = s
			m := &Method{Wire: s.XMethod, Side: side, Notification: role == KindNotification, Params: b.m.byDef[d.Name]}
			if !m.Notification {
				m.Result = results[key{s.XMethod, side}]
				if m.Result == nil {
					return b.errf(s, "request %q handled by %s has no response def", s.XMethod, side)
				}
				m.Result.Uses = append(m.Result.Uses, MethodUse{m, "result"})
			}
			m.Params.Uses = append(m.Params.Uses, MethodUse{m, "params"})
			b.m.Methods = append(b.m.Methods, m)
		}
	}
	nameMethods(b.m.Methods)
	return nil
}

// roles classifies the x-method defs: request, notification or response.
// A routing container is an object with method and params (a request when
// it also has id, else a notification) or with result (a response); the defs
// referenced under params or result take that role. Schemas before 0.10.0
// have no envelopes: there the named routing unions (Routings) are bare
// unions of the defs, and npm 0.10.0 writes the protocol-level
// notifications as a bare union in the top-level anyOf.
func (b *builder) roles() map[string]string {
	kinds := map[string]string{} // def name -> KindRequest | KindNotification | KindResponse
	collect := func(under *load.Schema, role string) {
		load.Walk(under, func(x *load.Schema) bool {
			if r := refOnly(x); r != "" {
				name, _ := load.RefName(r)
				if def := b.doc.Def(name); def != nil && def.XMethod != "" {
					kinds[name] = role
				}
			}
			return true
		})
	}
	load.Walk(b.doc.Root, func(x *load.Schema) bool {
		if p := x.Property("params"); p != nil && x.Property("method") != nil {
			if x.Property("id") != nil {
				collect(p, KindRequest)
			} else {
				collect(p, KindNotification)
			}
		}
		if r := x.Property("result"); r != nil {
			collect(r, KindResponse)
		}
		return true
	})
	for _, e := range b.doc.Root.AnyOf {
		if len(e.Properties) == 0 && e.AnyOf != nil {
			collect(e, KindNotification)
		}
	}
	for _, r := range Routings {
		if u := b.doc.Def(r.Union); u != nil && isBareUnion(u) {
			collect(u, r.Kind)
		}
	}
	return kinds
}

// isBareUnion reports a routing union written as a union of method defs,
// not as an envelope.
func isBareUnion(s *load.Schema) bool {
	return len(s.Properties) == 0 && (s.AnyOf != nil || s.OneOf != nil)
}
