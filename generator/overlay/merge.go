package overlay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// ---- ordered JSON tree helpers (load.Node keeps member order) ----

func get(n *load.Node, key string) *load.Node {
	if n == nil || n.Kind != load.Object {
		return nil
	}
	return n.Get(key)
}

func set(n *load.Node, key string, v *load.Node) {
	for i := range n.Members {
		if n.Members[i].Name == key {
			n.Members[i].Value = v
			return
		}
	}
	n.Members = append(n.Members, load.Member{Name: key, Value: v})
}

func del(n *load.Node, key string) {
	kept := n.Members[:0]
	for _, m := range n.Members {
		if m.Name != key {
			kept = append(kept, m)
		}
	}
	n.Members = kept
}

func str(s string) *load.Node { return &load.Node{Kind: load.String, String: s} }

func clone(n *load.Node) *load.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Items != nil {
		c.Items = make([]*load.Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = clone(it)
		}
	}
	if n.Members != nil {
		c.Members = make([]load.Member, len(n.Members))
		for i, m := range n.Members {
			c.Members[i] = load.Member{Name: m.Name, Value: clone(m.Value)}
		}
	}
	return &c
}

func hasType(t *load.Node, name string) bool {
	if t.Kind == load.String {
		return t.String == name
	}
	for _, it := range t.Items {
		if it.Kind == load.String && it.String == name {
			return true
		}
	}
	return false
}

// canon is n as JSON with object members sorted, minus documentation
// keywords, so two schemas that say the same compare equal.
func canon(n *load.Node) string {
	var b bytes.Buffer
	writeCanon(&b, n)
	return b.String()
}

func writeCanon(b *bytes.Buffer, n *load.Node) {
	switch n.Kind {
	case load.Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, it)
		}
		b.WriteByte(']')
	case load.Object:
		ms := append([]load.Member(nil), n.Members...)
		sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
		b.WriteByte('{')
		first := true
		for _, m := range ms {
			if docKeyword[m.Name] {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(m.Name)
			b.Write(k)
			b.WriteByte(':')
			writeCanon(b, m.Value)
		}
		b.WriteByte('}')
	default:
		b.Write(n.JSON())
	}
}

// ---- comparing an overlay's schema with the base's ----

// docKeyword: documentation, never part of a schema's meaning.
var docKeyword = map[string]bool{"description": true, "title": true, "$comment": true, "examples": true, "x-acpgen-overlay": true, "x-docs-ignore": true}

// constraint keywords narrow a value without changing its shape; an overlay
// that adds one tightens the base.
var constraint = map[string]bool{"pattern": true, "minLength": true, "maxLength": true, "minimum": true, "maximum": true, "minItems": true, "maxItems": true}

// annotation keywords carry acpgen meaning the base cannot have.
var annotation = map[string]bool{"x-acpgen-ephemeral": true, "x-acpgen-meta": true, "x-acpgen-pattern-name": true, "x-acpgen-aliases": true}

func isHint(k string) bool { return strings.HasPrefix(k, "x-deserialize-") }

// report collects what merging one overlay schema into the base found.
type report struct {
	tightened []string
	conflicts []string
	annotated bool
}

func (r *report) tighten(at, what string) { r.tightened = append(r.tightened, join(at, what)) }
func (r *report) conflict(at, format string, args ...any) {
	r.conflicts = append(r.conflicts, join(at, fmt.Sprintf(format, args...)))
}

func join(at, what string) string {
	if at == "" {
		return what
	}
	return at + ": " + what
}

func short(n *load.Node) string {
	if n == nil {
		return "nothing"
	}
	s := string(n.JSON())
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// merge compares the overlay schema ov with base (at is the pointer below the
// change's target, for messages) and returns base with the overlay's
// tightenings applied. Equivalence ignores documentation, the x-deserialize-*
// hints and null wrappers; a hint the overlay drops, a constraint it adds and
// null it no longer allows are tightenings; any other difference is a
// conflict.
func merge(base, ov *load.Node, at string, r *report) *load.Node {
	if base.Kind == load.Bool || ov.Kind == load.Bool {
		if canon(base) != canon(ov) {
			r.conflict(at, "the base has %s, the overlay %s", short(base), short(ov))
		}
		return base
	}
	bCore, bNull := unwrapNull(base)
	oCore, oNull := unwrapNull(ov)
	switch {
	case bNull && !oNull:
		out := mergeObject(bCore, ov, at, r)
		r.tighten(at, "rejects null")
		return rewrapRef(out)
	case oNull && !bNull:
		return mergeObject(base, oCore, at, r)
	}
	return mergeObject(base, ov, at, r)
}

// unwrapNull reads anyOf: [X, {type: null}] as X plus the outer keywords.
func unwrapNull(n *load.Node) (*load.Node, bool) {
	any := get(n, "anyOf")
	if any == nil || any.Kind != load.Array || len(any.Items) != 2 || get(n, "type") != nil || get(n, "properties") != nil {
		return n, false
	}
	for i, br := range any.Items {
		if isNull(br) {
			out := clone(n)
			del(out, "anyOf")
			for _, m := range any.Items[1-i].Members {
				if get(out, m.Name) == nil {
					set(out, m.Name, clone(m.Value))
				}
			}
			return out, true
		}
	}
	return n, false
}

func isNull(n *load.Node) bool {
	if n.Kind != load.Object {
		return false
	}
	for _, m := range n.Members {
		if docKeyword[m.Name] {
			continue
		}
		if m.Name != "type" || m.Value.Kind != load.String || m.Value.String != "null" {
			return false
		}
	}
	return get(n, "type") != nil
}

// rewrapRef writes a $ref with sibling keywords as a one-element allOf, the
// form upstream uses and draft-7 validators honour.
func rewrapRef(n *load.Node) *load.Node {
	ref := get(n, "$ref")
	if ref == nil || len(n.Members) == 1 {
		return n
	}
	out := clone(n)
	del(out, "$ref")
	set(out, "allOf", &load.Node{Kind: load.Array, Items: []*load.Node{{Kind: load.Object, Members: []load.Member{{Name: "$ref", Value: ref}}}}})
	return out
}

// refTarget returns the reference of {$ref} or {allOf: [{$ref}]}.
func refTarget(n *load.Node) *load.Node {
	if r := get(n, "$ref"); r != nil {
		return r
	}
	if all := get(n, "allOf"); all != nil && all.Kind == load.Array && len(all.Items) == 1 {
		it := all.Items[0]
		if r := get(it, "$ref"); r != nil {
			for _, m := range it.Members {
				if m.Name != "$ref" && !docKeyword[m.Name] {
					return nil
				}
			}
			return r
		}
	}
	return nil
}

func mergeObject(base, ov *load.Node, at string, r *report) *load.Node {
	out := clone(base)
	// One reference written two ways is one shape.
	bRef, oRef := refTarget(base), refTarget(ov)
	if bRef != nil || oRef != nil {
		if bRef == nil || oRef == nil || canon(bRef) != canon(oRef) {
			r.conflict(at, "the base refers to %s, the overlay to %s", short(bRef), short(oRef))
			return out
		}
	}
	keys := map[string]bool{}
	var order []string
	for _, n := range []*load.Node{base, ov} {
		for _, m := range n.Members {
			if !keys[m.Name] {
				keys[m.Name] = true
				order = append(order, m.Name)
			}
		}
	}
	for _, k := range order {
		bv, ovv := get(base, k), get(ov, k)
		switch {
		case docKeyword[k]:
		case (k == "$ref" || k == "allOf") && (bRef != nil):
			// compared above
		case isHint(k):
			if bv != nil && ovv == nil {
				del(out, k)
				r.tighten(at, "drops "+k)
			}
		case constraint[k]:
			switch {
			case bv == nil && ovv != nil:
				set(out, k, clone(ovv))
				r.tighten(at, "adds "+k)
			case bv != nil && ovv != nil && canon(bv) != canon(ovv):
				r.conflict(at, "%s is %s in the base, %s in the overlay", k, short(bv), short(ovv))
			}
		case annotation[k]:
			if ovv != nil && (bv == nil || canon(bv) != canon(ovv)) {
				set(out, k, clone(ovv))
				r.annotated = true
			}
		case k == "type":
			mergeType(out, bv, ovv, at, r)
		case k == "properties":
			mergeProperties(out, bv, ovv, at, r)
		case k == "required":
			if setOf(bv) != setOf(ovv) {
				r.conflict(at, "required is %s in the base, %s in the overlay", short(bv), short(ovv))
			}
		case k == "items" || k == "not" || k == "unevaluatedProperties" || (k == "additionalProperties" && bv != nil && ovv != nil):
			if bv == nil || ovv == nil {
				r.conflict(at+"/"+k, "the base has %s, the overlay %s", short(bv), short(ovv))
				continue
			}
			set(out, k, merge(bv, ovv, at+"/"+k, r))
		case k == "additionalProperties":
			// Absent means true.
			other := bv
			if other == nil {
				other = ovv
			}
			if !(other.Kind == load.Bool && other.Bool) {
				r.conflict(at+"/"+k, "the base has %s, the overlay %s", short(bv), short(ovv))
			}
		case k == "anyOf" || k == "oneOf" || k == "allOf":
			if bv == nil || ovv == nil || len(bv.Items) != len(ovv.Items) {
				r.conflict(at+"/"+k, "the base has %s, the overlay %s", short(bv), short(ovv))
				continue
			}
			merged := &load.Node{Kind: load.Array}
			for i := range bv.Items {
				merged.Items = append(merged.Items, merge(bv.Items[i], ovv.Items[i], fmt.Sprintf("%s/%s/%d", at, k, i), r))
			}
			set(out, k, merged)
		case k == "default":
			if bv != nil && ovv != nil && canon(bv) != canon(ovv) {
				r.conflict(at+"/default", "the base has %s, the overlay %s", short(bv), short(ovv))
			}
		default:
			if bv == nil || ovv == nil || canon(bv) != canon(ovv) {
				r.conflict(at, "%s is %s in the base, %s in the overlay", k, short(bv), short(ovv))
			}
		}
	}
	return out
}

// mergeType compares types as sets; null only the base allows is dropped.
func mergeType(out, bv, ovv *load.Node, at string, r *report) {
	if bv == nil || ovv == nil {
		r.conflict(at, "type is %s in the base, %s in the overlay", short(bv), short(ovv))
		return
	}
	bt, bn := types(bv)
	ot, on := types(ovv)
	if strings.Join(bt, ",") != strings.Join(ot, ",") {
		r.conflict(at, "type is %s in the base, %s in the overlay", short(bv), short(ovv))
		return
	}
	if bn && !on {
		if len(bt) == 1 {
			set(out, "type", str(bt[0]))
		} else {
			t := &load.Node{Kind: load.Array}
			for _, x := range bt {
				t.Items = append(t.Items, str(x))
			}
			set(out, "type", t)
		}
		r.tighten(at, "rejects null")
	}
}

func types(t *load.Node) (names []string, null bool) {
	var all []string
	if t.Kind == load.String {
		all = []string{t.String}
	}
	for _, it := range t.Items {
		all = append(all, it.String)
	}
	for _, x := range all {
		if x == "null" {
			null = true
		} else {
			names = append(names, x)
		}
	}
	sort.Strings(names)
	return
}

func mergeProperties(out, bv, ovv *load.Node, at string, r *report) {
	if bv == nil || ovv == nil {
		r.conflict(at+"/properties", "the base has %s, the overlay %s", short(bv), short(ovv))
		return
	}
	merged := clone(bv)
	for _, m := range bv.Members {
		if get(ovv, m.Name) == nil {
			r.conflict(at+"/properties", "the base has member %q, the overlay does not", m.Name)
		}
	}
	for _, m := range ovv.Members {
		b := get(bv, m.Name)
		if b == nil {
			r.conflict(at+"/properties", "the overlay has member %q, the base does not", m.Name)
			continue
		}
		set(merged, m.Name, merge(b, m.Value, at+"/properties/"+jsonpointer.Escape(m.Name), r))
	}
	set(out, "properties", merged)
}

func setOf(n *load.Node) string {
	if n == nil {
		return ""
	}
	var s []string
	for _, it := range n.Items {
		s = append(s, it.String)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}
