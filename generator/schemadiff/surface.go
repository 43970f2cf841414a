// Package schemadiff compares two revisions of an ACP schema channel and
// classifies every change as additive or breaking for a Go SDK generated from
// it, for release notes and for deciding the next SDK version.
//
// It compares the IRs of the two revisions (ir.Model): the shapes, unions,
// enums, methods and Go names are the ones acpgen generates from, so a
// revision compares only when acpgen can build it (every published release
// can: see the sweep). Subjects are spelled as the schema spells them
// (McpServer, SessionInfo.archived); each change also carries the Go
// identifier the IR names it by (MCPServer, SessionInfo.Archived).
package schemadiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
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
	Go     string // its Go constant (ir.MethodConst)
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
	Go     string // the Go type the IR names it by
	Def    string // the $defs entry it is, or is inside of
	Inline bool
	Kind   string

	Fields []*Field // Struct, and a struct with an embedded union

	Discriminator string // Union: the tag member, "" when told apart by shape
	Variants      []*Variant
	// Open: a union with a catch-all variant, or an enum that takes any value.
	Open   bool
	Values []string // Enum: the constants as JSON
	// ValueGo is each value's Go constant, by its JSON; UnionGo the Go type
	// of the union (for a struct with an embedded union, the union's own).
	ValueGo map[string]string
	UnionGo string

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
	Go       string // the Go field
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
	Key     string // the tag value, else the payload's def name, title or shape
	Role    string // "tagged", "fallback", "catch-all", "absent", "shape" or "null"
	Payload string // shape of the variant's value
	// Go is the variant's field in the generated union.
	Go string
}

// Extract reduces a channel's IR to its surface.
func Extract(m *ir.Model) *Surface {
	x := &extractor{s: &Surface{File: m.File, Methods: map[string]*Method{}, Types: map[string]*Type{}}, docs: map[string][]string{}}
	for _, t := range m.Types {
		if t.Def == "" || ir.IsRoutingUnion(t.Def) {
			// Inline types are reached from their def; the routing unions'
			// content is the method list, compared as methods.
			continue
		}
		x.typ(t.Def, t.Def, false, t)
	}
	for name, texts := range x.docs {
		slices.Sort(texts)
		x.s.Types[name].Docs = strings.Join(texts, "\x00")
	}
	x.methods(m)
	return x.s
}

type extractor struct {
	s *Surface
	// docs collects the description texts in each def, inline types
	// included: as a sorted set, it changes when a revision rewords the
	// documentation, not when a member without description is added.
	docs map[string][]string
}

func (x *extractor) doc(def, text string) {
	if text != "" {
		x.docs[def] = append(x.docs[def], text)
	}
}

// typ records t under the path name; def is the $defs entry it belongs to.
func (x *extractor) typ(name, def string, inline bool, t *ir.Type) {
	st := &Type{Name: name, Go: t.Name, Def: def, Inline: inline}
	x.s.Types[name] = st
	x.doc(def, t.Description)
	switch t.Kind {
	case ir.Enum:
		st.Kind, st.Open, st.ValueGo = Enum, t.EnumOpen, map[string]string{}
		for _, v := range t.EnumValues {
			val := fmt.Sprint(v.Int)
			if t.EnumBase == nil || t.EnumBase.Kind == ir.String {
				val = fmt.Sprintf("%q", v.String)
			}
			st.Values = append(st.Values, val)
			st.ValueGo[val] = v.Name
			x.doc(def, v.Description)
		}
		slices.Sort(st.Values)
	case ir.Alias:
		st.Kind, st.Target = Alias, x.shape(name, def, t.Target)
	case ir.Struct:
		st.Kind = Struct
		x.fields(st, t)
	default:
		st.Kind = Union
	}
	if t.Union != nil {
		x.union(st, t.Union)
	}
}

func (x *extractor) fields(st *Type, t *ir.Type) {
	for _, f := range t.Fields {
		x.doc(st.Def, f.Description)
		sf := &Field{Name: f.JSON, Go: f.Name, Shape: x.shape(st.Name+"."+f.JSON, st.Def, f.Ref), Required: f.Required, Nullable: f.Nullable,
			Constraints: constraints(f.Ref)}
		if f.DefaultOnError {
			sf.Lenient = append(sf.Lenient, "default-on-error")
		}
		if f.DefaultOnNull {
			sf.Lenient = append(sf.Lenient, "default-on-null")
		}
		if f.Ref.SkipInvalidItems {
			sf.Lenient = append(sf.Lenient, "skip-invalid-items")
		}
		if f.Default != nil {
			sf.Default = string(f.Default.JSON())
		}
		st.Fields = append(st.Fields, sf)
	}
}

// constraints lists a value's validation keywords, in one order.
func constraints(r *ir.Ref) string {
	var c []string
	str := func(name string, v *string) {
		if v != nil {
			c = append(c, name+" "+*v)
		}
	}
	num := func(name string, v *int) {
		if v != nil {
			c = append(c, fmt.Sprintf("%s %d", name, *v))
		}
	}
	str("minimum", r.Minimum)
	str("maximum", r.Maximum)
	num("minLength", r.MinLength)
	num("maxLength", r.MaxLength)
	if r.Pattern != "" {
		c = append(c, "pattern "+r.Pattern)
	}
	if r.Const != nil {
		c = append(c, "const "+string(r.Const.JSON()))
	}
	str("exclusiveMinimum", r.ExclusiveMinimum)
	str("exclusiveMaximum", r.ExclusiveMaximum)
	str("multipleOf", r.MultipleOf)
	num("minItems", r.MinItems)
	num("maxItems", r.MaxItems)
	if r.UniqueItems {
		c = append(c, "uniqueItems")
	}
	if len(r.Enum) > 0 {
		var vs []string
		for _, v := range r.Enum {
			vs = append(vs, string(v.JSON()))
		}
		c = append(c, "enum "+strings.Join(vs, " "))
	}
	return strings.Join(c, ", ")
}

// shape renders a value as a short type expression; an inline type becomes
// a type of its own named at.
func (x *extractor) shape(at, def string, r *ir.Ref) string {
	if r == nil {
		return "any"
	}
	elem := func(suffix string) string {
		s := x.shape(at+suffix, def, r.Elem)
		if r.ElemNullable {
			s = "*" + s
		}
		return s
	}
	switch r.Kind {
	case ir.String:
		return "string"
	case ir.Bool:
		return "bool"
	case ir.Int:
		if r.Format != "" {
			return r.Format
		}
		return "int64"
	case ir.Float:
		return "float64"
	case ir.Array:
		return "[]" + elem("[]")
	case ir.Map:
		return "map[string]" + elem("{}")
	case ir.Named:
		if r.Type.Def != "" {
			return r.Type.Def
		}
		x.typ(at, def, true, r.Type)
		return at
	}
	return "any"
}

// roles names the IR's variant roles.
var roles = map[ir.Role]string{ir.Tagged: "tagged", ir.Fallback: "fallback", ir.CatchAll: "catch-all", ir.Absent: "absent", ir.Shape: "shape"}

// union records the variants of u into st. A variant's key must survive
// cosmetic revisions (a title added), so it is what the generated code is
// built from: the tag, the payload def, the title, the payload's shape.
func (x *extractor) union(st *Type, u *ir.Union) {
	st.Discriminator, st.UnionGo = u.Discriminator, u.Name
	for i, v := range u.Variants {
		x.doc(st.Def, v.Description)
		sv := &Variant{Role: roles[v.Role], Go: v.Name}
		inline := v.Payload != nil && v.Payload.Kind == ir.Named && v.Payload.Type.Def == ""
		switch {
		case v.Null:
			sv.Key, sv.Role, sv.Payload = "null", "null", "null"
		case v.Role == ir.CatchAll:
			sv.Key, sv.Payload = "(other)", "object"
			st.Open = true
		case v.Role == ir.Tagged:
			sv.Key = v.Tag
		case v.Payload != nil && v.Payload.Kind == ir.Named && !inline:
			sv.Key = v.Payload.Type.Def
		case inline && v.Title != "":
			sv.Key = v.Title
		case inline:
			sv.Key = fmt.Sprintf("#%d", i)
		default:
			// A scalar, array or map variant is known by its shape, titled
			// or not.
			sv.Payload = x.shape(fmt.Sprintf("%s[#%d]", st.Name, i), st.Def, v.Payload)
			sv.Key = sv.Payload
		}
		if sv.Payload == "" {
			sv.Payload = x.shape(st.Name+"["+sv.Key+"]", st.Def, v.Payload)
		}
		st.Variants = append(st.Variants, sv)
	}
}

// methods takes the method bindings from the IR, the one reading of which
// defs are requests, notifications and responses and which side handles them.
func (x *extractor) methods(m *ir.Model) {
	for _, im := range m.Methods {
		mt := &Method{Go: ir.MethodConst(im.Wire), Wire: im.Wire, Kind: ir.KindRequest, Side: im.Side, Params: im.Params.Def}
		if im.Notification {
			mt.Kind = ir.KindNotification
		}
		if im.Result != nil {
			mt.Result = im.Result.Def
		}
		x.add(mt)
	}
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
