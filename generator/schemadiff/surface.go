// Package schemadiff compares two revisions of an ACP schema channel and
// classifies every change as additive or breaking for a Go SDK generated from
// it, for release notes and for deciding the next SDK version.
//
// It reads types with the strict loader, closer to the schema text than the
// IR's Go shapes, and takes the methods from the IR, so a revision compares
// only when acpgen can build it (every published release can: see the sweep).
package schemadiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
)

// Surface is what an SDK generated from one schema file exposes: its methods
// and types, reduced to what the comparison needs.
type Surface struct {
	File    string
	Methods map[string]*Method // by Method.Key
	Types   map[string]*Type   // by Type.Name
}

// Method is one JSON-RPC method.
type Method struct {
	Wire   string
	Kind   string // "request" or "notification"
	Side   string // the side that handles it
	Params string // $defs name
	Result string // $defs name; requests only
}

// Key identifies a method across revisions: one wire name can be both a
// request and a notification, each handled by its own side.
func (m *Method) Key() string { return m.Kind + " " + m.Wire }

// Type kinds.
const (
	Struct = "struct"
	Union  = "union"
	Enum   = "enum"
	Alias  = "alias"
)

// Type is a named ($defs) type or an inline object, union or enum inside one,
// named by its path from the def ("SessionUpdate[plan]", "Foo.bar").
type Type struct {
	Name   string
	Def    string // the $defs entry it is, or is inside of
	Inline bool
	Kind   string

	Fields []*Field // Struct, and a struct with an embedded union

	Discriminator string // Union: the tag member, "" when told apart by shape
	Variants      []*Variant
	// Open: a union with a catch-all variant, or an enum that takes any value.
	Open   bool
	Values []string // Enum: the constants as JSON

	Target string // Alias: the shape it names

	// Docs is every description text in the def, for telling
	// documentation-only revisions apart; set on defs only.
	Docs string
}

// Capability reports whether the type advertises capabilities.
func (t *Type) Capability() bool { return strings.HasSuffix(t.Def, "Capabilities") }

// Field is one object member.
type Field struct {
	Name     string
	Shape    string // the value's shape: string, int64, []ContentBlock, map[string]string, a def name, ...
	Required bool
	Nullable bool
	// Lenient lists the x-deserialize-* keywords the member carries.
	Lenient     []string
	Constraints string // minimum, maximum, lengths, pattern, const
	Default     string // JSON
}

// Variant is one alternative of a union.
type Variant struct {
	Key     string // the tag value, else the payload's def name, title or JSON kind
	Role    string // "tagged", "untagged", "catch-all", "null"
	Payload string // shape of the variant's value
	// Go is the name of the variant's field in the generated union (and the
	// suffix of its inline payload type): the tag or title through
	// ir.GoName, else the key's.
	Go string
}

// Extract reduces a loaded schema to its surface.
func Extract(doc *load.Document) (*Surface, error) {
	x := &extractor{doc: doc, s: &Surface{File: doc.File, Methods: map[string]*Method{}, Types: map[string]*Type{}}}
	for _, d := range doc.Root.Defs {
		if d.Schema.XDocsIgnore {
			// The routing unions (AgentRequest, ...): their content is the
			// method list, compared as methods.
			continue
		}
		t := x.typ(d.Name, d.Name, false, d.Schema)
		t.Docs = docs(d.Schema)
	}
	if err := x.methods(); err != nil {
		return nil, err
	}
	return x.s, nil
}

type extractor struct {
	doc *load.Document
	s   *Surface
}

// refName returns the def a schema only refers to: {$ref} or {allOf: [{$ref}]}.
func refName(s *load.Schema) string {
	if s == nil || s.IsBool {
		return ""
	}
	ref := s.Ref
	if ref == "" && len(s.AllOf) == 1 && len(s.Properties) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 {
		ref = s.AllOf[0].Ref
	}
	name, _ := load.RefName(ref)
	return name
}

func isNull(s *load.Schema) bool {
	return s != nil && !s.IsBool && len(s.Types) == 1 && s.Types[0] == "null"
}

// nonNull splits "T or null" written either as type: [T, "null"] or as
// anyOf/oneOf [T, {type: null}].
func nonNull(s *load.Schema) (*load.Schema, bool) {
	for _, l := range [][]*load.Schema{s.AnyOf, s.OneOf} {
		if len(l) == 2 && len(s.Properties) == 0 {
			if isNull(l[1]) {
				return l[0], true
			}
			if isNull(l[0]) {
				return l[1], true
			}
		}
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		c := *s
		c.Types = slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		return &c, true
	}
	return s, false
}

// isEnum reports whether branches are scalar constants, plus at most free
// scalars of the same kind (an open enum).
func isEnum(branches []*load.Schema) (values []string, open, ok bool) {
	for _, b := range branches {
		switch {
		case b.IsBool || len(b.Properties) > 0 || b.Ref != "" || len(b.AllOf) > 0 || len(b.AnyOf) > 0 || len(b.OneOf) > 0:
			return nil, false, false
		case b.Const != nil && b.Const.Kind != load.Object && b.Const.Kind != load.Array:
			values = append(values, string(b.Const.JSON()))
		case len(b.Enum) > 0:
			for _, v := range b.Enum {
				values = append(values, string(v.JSON()))
			}
		case len(b.Types) == 1 && (b.Types[0] == "string" || b.Types[0] == "integer" || b.Types[0] == "number"):
			open = true
		default:
			return nil, false, false
		}
	}
	return values, open, len(values) > 0
}

// typ records the type of schema s under name; def is the $defs entry it
// belongs to.
func (x *extractor) typ(name, def string, inline bool, s *load.Schema) *Type {
	t := &Type{Name: name, Def: def, Inline: inline}
	x.s.Types[name] = t
	inner, nullable := nonNull(s)
	switch {
	case len(s.Enum) > 0:
		t.Kind = Enum
		for _, v := range s.Enum {
			t.Values = append(t.Values, string(v.JSON()))
		}
	case len(s.Properties) == 0 && len(branches(s)) > 0 && !nullable:
		if vals, open, ok := isEnum(branches(s)); ok {
			t.Kind, t.Values, t.Open = Enum, vals, open
			break
		}
		t.Kind = Union
		x.union(t, s)
	case len(s.Properties) > 0 || (s.HasType("object") && refName(s.AdditionalProperties) == "" && !hasSchemaValue(s.AdditionalProperties)):
		t.Kind = Struct
		x.fields(t, s)
		if len(branches(s)) > 0 {
			x.union(t, s)
		}
	default:
		t.Kind = Alias
		shape, _ := x.shape(name, inner)
		if nullable {
			shape = "nullable " + shape
		}
		t.Target = shape
	}
	sort.Strings(t.Values)
	return t
}

func branches(s *load.Schema) []*load.Schema {
	if len(s.OneOf) > 0 {
		return s.OneOf
	}
	return s.AnyOf
}

// hasSchemaValue reports an additionalProperties that types the values.
func hasSchemaValue(s *load.Schema) bool {
	return s != nil && !s.IsBool && (s.Ref != "" || len(s.Types) > 0 || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0)
}

func (x *extractor) fields(t *Type, s *load.Schema) {
	for _, p := range s.Properties {
		inner, nullable := nonNull(p.Schema)
		shape, n2 := x.shape(t.Name+"."+p.Name, inner)
		f := &Field{Name: p.Name, Shape: shape, Required: s.IsRequired(p.Name), Nullable: nullable || n2}
		ps := p.Schema
		if ps.XDefaultOnError {
			f.Lenient = append(f.Lenient, "default-on-error")
		}
		if ps.XDefaultOnNull {
			f.Lenient = append(f.Lenient, "default-on-null")
		}
		if ps.XSkipInvalidItems || (inner.Items != nil && inner.XSkipInvalidItems) {
			f.Lenient = append(f.Lenient, "skip-invalid-items")
		}
		f.Constraints = constraints(inner)
		if ps.Default != nil {
			f.Default = string(ps.Default.JSON())
		}
		t.Fields = append(t.Fields, f)
	}
}

func constraints(s *load.Schema) string {
	var c []string
	if s.Minimum != nil {
		c = append(c, "minimum "+s.Minimum.String())
	}
	if s.Maximum != nil {
		c = append(c, "maximum "+s.Maximum.String())
	}
	if s.MinLength != nil {
		c = append(c, fmt.Sprintf("minLength %d", *s.MinLength))
	}
	if s.MaxLength != nil {
		c = append(c, fmt.Sprintf("maxLength %d", *s.MaxLength))
	}
	if s.HasPattern {
		c = append(c, "pattern "+s.Pattern)
	}
	if s.Const != nil {
		c = append(c, "const "+string(s.Const.JSON()))
	}
	return strings.Join(append(c, vocabularyConstraints(s)...), ", ")
}

// vocabularyConstraints lists the constraints beyond the pinned schema's
// keywords, so a revision that adds or changes one reports it.
func vocabularyConstraints(s *load.Schema) []string {
	var c []string
	num := func(name string, n *json.Number) {
		if n != nil {
			c = append(c, name+" "+n.String())
		}
	}
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	num("multipleOf", s.MultipleOf)
	if s.MinItems != nil {
		c = append(c, fmt.Sprintf("minItems %d", *s.MinItems))
	}
	if s.MaxItems != nil {
		c = append(c, fmt.Sprintf("maxItems %d", *s.MaxItems))
	}
	if s.UniqueItems {
		c = append(c, "uniqueItems")
	}
	if len(s.Enum) > 0 && len(s.Types) > 0 {
		var vs []string
		for _, v := range s.Enum {
			vs = append(vs, string(v.JSON()))
		}
		c = append(c, "enum "+strings.Join(vs, " "))
	}
	return c
}

// shape renders a value schema as a short type expression; inline objects,
// unions and enums become types of their own named at.
func (x *extractor) shape(at string, s *load.Schema) (shape string, nullable bool) {
	if s == nil || s.IsBool {
		return "any", false
	}
	if r := refName(s); r != "" {
		return r, false
	}
	if inner, n := nonNull(s); n {
		sh, _ := x.shape(at, inner)
		return sh, true
	}
	if len(s.Properties) > 0 || len(branches(s)) > 0 || len(s.Enum) > 0 {
		x.typ(at, x.defOf(at), true, s)
		return at, false
	}
	if len(s.Types) != 1 {
		if len(s.Types) == 0 && s.Const != nil {
			return "const " + string(s.Const.JSON()), false
		}
		if len(s.Types) == 0 {
			return "any", false
		}
		return strings.Join(s.Types, "|"), false
	}
	switch s.Types[0] {
	case "string":
		return "string", false
	case "boolean":
		return "bool", false
	case "integer":
		if s.Format != "" {
			return s.Format, false
		}
		return "int64", false
	case "number":
		return "float64", false
	case "array":
		inner, n := nonNull(orAny(s.Items))
		elem, n2 := x.shape(at+"[]", inner)
		if n || n2 {
			elem = "*" + elem
		}
		return "[]" + elem, false
	case "object":
		if hasSchemaValue(s.AdditionalProperties) {
			inner, n := nonNull(s.AdditionalProperties)
			elem, n2 := x.shape(at+"{}", inner)
			if n || n2 {
				elem = "*" + elem
			}
			return "map[string]" + elem, false
		}
		return "object", false
	}
	return s.Types[0], false
}

func orAny(s *load.Schema) *load.Schema {
	if s == nil {
		return &load.Schema{IsBool: true, BoolValue: true}
	}
	return s
}

// defOf returns the def an inline path starts with.
func (x *extractor) defOf(at string) string {
	if i := strings.IndexAny(at, ".[{"); i >= 0 {
		return at[:i]
	}
	return at
}

// union records the variants of s into t.
func (x *extractor) union(t *Type, s *load.Schema) {
	bs := branches(s)
	t.Discriminator = s.Discriminator
	if t.Discriminator == "" {
		t.Discriminator = commonTag(bs)
	}
	for i, b := range bs {
		v := &Variant{}
		switch {
		case b.Not != nil:
			v.Key, v.Role, v.Payload = "(other)", "catch-all", "object"
			t.Open = true
		case isNull(b):
			v.Key, v.Role, v.Payload = "null", "null", "null"
		default:
			tag := ""
			if t.Discriminator != "" {
				if p := b.Property(t.Discriminator); p != nil && p.Const != nil {
					tag = string(p.Const.JSON())
					if p.Const.Kind == load.String {
						tag = p.Const.String
					}
				}
			}
			v.Role = "tagged"
			if tag == "" {
				v.Role = "untagged"
			}
			// Keys must survive cosmetic revisions (a title added to a
			// variant), so prefer what the generated code is built from:
			// the tag, the payload def, a scalar's shape; the title last.
			v.Key = tag
			if v.Key == "" {
				v.Key = refName(b)
			}
			if v.Key == "" && b.Title != "" && (len(b.Properties) > 0 || len(b.AllOf) > 0 || len(branches(b)) > 0) {
				v.Key = b.Title
			}
			if v.Key == "" {
				v.Key = fmt.Sprintf("#%d", i)
			}
			v.Payload = x.payload(t.Name+"["+v.Key+"]", b, t.Discriminator)
			if strings.HasPrefix(v.Key, "#") && !strings.Contains(v.Payload, t.Name+"[") {
				// An anonymous or titled scalar variant is known by its shape.
				v.Key = v.Payload
			} else if strings.HasPrefix(v.Key, "#") && b.Title != "" {
				v.Key = b.Title
			}
		}
		v.Go = variantGoName(v, b.Title)
		t.Variants = append(t.Variants, v)
	}
}

// payload renders a variant's value: its referenced defs, plus an inline
// type for members of its own (the tag excluded).
func (x *extractor) payload(at string, b *load.Schema, tag string) string {
	if r := refName(b); r != "" {
		return r
	}
	var parts []string
	for _, a := range b.AllOf {
		if r := refName(a); r != "" {
			parts = append(parts, r)
		}
	}
	own := 0
	for _, p := range b.Properties {
		if p.Name != tag {
			own++
		}
	}
	if own > 0 || len(branches(b)) > 0 {
		c := *b
		c.Properties = slices.DeleteFunc(slices.Clone(b.Properties), func(p load.Property) bool { return p.Name == tag })
		c.AllOf = nil
		x.typ(at, x.defOf(at), true, &c)
		parts = append(parts, at)
	}
	if len(parts) == 0 {
		if len(b.Properties) > 0 || b.HasType("object") {
			return "object"
		}
		sh, n := x.shape(at, b)
		if n {
			sh = "nullable " + sh
		}
		return sh
	}
	return strings.Join(parts, "+")
}

// commonTag finds the member that carries a string const in most object
// branches: the discriminator of a union written without the keyword. A
// member consted in one branch only counts when no other member competes
// (AuthMethod: one tagged variant beside an untagged default).
func commonTag(bs []*load.Schema) string {
	count := map[string]int{}
	for _, b := range bs {
		for _, p := range b.Properties {
			if p.Schema.Const != nil && p.Schema.Const.Kind == load.String {
				count[p.Name]++
			}
		}
	}
	best, n := "", 0
	for name, c := range count {
		if c > n || (c == n && name < best) {
			best, n = name, c
		}
	}
	if n < 2 && len(count) > 1 {
		return ""
	}
	return best
}

// docs collects the description texts in a def, sorted, which is what
// changes when a revision only rewords the documentation. As a set, it does
// not change when a variant or member without description is added.
func docs(s *load.Schema) string {
	var texts []string
	load.Walk(s, func(x *load.Schema) bool {
		if x.Description != "" {
			texts = append(texts, x.Description)
		}
		return true
	})
	slices.Sort(texts)
	return strings.Join(texts, "\x00")
}

// methods takes the method bindings from the IR, the one reading of which
// defs are requests, notifications and responses and which side handles them.
func (x *extractor) methods() error {
	m, err := ir.Build(x.doc, "")
	if err != nil {
		return err
	}
	for _, im := range m.Methods {
		mt := &Method{Wire: im.Wire, Kind: ir.KindRequest, Side: im.Side, Params: im.Params.Def}
		if im.Notification {
			mt.Kind = ir.KindNotification
		}
		if im.Result != nil {
			mt.Result = im.Result.Def
		}
		x.add(mt)
	}
	return nil
}

// add records a method under its key; the same wire name and kind handled
// by two sides is kept as two, each keyed with its side.
func (x *extractor) add(m *Method) {
	k := m.Key()
	if prev, ok := x.s.Methods[k]; ok {
		delete(x.s.Methods, k)
		x.s.Methods[k+" ("+prev.Side+")"] = prev
		k += " (" + m.Side + ")"
	} else if x.hasSplit(k) {
		k += " (" + m.Side + ")"
	}
	x.s.Methods[k] = m
}

// hasSplit reports whether methods of key k are already kept per side.
func (x *extractor) hasSplit(k string) bool {
	for key := range x.s.Methods {
		if strings.HasPrefix(key, k+" (") {
			return true
		}
	}
	return false
}
