package schemadiff

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Class says what a change means for a Go SDK generated from the schema.
type Class int

// Change classes, from least to most severe.
const (
	// Docs: documentation text only; the generated API is unchanged.
	Docs Class = iota
	// Additive: code built against the old SDK still compiles and peers on
	// the old schema still interoperate (possibly with a caveat in Detail).
	Additive
	// Breaking: code or peers built from the old schema can break.
	Breaking
)

func (c Class) String() string {
	return [...]string{"docs", "additive", "breaking"}[c]
}

// Change is one difference between two revisions of a channel.
type Change struct {
	Category string // method, type, field, capability, enum value, variant, docs
	Op       string // added, removed, changed
	Subject  string // e.g. "session/new (request)", "NewSessionRequest.cwd"
	Detail   string
	Class    Class

	// Go is the subject as the Go identifier acpgen generates for it:
	// MethodSessionNew, NewSessionRequest.Cwd, MCPServer.ACP, StopReasonEndTurn.
	Go string
	// GoDetail is Detail with every type the schema names spelled as its Go
	// type ("optional []MCPServer", "payload MCPServerACP; ...").
	GoDetail string
}

func chg(category, op, subject, detail string, class Class) Change {
	return Change{Category: category, Op: op, Subject: subject, Detail: detail, Class: class}
}

// Compare lists the changes from old to new, ordered by class (breaking
// first), category and subject.
func Compare(old, new *Surface) []Change {
	var out []Change
	add := func(c Change) { out = append(out, c) }

	for _, k := range keys(old.Methods, new.Methods) {
		a, b := old.Methods[k], new.Methods[k]
		switch {
		case a == nil:
			add(chg("method", "added", methodName(b), "handled by "+b.Side+methodTypes(b), Additive))
		case b == nil:
			add(chg("method", "removed", methodName(a), "was handled by "+a.Side, Breaking))
		default:
			var d []string
			if a.Side != b.Side {
				d = append(d, fmt.Sprintf("handled by %s, was %s", b.Side, a.Side))
			}
			if a.Params != b.Params {
				d = append(d, fmt.Sprintf("params %s, was %s", b.Params, a.Params))
			}
			if a.Result != b.Result {
				d = append(d, fmt.Sprintf("result %s, was %s", b.Result, a.Result))
			}
			if len(d) > 0 {
				add(chg("method", "changed", methodName(b), strings.Join(d, "; "), Breaking))
			}
		}
	}

	for _, k := range keys(old.Types, new.Types) {
		a, b := old.Types[k], new.Types[k]
		switch {
		case a == nil:
			// An inline type appears with the member or variant that holds
			// it, which is reported there.
			if !b.Inline {
				add(chg(typeCategory(b), "added", k, b.Kind, Additive))
			}
		case b == nil:
			if !a.Inline {
				add(chg(typeCategory(a), "removed", k, a.Kind, Breaking))
			}
		default:
			out = append(out, compareType(a, b)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Class != y.Class {
			return x.Class > y.Class
		}
		if x.Category != y.Category {
			return categoryOrder(x.Category) < categoryOrder(y.Category)
		}
		return x.Subject < y.Subject
	})
	n := goNamer{new, old}
	for i := range out {
		out[i].Go = n.subject(out[i])
		out[i].GoDetail = n.text(out[i].Detail)
	}
	return out
}

var categories = []string{"method", "capability", "type", "field", "variant", "enum value", "decoding"}

func categoryOrder(c string) int { return slices.Index(categories, c) }

func typeCategory(t *Type) string {
	if t.Capability() {
		return "capability"
	}
	return "type"
}

func methodName(m *Method) string { return m.Wire + " (" + m.Kind + ")" }

func methodTypes(m *Method) string {
	if m.Result != "" {
		return fmt.Sprintf("; params %s, result %s", m.Params, m.Result)
	}
	return "; params " + m.Params
}

func compareType(a, b *Type) []Change {
	var out []Change
	name := a.Name
	if a.Kind != b.Kind {
		return []Change{chg(typeCategory(b), "changed", name, fmt.Sprintf("%s, was %s", b.Kind, a.Kind), Breaking)}
	}
	if a.Docs != b.Docs && !b.Inline {
		out = append(out, chg(typeCategory(b), "changed", name, "description text", Docs))
	}
	switch a.Kind {
	case Alias:
		if a.Target != b.Target {
			out = append(out, chg(typeCategory(b), "changed", name, fmt.Sprintf("%s, was %s", b.Target, a.Target), Breaking))
		}
	case Enum:
		out = append(out, compareEnum(a, b)...)
	}
	out = append(out, compareFields(a, b)...)
	if len(a.Variants) > 0 || len(b.Variants) > 0 {
		out = append(out, compareUnion(a, b)...)
	}
	return out
}

func compareEnum(a, b *Type) []Change {
	var out []Change
	closed := "closed enum: SDKs built from the old schema reject this value"
	if b.Open {
		closed = "open enum: SDKs built from the old schema keep it as an unknown value"
	}
	for _, v := range b.Values {
		if !slices.Contains(a.Values, v) {
			out = append(out, chg("enum value", "added", a.Name+" "+v, closed, Additive))
		}
	}
	for _, v := range a.Values {
		if !slices.Contains(b.Values, v) {
			out = append(out, chg("enum value", "removed", a.Name+" "+v, "", Breaking))
		}
	}
	switch {
	case a.Open && !b.Open:
		out = append(out, chg("type", "changed", a.Name, "closed enum, was open: unknown values are now rejected", Breaking))
	case !a.Open && b.Open:
		out = append(out, chg("type", "changed", a.Name, "open enum, was closed: any value is now accepted", Additive))
	}
	return out
}

func compareUnion(a, b *Type) []Change {
	var out []Change
	if a.Discriminator != b.Discriminator {
		out = append(out, chg("type", "changed", a.Name, fmt.Sprintf("union told apart by %s, was %s", orShape(b.Discriminator), orShape(a.Discriminator)), Breaking))
	}
	switch {
	case a.Open && !b.Open:
		out = append(out, chg("type", "changed", a.Name, "closed union, was open: unknown variants are now rejected", Breaking))
	case !a.Open && b.Open:
		out = append(out, chg("type", "changed", a.Name, "open union, was closed: unknown variants are now kept", Additive))
	}
	av, bv := map[string]*Variant{}, map[string]*Variant{}
	for _, v := range a.Variants {
		av[v.Key] = v
	}
	for _, v := range b.Variants {
		bv[v.Key] = v
	}
	for _, k := range keys(av, bv) {
		x, y := av[k], bv[k]
		subject := fmt.Sprintf("%s[%s]", a.Name, k)
		switch {
		case x == nil:
			note := "closed union: SDKs built from the old schema reject it"
			if a.Open {
				note = "open union: SDKs built from the old schema keep it as an unknown variant"
			} else if y.Role != "tagged" && y.Role != "catch-all" {
				note = "told apart by shape: SDKs built from the old schema may decode it as another variant"
			}
			out = append(out, chg("variant", "added", subject, fmt.Sprintf("payload %s; %s", y.Payload, note), Additive))
		case y == nil:
			out = append(out, chg("variant", "removed", subject, "payload "+x.Payload, Breaking))
		case x.Payload != y.Payload || x.Role != y.Role:
			out = append(out, chg("variant", "changed", subject, fmt.Sprintf("%s %s, was %s %s", y.Role, y.Payload, x.Role, x.Payload), Breaking))
		}
	}
	return out
}

func orShape(tag string) string {
	if tag == "" {
		return "shape"
	}
	return "member " + tag
}

func compareFields(a, b *Type) []Change {
	var out []Change
	cat := "field"
	if b.Capability() {
		cat = "capability"
	}
	af, bf := map[string]*Field{}, map[string]*Field{}
	for _, f := range a.Fields {
		af[f.Name] = f
	}
	for _, f := range b.Fields {
		bf[f.Name] = f
	}
	for _, k := range keys(af, bf) {
		x, y := af[k], bf[k]
		subject := a.Name + "." + k
		switch {
		case x == nil:
			if y.Required {
				out = append(out, chg(cat, "added", subject, "required "+y.Shape+": peers on the old schema omit it and are rejected", Breaking))
			} else {
				out = append(out, chg(cat, "added", subject, "optional "+y.Shape, Additive))
			}
		case y == nil:
			out = append(out, chg(cat, "removed", subject, describeField(x), Breaking))
		default:
			if c, ok := compareField(x, y); ok {
				if c.Category == "" {
					c.Category = cat
				}
				c.Subject = subject
				out = append(out, c)
			}
		}
	}
	return out
}

func describeField(f *Field) string {
	if f.Required {
		return "required " + f.Shape
	}
	return "optional " + f.Shape
}

// goShape is the member's Go type under acpgen's conventions: absent or null
// values are pointers, except slices, maps and raw JSON, whose nil means
// absent. A change of it breaks code using the member.
func goShape(f *Field) string {
	s := f.Shape
	if (!f.Required || f.Nullable) && !strings.HasPrefix(s, "[]") && !strings.HasPrefix(s, "map[") && s != "any" && s != "object" {
		return "*" + s
	}
	return s
}

// compareField describes how a member changed. A change of decoding
// leniency or default alone, which leaves the Go API as it is, gets the
// category "decoding".
func compareField(x, y *Field) (Change, bool) {
	var d []string
	class := Additive
	api := false // anything beyond decoding leniency and defaults
	breaking := func(s string) { d, class, api = append(d, s), Breaking, true }
	additive := func(s string) { d, api = append(d, s), true }
	if x.Shape != y.Shape {
		breaking(fmt.Sprintf("type %s, was %s", y.Shape, x.Shape))
	} else if goShape(x) != goShape(y) {
		breaking(fmt.Sprintf("Go type %s, was %s", goShape(y), goShape(x)))
	}
	switch {
	case !x.Required && y.Required:
		breaking("now required: peers on the old schema may omit it and are rejected")
	case x.Required && !y.Required:
		additive("now optional")
	}
	switch {
	case x.Nullable && !y.Nullable:
		breaking("null no longer accepted")
	case !x.Nullable && y.Nullable:
		additive("null now accepted")
	}
	var more, less []string
	for _, l := range x.Lenient {
		if !slices.Contains(y.Lenient, l) {
			less = append(less, l)
		}
	}
	for _, l := range y.Lenient {
		if !slices.Contains(x.Lenient, l) {
			more = append(more, l)
		}
	}
	if len(less) > 0 {
		d, class = append(d, "stricter decoding: no longer x-deserialize-"+strings.Join(less, ", -")), Breaking
	}
	if len(more) > 0 {
		d = append(d, "more lenient decoding: now x-deserialize-"+strings.Join(more, ", -"))
	}
	if x.Constraints != y.Constraints {
		breaking(fmt.Sprintf("constraints %q, were %q", y.Constraints, x.Constraints))
	}
	if x.Default != y.Default {
		d = append(d, fmt.Sprintf("default %s, was %s", orNone(y.Default), orNone(x.Default)))
	}
	if len(d) == 0 {
		return Change{}, false
	}
	c := Change{Op: "changed", Detail: strings.Join(d, "; "), Class: class}
	if !api {
		c.Category = "decoding"
	}
	return c, true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func keys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
