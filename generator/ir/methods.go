package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/load"
)

// routing is one union that routes messages to a handling side: a named
// routing union (routingUnions) or one written inline in the top-level anyOf.
type routing struct {
	name string
	s    *load.Schema
	kind string
	side string
}

// use is one routing union member naming an x-method def.
type use struct {
	ref *load.Schema // locates the $ref
	u   *routing
}

// methods binds x-method defs to methods. The routing unions say whether a
// def is a request, a notification or a response and which side they route it
// to; x-side says which sides handle it (a def whose x-side is "both" is a
// method of each side handlingSides names) and must agree with the union.
// Every problem is reported at once.
func (b *builder) methods() error {
	var problems []error
	problem := func(s *load.Schema, format string, args ...any) {
		problems = append(problems, b.errf(s, format, args...))
	}
	uses := b.uses(problem)
	kinds := map[string]string{} // def name -> KindRequest | KindNotification | KindResponse
	for _, d := range b.doc.Root.Defs {
		s := d.Schema
		switch {
		case s.XMethod != "" && s.XSide == "":
			problem(s, "x-method %q without x-side; every method def must say which side handles it", s.XMethod)
			continue
		case s.XSide != "" && s.XMethod == "":
			problem(s, "x-side %q without x-method", s.XSide)
			continue
		case s.XMethod == "":
			continue
		case len(uses[d.Name]) == 0:
			problem(s, "def with x-method %q is referenced by no routing union, so nothing would route it", s.XMethod)
			continue
		}
		for _, us := range uses[d.Name] {
			if !slices.Contains(handlingSides(s.XSide), us.u.side) {
				problem(us.ref, "%s has x-side %q but %s routes it to side %q", d.Name, s.XSide, us.u.name, us.u.side)
				continue
			}
			if k, ok := kinds[d.Name]; ok && k != us.u.kind {
				problem(us.ref, "%s is a %s in %s but a %s in another routing union", d.Name, us.u.kind, us.u.name, k)
				continue
			}
			kinds[d.Name] = us.u.kind
		}
	}
	if len(problems) == 0 {
		b.bind(kinds, problem)
	}
	switch len(problems) {
	case 0:
		nameMethods(b.m.Methods)
		return nil
	case 1:
		return problems[0]
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	return fmt.Errorf("%s: %d schema problem(s):\n  %s", b.doc.File, len(problems), strings.Join(msgs, "\n  "))
}

// uses finds the x-method defs each routing union names, by def name.
func (b *builder) uses(problem func(*load.Schema, string, ...any)) map[string][]use {
	uses := map[string][]use{}
	for _, u := range b.routings(problem) {
		for _, r := range memberRefs(u.s, nil) {
			name, _ := load.RefName(r.Ref)
			r = &load.Schema{File: r.File, Pointer: r.Pointer + "/$ref", Ref: r.Ref}
			def := b.doc.Def(name)
			if def == nil {
				problem(r, "%s member %q does not resolve to a $defs entry", u.name, r.Ref)
				continue
			}
			if def.XMethod == "" {
				// Extension members (ExtRequest, ...) accept anything and
				// route every method name the spec does not define.
				if !isFree(def) {
					problem(r, "routing union %s references %s, which has no x-method; annotate it or drop it from the union", u.name, name)
				}
				continue
			}
			uses[name] = append(uses[name], use{r, u})
		}
	}
	return uses
}

// bind makes the methods of classified defs, in def order, pairing each
// request with the response of its wire name and side.
func (b *builder) bind(kinds map[string]string, problem func(*load.Schema, string, ...any)) {
	type key struct{ wire, side string }
	results := map[key]*load.Def{}
	requests := map[key]bool{}
	for i, d := range b.doc.Root.Defs {
		for _, side := range handlingSides(d.Schema.XSide) {
			k := key{d.Schema.XMethod, side}
			switch kinds[d.Name] {
			case KindResponse:
				if prev, ok := results[k]; ok {
					problem(d.Schema, "response %q of side %s is defined twice (also at %s)", k.wire, side, prev.Schema.Pointer)
				}
				results[k] = &b.doc.Root.Defs[i]
			case KindRequest:
				requests[k] = true
			}
		}
	}
	// A response must answer a request of the same wire name and side; naming
	// the response def points at the likely typo, so the request it leaves
	// without a response is not reported as well.
	orphans := false
	for _, d := range b.doc.Root.Defs {
		if kinds[d.Name] != KindResponse {
			continue
		}
		for _, side := range handlingSides(d.Schema.XSide) {
			if !requests[key{d.Schema.XMethod, side}] {
				problem(d.Schema, "response with x-method %q and x-side %q answers no request", d.Schema.XMethod, d.Schema.XSide)
				orphans = true
			}
		}
	}
	seen := map[string]*load.Schema{}
	for _, d := range b.doc.Root.Defs {
		s, role := d.Schema, kinds[d.Name]
		if role == "" || role == KindResponse {
			continue
		}
		for _, side := range handlingSides(s.XSide) {
			k := side + " " + role + " " + s.XMethod
			if prev, ok := seen[k]; ok {
				problem(s, "method %q is defined twice as a %s handled by %s (also at %s)", s.XMethod, role, side, prev.Pointer)
				continue
			}
			seen[k] = s
			m := &Method{Wire: s.XMethod, Side: side, Notification: role == KindNotification, Params: b.m.byDef[d.Name]}
			if !m.Notification {
				res := results[key{s.XMethod, side}]
				if res == nil && orphans {
					continue
				}
				if res == nil {
					problem(s, "request %q handled by %s has no response def: no def with that x-method is in the %s response union", s.XMethod, side, responseUnion(side))
					continue
				}
				m.Result = b.m.byDef[res.Name]
				m.Result.Uses = append(m.Result.Uses, MethodUse{m, "result"})
			}
			m.Params.Uses = append(m.Params.Uses, MethodUse{m, "params"})
			b.m.Methods = append(b.m.Methods, m)
		}
	}
}

// routings finds the routing unions: the named ones in $defs, and the
// protocol-level one written inline in the top-level anyOf, which is the
// entry that itself has a "method" property (npm 0.10.0 writes it as a
// bare union of the params, with no envelope).
func (b *builder) routings(problem func(*load.Schema, string, ...any)) []*routing {
	var out []*routing
	for _, r := range routingUnions {
		if s := b.doc.Def(r.Union); s != nil {
			out = append(out, &routing{r.Union, s, r.Kind, r.Side})
		}
	}
	for _, e := range b.doc.Root.AnyOf {
		if e.Property("method") == nil {
			if len(e.Properties) == 0 && e.AnyOf != nil {
				out = append(out, &routing{"ProtocolLevel", e, KindNotification, "protocol"})
			}
			continue
		}
		side, ok := inlineRoutings[e.Title]
		if !ok {
			problem(e, "inline routing union titled %q is not known; teach generator/ir its handling side", e.Title)
			continue
		}
		kind := KindNotification
		if e.Property("id") != nil {
			kind = KindRequest
		}
		out = append(out, &routing{e.Title, e, kind, side})
	}
	return out
}

// memberRefs finds the $ref nodes naming a routing union's members. It
// follows the combinators and only the params/result members, so the id and
// error parts of a message (RequestId, Error) are not taken for members.
func memberRefs(s *load.Schema, out []*load.Schema) []*load.Schema {
	if s.Ref != "" {
		out = append(out, s)
	}
	for _, l := range [][]*load.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		for _, x := range l {
			out = memberRefs(x, out)
		}
	}
	for _, k := range []string{"params", "result"} {
		if p := s.Property(k); p != nil {
			out = memberRefs(p, out)
		}
	}
	return out
}

// responseUnion names the union holding responses from a handling side.
func responseUnion(side string) string {
	for _, u := range routingUnions {
		if u.Kind == KindResponse && u.Side == side {
			return u.Union
		}
	}
	return "(no response union for side " + side + ")"
}
