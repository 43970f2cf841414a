package ir

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
)

// BindGates makes gate rows of gates declared on a def's member (overlays
// declare them so): a gate applies to the member in every method whose params
// or result the def is, and it is an error when there is none; a presence
// rule (Require) applies wherever the def occurs inside a method's params or
// result. Rows come out in one order whatever the schema's def order:
// presence rules first, then gates, each by method side, wire name and kind.
func (m *Model) BindGates(decls []facts.DefGate) ([]facts.Gate, error) {
	methods := byWire(m.Methods)
	var out []facts.Gate
	for _, d := range decls {
		if !d.Require {
			continue
		}
		for _, meth := range methods {
			for _, r := range roles(meth) {
				var at []string
				occurrences(r.t, d.Def, "", map[*Type]bool{}, &at)
				for _, path := range at {
					out = append(out, facts.Gate{Method: meth.Wire, Path: path + "/" + d.Member, Result: r.result, Capability: d.Capability, Require: true, Source: d.Source})
				}
			}
		}
	}
	for _, d := range decls {
		if d.Require {
			continue
		}
		n := 0
		for _, meth := range methods {
			for _, r := range roles(meth) {
				if r.t.Def == d.Def {
					out = append(out, facts.Gate{Method: meth.Wire, Path: "/" + d.Member, Result: r.result, Capability: d.Capability, Source: d.Source})
					n++
				}
			}
		}
		if n == 0 {
			return nil, errors.New(d.Where + ": gate on $defs/" + d.Def + ", which is the params or result of no method")
		}
	}
	return out, nil
}

// byWire orders methods by side, wire name and kind (notifications first).
func byWire(ms []*Method) []*Method {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b *Method) int {
		if c := strings.Compare(a.Side, b.Side); c != 0 {
			return c
		}
		if c := strings.Compare(a.Wire, b.Wire); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(!a.Notification), boolInt(!b.Notification))
	})
	return out
}

type role struct {
	t      *Type
	result bool
}

// roles are the types a method carries: its params, and its result if any.
func roles(m *Method) []role {
	out := []role{{m.Params, false}}
	if m.Result != nil {
		out = append(out, role{m.Result, true})
	}
	return out
}

// occurrences appends the gate paths ("/sessions/*") at which the def
// target sits inside t: its members, array items and map values ("*"), and
// the payloads of its variants (at the union's own path).
func occurrences(t *Type, target, path string, seen map[*Type]bool, out *[]string) {
	if t.Def == target && target != "" {
		*out = append(*out, path)
		return
	}
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	var ref func(r *Ref, path string)
	ref = func(r *Ref, path string) {
		switch {
		case r == nil:
		case r.Kind == Named:
			occurrences(r.Type, target, path, seen, out)
		case r.Kind == Array || r.Kind == Map:
			ref(r.Elem, path+"/*")
		}
	}
	for _, f := range t.Fields {
		ref(f.Ref, path+"/"+f.JSON)
	}
	if t.Union != nil {
		for _, v := range t.Union.Variants {
			ref(v.Payload, path)
		}
	}
	ref(t.Target, path)
}
