package ir

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/load"
)

type builder struct {
	doc    *load.Document
	m      *Model
	schema map[*Type]*load.Schema // the def schema of each named type
	state  map[*Type]int          // 1 while being filled, 2 when done
	// decls are the package-level names taken besides types: acpgen's own
	// declarations, the method constants, and enum constants as they come.
	decls map[string]bool
}

// ensure fills a def type once; shape analysis needs a variant's members before
// the loop over defs reaches it.
func (b *builder) ensure(t *Type) error {
	switch b.state[t] {
	case 2:
		return nil
	case 1:
		return b.errf(b.schema[t], "%s depends on its own shape through a union", t.Name)
	}
	b.state[t] = 1
	if err := b.fill(t, b.schema[t]); err != nil {
		return err
	}
	b.state[t] = 2
	return nil
}

func (b *builder) errf(s *load.Schema, format string, args ...any) error {
	return &load.Error{File: s.File, Pointer: s.Pointer, Msg: fmt.Sprintf(format, args...)}
}

// Build resolves a loaded schema into the IR of one channel.
func Build(doc *load.Document, channel string) (*Model, error) {
	b := &builder{doc: doc, m: &Model{Channel: channel, File: doc.File, byDef: map[string]*Type{}, names: map[string]*Type{}},
		schema: map[*Type]*load.Schema{}, state: map[*Type]int{}, decls: map[string]bool{}}
	for n := range reservedDecls {
		b.decls[n] = true
	}
	for _, d := range doc.Root.Defs {
		if d.Schema.XMethod != "" {
			b.decls["Method"+GoName(d.Schema.XMethod)] = true
		}
	}
	// Declare every def first so references (and recursion) resolve to one *Type.
	for _, d := range doc.Root.Defs {
		t := &Type{Name: GoName(d.Name), Def: d.Name, File: d.Schema.File, Pointer: d.Schema.Pointer}
		if err := b.claim(t, d.Schema); err != nil {
			return nil, err
		}
		b.m.byDef[d.Name] = t
		b.schema[t] = d.Schema
	}
	// Inline types are appended while filling; keep each after its def.
	var ordered []*Type
	for _, d := range doc.Root.Defs {
		t := b.m.byDef[d.Name]
		if err := b.ensure(t); err != nil {
			return nil, err
		}
	}
	for _, d := range doc.Root.Defs {
		t := b.m.byDef[d.Name]
		ordered = append(ordered, t)
		for _, it := range b.m.Types {
			if root(it) == t {
				ordered = append(ordered, it)
			}
		}
	}
	b.m.Types = ordered
	if err := b.aliasCycles(); err != nil {
		return nil, err
	}
	if err := b.valueUnionKinds(); err != nil {
		return nil, err
	}
	if err := b.memberAliases(); err != nil {
		return nil, err
	}
	if err := b.methods(); err != nil {
		return nil, err
	}
	b.m.lifecycle()
	return b.m, nil
}

// memberAliases checks the other names of members: each names one member of
// its struct, and only structs decoded as objects of their own have them
// (a union reads its variants' members without the aliases).
func (b *builder) memberAliases() error {
	for _, t := range b.m.Types {
		names := map[string]string{}
		for _, f := range t.Fields {
			names[f.JSON] = f.JSON
		}
		for _, f := range t.Fields {
			for _, a := range f.Aliases {
				if other, ok := names[a]; ok {
					if other == a {
						return b.errf(b.schemaOf(t), "alias %q of member %q is a member of %s", a, f.JSON, t.Name)
					}
					return b.errf(b.schemaOf(t), "alias %q of member %q is also an alias of %q", a, f.JSON, other)
				}
				names[a] = f.JSON
			}
		}
		if t.Union == nil {
			continue
		}
		for _, v := range t.Union.Variants {
			if p := v.Payload; v.Object && p != nil && p.Type != nil && slices.ContainsFunc(p.Type.Fields, func(f *Field) bool { return len(f.Aliases) > 0 }) {
				return b.errf(b.schemaOf(p.Type), "%s has member aliases but is a variant of %s, whose decoding does not read them", p.Type.Name, t.Name)
			}
		}
	}
	return nil
}

// valueUnionKinds requires every variant of a union told apart by JSON type
// to have one JSON type: a variant that is itself such a union, or any value,
// (or the union itself, through a $ref cycle) could not be chosen.
func (b *builder) valueUnionKinds() error {
	for _, t := range b.m.Types {
		if t.Kind != ValueUnion {
			continue
		}
		anyValue := 0
		for _, v := range t.Union.Variants {
			if !v.Null && isAnyValue(v.Payload) {
				// Any value: it takes what no other variant does.
				if anyValue++; anyValue > 1 {
					return b.errf(b.schemaOf(t), "%s has two variants that accept any value; they cannot be told apart", t.Name)
				}
				continue
			}
			if !v.Null && JSONKind(v.Payload) == "" {
				return b.errf(b.schemaOf(t), "variant %s of %s has no single JSON type (a union or any value, or a $ref back to the union); it cannot be told apart", v.Name, t.Name)
			}
		}
	}
	return nil
}

func (b *builder) schemaOf(t *Type) *load.Schema {
	if s := b.schema[t]; s != nil {
		return s
	}
	return &load.Schema{File: t.File, Pointer: t.Pointer}
}

// JSONKind is the JSON type every value of shape r has ("string", "boolean",
// "number", "array", "object"), or "" when values of r can be of several.
func JSONKind(r *Ref) string {
	switch r.Kind {
	case String:
		return "string"
	case Bool:
		return "boolean"
	case Int, Float:
		return "number"
	case Array:
		return "array"
	case Map:
		return "object"
	case Named:
		t := r.Type.Underlying()
		switch t.Kind {
		case Struct, ObjectUnion:
			return "object"
		case Enum:
			return JSONKind(t.EnumBase)
		case Alias:
			if t.Target.Kind != Named {
				return JSONKind(t.Target)
			}
		}
	}
	return ""
}

// aliasCycles rejects $ref chains that come back to themselves with no object
// in between (A: {$ref: B}, B: {$ref: A}): such a type has no values. Cycles
// through an object's members are recursive types and fine.
func (b *builder) aliasCycles() error {
	for _, t := range b.m.Types {
		if t.Underlying().namesType() {
			return b.errf(b.schema[t], "$ref cycle with no object in between: %s refers back to itself", t.Def)
		}
	}
	return nil
}

func root(t *Type) *Type {
	for t.Parent != nil {
		t = t.Parent
	}
	return t
}

// claim reserves a type's Go name by the naming rule: a def or inline type
// named like one of acpgen's declarations, and an inline type named like a
// type already claimed (defs are claimed first), is qualified with Type,
// then numbered. Two defs with one Go name are an error.
func (b *builder) claim(t *Type, s *load.Schema) error {
	if prev, ok := b.m.names[t.Name]; ok && t.Def != "" && prev.Def != "" {
		return b.errf(s, "Go name %s is already taken by %s#%s", t.Name, prev.File, prev.Pointer)
	}
	taken := func(n string) bool { return b.m.names[n] != nil || b.decls[n] }
	if taken(t.Name) {
		base := t.Name + "Type"
		t.Name = base
		for i := 2; taken(t.Name); i++ {
			t.Name = fmt.Sprintf("%s%d", base, i)
		}
	}
	b.m.names[t.Name] = t
	return nil
}

// constName names an enum constant by the naming rule: one named like a
// type or another declaration is qualified with Value, then numbered.
func (b *builder) constName(base string) string {
	taken := func(n string) bool { return b.m.names[n] != nil || b.decls[n] }
	name := base
	if taken(name) {
		name = base + "Value"
		for i := 2; taken(name); i++ {
			name = fmt.Sprintf("%sValue%d", base, i)
		}
	}
	b.decls[name] = true
	return name
}

// inline declares a type found inside another and appends it after it.
func (b *builder) inline(parent *Type, name string, s *load.Schema) (*Type, error) {
	t := &Type{Name: name, Parent: parent, File: s.File, Pointer: s.Pointer, Title: s.Title, Description: s.Description, Overlay: s.XOverlay}
	if err := b.claim(t, s); err != nil {
		return nil, err
	}
	b.m.Types = append(b.m.Types, t)
	return t, nil
}

func isNullOnly(s *load.Schema) bool {
	return len(s.Types) == 1 && s.Types[0] == "null" && len(s.Properties) == 0 && s.Ref == "" && s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil
}

// refOnly returns the $ref of a schema that is only a reference, directly or
// through a one-element allOf wrapper.
func refOnly(s *load.Schema) string {
	if s.Ref != "" && len(s.Types) == 0 && len(s.Properties) == 0 && s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil {
		return s.Ref
	}
	if len(s.AllOf) == 1 && s.Ref == "" && len(s.Types) == 0 && len(s.Properties) == 0 && s.AnyOf == nil && s.OneOf == nil {
		return refOnly(s.AllOf[0])
	}
	return ""
}

func (b *builder) named(s *load.Schema, ref string) (*Type, error) {
	x := *s
	x.Ref = ref
	_, name, err := b.doc.Resolve(&x)
	if err != nil {
		return nil, err
	}
	return b.m.byDef[name], nil
}

func nonNullTypes(s *load.Schema) (types []string, nullable bool) {
	for _, t := range s.Types {
		if t == "null" {
			nullable = true
		} else {
			types = append(types, t)
		}
	}
	return
}

func (b *builder) fill(t *Type, s *load.Schema) error {
	t.Title, t.Description, t.Overlay = s.Title, s.Description, s.XOverlay
	branches, exclusive := s.AnyOf, false
	if s.OneOf != nil {
		if s.AnyOf != nil {
			return b.errf(s, "both anyOf and oneOf on one schema are not supported")
		}
		branches, exclusive = s.OneOf, true
	}
	types, _ := nonNullTypes(s)
	isObject := len(s.Properties) > 0 || (len(types) == 1 && types[0] == "object" && !mapOnly(s))
	if ref := refOnly(s); ref != "" {
		nt, err := b.named(s, ref)
		if err != nil {
			return err
		}
		t.Kind, t.Target = Alias, &Ref{Kind: Named, Type: nt}
		return nil
	}
	if s.AllOf != nil {
		return b.errf(s, "allOf is understood only as a one-element $ref wrapper")
	}
	if r, nullable, ok := b.routedRef(s); ok && !nullable && !isObject {
		// A routing union written as a bare union of method defs (npm
		// 0.4.5 to 0.8.0): the method name tells the variants apart.
		t.Kind, t.Target = Alias, r
		return nil
	}
	switch {
	case isObject:
		return b.fillStruct(t, s, branches, exclusive)
	case branches != nil:
		if _, ok, err := b.enum(t, s, branches); err != nil || ok {
			return err
		}
		return b.fillUnion(t, s, branches, exclusive)
	}
	if s.Enum != nil && len(types) == 1 && types[0] == "string" {
		return b.stringEnum(t, s)
	}
	r, nullable, err := b.ref(t, s, "")
	if err != nil {
		return err
	}
	if nullable && r.Kind != Raw {
		return b.errf(s, "a nullable named type is not supported; make its uses nullable instead")
	}
	t.Kind, t.Target = Alias, r
	return nil
}

// fillStruct makes t an object: a struct of its members and, when it has
// branches, the union of them it also holds.
func (b *builder) fillStruct(t *Type, s *load.Schema, branches []*load.Schema, exclusive bool) error {
	t.Kind = Struct
	if err := b.structFields(t, s, ""); err != nil {
		return err
	}
	if branches == nil {
		return nil
	}
	u, err := b.union(t, s, branches, exclusive, true)
	if err != nil {
		return err
	}
	t.Union = u
	// The union owns its discriminator: a property of the same name
	// is described by the variants, not kept twice.
	if u.Discriminator != "" {
		kept := t.Fields[:0]
		for _, f := range t.Fields {
			if f.JSON != u.Discriminator {
				kept = append(kept, f)
			}
		}
		t.Fields = kept
	}
	return b.checkMemberNames(t, s)
}

// fillUnion makes t a union of its branches: an object union when every
// variant is an object, else a value union, whose variants are told apart
// by shape only.
func (b *builder) fillUnion(t *Type, s *load.Schema, branches []*load.Schema, exclusive bool) error {
	u, err := b.union(t, s, branches, exclusive, false)
	if err != nil {
		return err
	}
	t.Union = u
	t.Kind = ObjectUnion
	for _, v := range u.Variants {
		if !v.Object {
			t.Kind = ValueUnion
		}
	}
	if t.Kind == ValueUnion {
		for _, v := range u.Variants {
			if v.Role != Shape {
				return b.errf(s, "variant %s is tagged but the union has non-object variants", v.Name)
			}
		}
	}
	return nil
}

// mapOnly reports an object schema with no properties: a map or a free-form object.
func mapOnly(s *load.Schema) bool {
	if len(s.Properties) > 0 {
		return false
	}
	return len(s.PatternProperties) > 0 || s.AdditionalProperties != nil && !(s.AdditionalProperties.IsBool && s.AdditionalProperties.BoolValue)
}

// enum recognises unions of constants: closed (only consts) or open (consts
// plus one free branch of the same type).
func (b *builder) enum(t *Type, s *load.Schema, branches []*load.Schema) (*Type, bool, error) {
	var base string
	var free *load.Schema
	var values []*EnumValue
	for _, br := range branches {
		types, nullable := nonNullTypes(br)
		if nullable || len(types) != 1 || (types[0] != "string" && types[0] != "integer") || len(br.Properties) > 0 || br.Ref != "" || br.AnyOf != nil || br.OneOf != nil || br.AllOf != nil {
			return nil, false, nil
		}
		if base == "" {
			base = types[0]
		} else if base != types[0] {
			return nil, false, nil
		}
		if br.Const == nil {
			if free != nil {
				return nil, false, nil
			}
			free = br
			continue
		}
		v := &EnumValue{Title: br.Title, Description: br.Description}
		switch {
		case base == "string" && br.Const.Kind == load.String:
			v.String = br.Const.String
			v.Name = t.Name + GoName(v.String)
		case base == "integer" && br.Const.Kind == load.Number:
			i, err := br.Const.Number.Int64()
			if err != nil {
				return nil, false, b.errf(br, "integer const %s does not fit int64", br.Const.Number)
			}
			v.Int = i
			if v.Title == "" {
				v.Title = boldLabel(br.Description)
			}
			if v.Title == "" {
				return nil, false, b.errf(br, "integer enum values need a title to name them")
			}
			v.Name = t.Name + GoName(v.Title)
		default:
			return nil, false, b.errf(br, "const does not match type %s", base)
		}
		values = append(values, v)
	}
	if len(values) == 0 {
		return nil, false, nil
	}
	t.Kind = Enum
	t.EnumValues = values
	t.EnumOpen = free != nil
	fmtName := ""
	for _, br := range branches {
		if br.Format != "" {
			fmtName = br.Format
		}
	}
	if base == "string" {
		t.EnumBase = &Ref{Kind: String}
	} else {
		if fmtName == "" {
			fmtName = "int64"
		}
		t.EnumBase = &Ref{Kind: Int, Format: fmtName}
	}
	b.nameConsts(values)
	return t, true, nil
}

// stringEnum makes a closed enum of a def written with "enum" (npm 0.10.0's
// Role); newer schemas write the same as oneOf of consts.
func (b *builder) stringEnum(t *Type, s *load.Schema) error {
	t.Kind, t.EnumBase = Enum, &Ref{Kind: String}
	for _, n := range s.Enum {
		if n.Kind != load.String {
			return b.errf(s, "enum of a string def must list strings")
		}
		t.EnumValues = append(t.EnumValues, &EnumValue{String: n.String, Name: t.Name + GoName(n.String)})
	}
	b.nameConsts(t.EnumValues)
	return nil
}

// nameConsts applies the naming rule to an enum's constants: among
// themselves, then against the package's other names.
func (b *builder) nameConsts(values []*EnumValue) {
	cs := make([]candidate, len(values))
	for i, v := range values {
		cs[i] = candidate{v.Name, v.Name + "Value"}
	}
	for i, n := range resolveNames(cs, func(string) bool { return false }) {
		values[i].Name = b.constName(n)
	}
}

// boldLabel returns the "**Label**:" a description starts with. Older schemas
// (npm 0.10.0) name their ErrorCode values only that way; newer ones repeat the
// label as the title.
func boldLabel(desc string) string {
	rest, ok := strings.CutPrefix(desc, "**")
	if !ok {
		return ""
	}
	label, _, ok := strings.Cut(rest, "**:")
	if !ok || strings.ContainsAny(label, "*\n") {
		return ""
	}
	return label
}

// structFields collects the declared members of an object schema; skip names a
// member owned elsewhere (a variant's tag).
func (b *builder) structFields(t *Type, s *load.Schema, skip string) error {
	for _, p := range s.Properties {
		if p.Name == skip {
			continue
		}
		f := &Field{
			JSON: p.Name, Name: GoName(p.Name), Required: s.IsRequired(p.Name), Pointer: p.Schema.Pointer,
			Description: p.Schema.Description, Default: p.Schema.Default, Overlay: p.Schema.XOverlay,
			DefaultOnError: p.Schema.XDefaultOnError, DefaultOnNull: p.Schema.XDefaultOnNull,
			Ephemeral: p.Schema.XEphemeral, Aliases: p.Schema.XAliases,
		}
		r, nullable, err := b.ref(t, p.Schema, f.Name)
		if err != nil {
			return err
		}
		for _, ns := range p.Schema.XMeta {
			if r.Kind != Map {
				return b.errf(p.Schema, "x-acpgen-meta applies to an object map member")
			}
			nr, _, err := b.ref(t, ns.Schema, f.Name+GoName(ns.Name))
			if err != nil {
				return err
			}
			f.Meta = append(f.Meta, MetaNamespace{Key: ns.Name, Ref: nr})
		}
		f.Ref, f.Nullable = r, nullable
		t.Fields = append(t.Fields, f)
	}
	for _, r := range s.Required {
		if s.Property(r) == nil && r != skip {
			return b.errf(s, "required member %q is not declared in properties", r)
		}
	}
	if err := b.structRules(t, s); err != nil {
		return err
	}
	return b.checkMemberNames(t, s)
}

// checkMemberNames names a struct's fields by the naming rule; it runs again
// once an embedded union's field joins them.
func (b *builder) checkMemberNames(t *Type, _ *load.Schema) error {
	nameFields(t)
	return nil
}

// fieldName is the Go field that holds an embedded union in its struct.
func (u *Union) fieldName() string {
	if u.Discriminator != "" {
		return GoName(u.Discriminator)
	}
	return "Variant"
}

// FieldName is the Go field that holds an embedded union in its struct.
func (u *Union) FieldName() string { return u.fieldName() }

// ref converts a member or item schema into a value shape; the bool is
// whether null is also accepted.
func (b *builder) ref(owner *Type, s *load.Schema, member string) (*Ref, bool, error) {
	if s.IsBool {
		if !s.BoolValue {
			return nil, false, b.errf(s, "the false schema accepts nothing and has no Go type")
		}
		return &Ref{Kind: Raw}, true, nil
	}
	if ref := refOnly(s); ref != "" {
		nt, err := b.named(s, ref)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: Named, Type: nt}, false, nil
	}
	// anyOf: [X, {type: null}] is the second way the schema writes nullability.
	if len(s.AnyOf) == 2 && s.OneOf == nil && len(s.Types) == 0 && len(s.Properties) == 0 {
		for i, br := range s.AnyOf {
			if isNullOnly(br) {
				r, _, err := b.ref(owner, s.AnyOf[1-i], member)
				return r, true, err
			}
		}
	}
	if r, nullable, ok := b.routedRef(s); ok {
		return r, nullable, nil
	}
	if s.AnyOf != nil || s.OneOf != nil {
		r, err := b.inlineRef(owner, s, member, "union")
		return r, false, err
	}
	if s.AllOf != nil {
		return nil, false, b.errf(s, "allOf is understood only as a one-element $ref wrapper")
	}
	return b.typedRef(owner, s, member)
}

// inlineRef names an inline object or union (what) after its owner and
// member, and fills it.
func (b *builder) inlineRef(owner *Type, s *load.Schema, member, what string) (*Ref, error) {
	if owner == nil {
		return nil, b.errf(s, "an inline %s needs an owning type to be named after", what)
	}
	it, err := b.inline(owner, owner.Name+member, s)
	if err != nil {
		return nil, err
	}
	if err := b.fill(it, s); err != nil {
		return nil, err
	}
	return &Ref{Kind: Named, Type: it}, nil
}

// typedRef converts a schema that says its value's type (or says nothing,
// which is a raw value) with the constraints that type carries.
func (b *builder) typedRef(owner *Type, s *load.Schema, member string) (*Ref, bool, error) {
	types, nullable := nonNullTypes(s)
	if len(types) > 1 {
		return nil, false, b.errf(s, "a value of several types %v needs a union; write it with anyOf", types)
	}
	r := &Ref{Const: s.Const, MinLength: s.MinLength, MaxLength: s.MaxLength}
	if s.Enum != nil {
		t, n, err := b.inlineEnum(s, types)
		if err != nil {
			return nil, false, err
		}
		types, nullable = []string{t}, nullable || n
		r.Enum = enumValues(s.Enum)
	}
	numberConstraints(r, s)
	if s.HasPattern {
		r.Pattern, r.PatternName = s.Pattern, s.XPatternName
	}
	kind := ""
	if len(types) == 1 {
		kind = types[0]
	}
	if kind == "" && len(s.Properties) > 0 {
		kind = "object"
	}
	var err error
	switch kind {
	case "":
		if s.Items != nil || s.Format != "" || s.Const != nil {
			return nil, false, b.errf(s, "schema has no type")
		}
		r.Kind, nullable = Raw, true
	case "string", "boolean", "integer", "number":
		err = b.scalar(r, s, kind)
	case "array":
		err = b.array(r, owner, s, member)
	case "object":
		if len(s.Properties) > 0 || s.AnyOf != nil {
			r, err = b.inlineRef(owner, s, member, "object")
			break
		}
		r.Kind = Map
		r.Elem, r.ElemNullable, r.Rules, err = b.mapShape(owner, s, member)
	case "null":
		err = b.errf(s, "a member that can only be null has no Go type")
	}
	if err != nil {
		return nil, false, err
	}
	return r, nullable, nil
}

// scalar sets the kind and format of a string, boolean, integer or number,
// refusing a format the Go type cannot honour.
func (b *builder) scalar(r *Ref, s *load.Schema, kind string) error {
	switch kind {
	case "string":
		r.Kind = String
		switch s.Format {
		case "":
		case "uri":
			r.URI = true
		case "date-time", "date", "uuid", "regex":
			r.Format = s.Format
		default:
			return b.errf(s, "format %q does not apply to strings", s.Format)
		}
	case "boolean":
		r.Kind = Bool
	case "integer":
		r.Kind, r.Format = Int, s.Format
		switch s.Format {
		case "":
			r.Format = "int64"
		case "int32", "uint16", "uint32", "int64", "uint64":
		default:
			return b.errf(s, "integer format %q is not supported", s.Format)
		}
	case "number":
		r.Kind = Float
		if s.Format != "" && s.Format != "double" {
			return b.errf(s, "number format %q is not supported", s.Format)
		}
	}
	return nil
}

// array sets an array's element shape; an array without items holds raw
// values.
func (b *builder) array(r *Ref, owner *Type, s *load.Schema, member string) error {
	r.Kind = Array
	if s.Items == nil {
		r.Elem = &Ref{Kind: Raw}
		return nil
	}
	elem, en, err := b.ref(owner, s.Items, member+"Item")
	if err != nil {
		return err
	}
	r.Elem, r.ElemNullable, r.SkipInvalidItems = elem, en, s.XSkipInvalidItems
	return nil
}

// routed recognises the routing unions' params/result: anyOf (maybe nested,
// maybe with null) whose leaves all reference method-bound or free-form defs.
// Which one applies is decided by the method name, so the value stays raw here
// and the method table types it.
func (b *builder) routedRef(s *load.Schema) (*Ref, bool, bool) {
	routes, open, nullable, ok := b.routed(s)
	if !ok {
		return nil, false, false
	}
	return &Ref{Kind: Routed, Routes: routes, OpenRoute: open}, nullable, true
}

// routed walks a routing union; open reports an inline leaf that accepts
// any value (npm 0.4.5's extension methods, before ExtRequest was a def).
func (b *builder) routed(s *load.Schema) (routes []string, open, nullable, ok bool) {
	var walk func(s *load.Schema) bool
	walk = func(s *load.Schema) bool {
		if isNullOnly(s) {
			nullable = true
			return true
		}
		if s.AnyOf != nil && len(s.Properties) == 0 && len(s.Types) == 0 {
			for _, br := range s.AnyOf {
				if !walk(br) {
					return false
				}
			}
			return true
		}
		ref := refOnly(s)
		if ref == "" && isFree(s) {
			open = true
			return true
		}
		if ref == "" {
			return false
		}
		d, name, err := b.doc.Resolve(&load.Schema{Ref: ref, File: s.File, Pointer: s.Pointer})
		if err != nil {
			return false
		}
		if d.XMethod == "" && !isFree(d) {
			return false
		}
		routes = append(routes, name)
		return true
	}
	if s.AnyOf == nil || !walk(s) || len(routes)+boolInt(open) < 2 {
		return nil, false, false, false
	}
	return routes, open, nullable, true
}

// isFree reports a schema that accepts any value.
func isFree(s *load.Schema) bool {
	return !s.IsBool && len(s.Types) == 0 && len(s.Properties) == 0 && s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil && s.Ref == "" && s.Const == nil && s.Enum == nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tagOf returns the const string a branch gives the member name, if any.
func tagOf(br *load.Schema, name string) (string, bool) {
	p := br.Property(name)
	if p == nil || p.Const == nil || p.Const.Kind != load.String || !br.IsRequired(name) {
		return "", false
	}
	return p.Const.String, true
}

// discriminator finds the tag member: declared, or the one const-string
// required member that tagged branches share.
func discriminator(s *load.Schema, branches []*load.Schema) string {
	if s.Discriminator != "" {
		return s.Discriminator
	}
	for _, br := range branches {
		for _, p := range br.Properties {
			if _, ok := tagOf(br, p.Name); ok {
				return p.Name
			}
		}
	}
	return ""
}

func (b *builder) union(t *Type, s *load.Schema, branches []*load.Schema, exclusive, embedded bool) (*Union, error) {
	u := &Union{Exclusive: exclusive, Discriminator: discriminator(s, branches)}
	u.Name = t.Name
	if embedded {
		u.Name = t.Name + u.fieldName()
	}
	if embedded {
		// The union is a type of its own beside the struct.
		ut := &Type{Name: u.Name, Parent: t, File: s.File, Pointer: s.Pointer}
		if err := b.claim(ut, s); err != nil {
			return nil, err
		}
		u.Name = ut.Name
	}
	for _, br := range branches {
		v := &Variant{Title: br.Title, Pointer: br.Pointer, titled: true}
		if err := b.variant(t, u, v, br, branches); err != nil {
			return nil, err
		}
		u.Variants = append(u.Variants, v)
	}
	if !embedded {
		u.Variants = impliedNull(u.Variants)
	}
	nameVariants(u)
	var fallback, catchAll, absent int
	for _, v := range u.Variants {
		switch v.Role {
		case Fallback:
			fallback++
		case CatchAll:
			catchAll++
		case Absent:
			absent++
		}
	}
	if fallback > 1 || catchAll > 1 || absent > 1 {
		return nil, b.errf(s, "a union may have at most one untagged fallback, one catch-all and one absent-tag variant")
	}
	if u.Discriminator == "" {
		if err := b.shapeKeys(s, u); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// variant fills v from the union branch br: by its discriminator tag when
// the union has one, else by the shape of the value.
func (b *builder) variant(t *Type, u *Union, v *Variant, br *load.Schema, siblings []*load.Schema) error {
	if u.Discriminator != "" {
		return b.taggedVariant(t, u, v, br)
	}
	v.Role = Shape
	if isNullOnly(br) {
		v.Null, v.Name = true, variantName(br, "Null")
		return nil
	}
	types, nullable := nonNullTypes(br)
	if len(br.Properties) > 0 || (len(types) == 1 && types[0] == "object") || (refOnly(br) != "" && isStructDef(b, br)) {
		v.nullable = nullable
		return b.objectVariant(t, u, v, br, siblings)
	}
	return b.valueVariant(t, v, br, types)
}

// taggedVariant fills a variant of a discriminated union: tagged by a const,
// absent (the tag is null), the catch-all (any other tag) or the fallback
// (no tag member at all).
func (b *builder) taggedVariant(t *Type, u *Union, v *Variant, br *load.Schema) error {
	D := u.Discriminator
	if tag, ok := tagOf(br, D); ok {
		v.Role, v.Tag, v.Name, v.Object = Tagged, tag, GoName(tag), true
		return b.variantPayload(t, u, v, br, D)
	}
	if p := br.Property(D); p != nil {
		types, _ := nonNullTypes(p)
		switch {
		case isNullOnly(p):
			v.Role, v.Name, v.Object = Absent, variantName(br, "None"), true
			return b.variantPayload(t, u, v, br, D)
		case br.Not != nil && len(types) == 1 && types[0] == "string" && p.Const == nil:
			// The catch-all keeps its tag as an ordinary member.
			v.Role, v.Name, v.Object = CatchAll, variantName(br, "Other"), true
			return b.variantPayload(t, u, v, br, "")
		}
		return b.errf(br, "variant gives the discriminator %q neither a const, null, nor an open string with not", D)
	}
	if br.Not != nil {
		return b.errf(br, "a variant with not must declare the discriminator %q", D)
	}
	v.Role, v.Object = Fallback, true
	v.Name = variantName(br, "")
	if err := b.variantPayload(t, u, v, br, ""); err != nil {
		return err
	}
	if v.Name == "" {
		v.Name, v.titled = v.Payload.Type.Name, false
	}
	return nil
}

// objectVariant fills a shape variant whose value is an object.
func (b *builder) objectVariant(t *Type, u *Union, v *Variant, br *load.Schema, siblings []*load.Schema) error {
	v.Name = variantName(br, "")
	if v.Name == "" && refOnly(br) == "" {
		// Older schemas (npm 0.10.0) leave the response variants untitled:
		// name them after the member only they require (result, error).
		v.Name = soleRequired(br, siblings)
		if v.Name == "" {
			return b.errf(br, "an inline object variant needs a title to be named")
		}
	}
	if err := b.variantPayload(t, u, v, br, ""); err != nil {
		return err
	}
	v.Object = true
	if v.Name == "" {
		v.Name, v.titled = v.Payload.Type.Name, false
	}
	return nil
}

// valueVariant fills a shape variant whose value is not an object: a scalar,
// an array, a named non-struct def or any value.
func (b *builder) valueVariant(t *Type, v *Variant, br *load.Schema, types []string) error {
	r, nullable, err := b.ref(t, br, variantName(br, "Value"))
	if err != nil {
		return err
	}
	// A variant that also admits null (type [T, "null"]) is its non-null
	// part plus the union's null variant; one that admits any value (no
	// type at all) keeps null as one of its values.
	v.nullable = nullable && r.Kind != Raw
	v.Payload = r
	v.Name = variantName(br, "")
	if v.Name == "" {
		v.titled = false
		if r.Kind == Named {
			v.Name = r.Type.Name
		} else if len(types) == 1 {
			// Untitled scalar branches (npm 0.10.0's RequestId) are named by
			// their JSON type; a clash is caught as two variants of one name.
			v.Name = GoName(types[0])
		} else {
			return b.errf(br, "a shape variant needs a title to be named")
		}
	}
	return nil
}

// variantPayload sets the struct an object variant carries: a referenced
// struct def, or an inline object named after the union and the variant
// whose member skip (the discriminator) the union itself handles.
func (b *builder) variantPayload(t *Type, u *Union, v *Variant, br *load.Schema, skip string) error {
	// A variant is either a reference to a struct def, or an inline object.
	if ref := refOnly(br); ref != "" && len(br.Properties) == 0 {
		nt, err := b.named(br, ref)
		if err != nil {
			return err
		}
		v.Payload = &Ref{Kind: Named, Type: nt}
		return nil
	}
	extra := 0
	for _, p := range br.Properties {
		if p.Name != skip {
			extra++
		}
	}
	if len(br.AllOf) == 1 && extra == 0 && br.AnyOf == nil && br.OneOf == nil {
		nt, err := b.named(br, refOnly(br.AllOf[0]))
		if err != nil {
			return err
		}
		if nt == nil {
			return b.errf(br, "allOf of a variant must reference a def")
		}
		v.Payload = &Ref{Kind: Named, Type: nt}
		return nil
	}
	if br.AllOf != nil {
		return b.errf(br, "a variant with both its own members and allOf is not supported")
	}
	it, err := b.inlineStruct(t, u.Name+v.Name, br, skip)
	if err != nil {
		return err
	}
	v.Payload = &Ref{Kind: Named, Type: it}
	return nil
}

// inlineStruct names and fills the inline object br of a variant, with its
// own embedded union when it has one.
func (b *builder) inlineStruct(t *Type, name string, br *load.Schema, skip string) (*Type, error) {
	it, err := b.inline(t, name, br)
	if err != nil {
		return nil, err
	}
	it.Kind = Struct
	if err := b.structFields(it, br, skip); err != nil {
		return nil, err
	}
	if br.AnyOf == nil && br.OneOf == nil {
		return it, nil
	}
	brs, ex := br.AnyOf, false
	if br.OneOf != nil {
		brs, ex = br.OneOf, true
	}
	iu, err := b.union(it, br, brs, ex, true)
	if err != nil {
		return nil, err
	}
	it.Union = iu
	if err := b.checkMemberNames(it, br); err != nil {
		return nil, err
	}
	return it, nil
}

// isAnyValue reports a shape that accepts any JSON value, directly or
// through named aliases.
func isAnyValue(r *Ref) bool {
	if r.Kind == Named {
		if t := r.Type.Underlying(); t.Kind == Alias {
			r = t.Target
		}
	}
	return r.Kind == Raw
}

// impliedNull adds the null variant of a union with a variant that admits
// null besides its own shape, unless the union has one already.
func impliedNull(vs []*Variant) []*Variant {
	var from *Variant
	for _, v := range vs {
		if v.Null {
			return vs
		}
		if v.nullable && from == nil {
			from = v
		}
	}
	if from == nil {
		return vs
	}
	return append(vs, &Variant{Name: "Null", Role: Shape, Null: true, Pointer: from.Pointer})
}

// isStructDef reports whether a reference-only branch points at an object def.
func isStructDef(b *builder, br *load.Schema) bool {
	ref := refOnly(br)
	d, _, err := b.doc.Resolve(&load.Schema{Ref: ref, File: br.File, Pointer: br.Pointer})
	if err != nil {
		return false
	}
	types, _ := nonNullTypes(d)
	return len(d.Properties) > 0 || (len(types) == 1 && types[0] == "object")
}

// soleRequired names an untitled object branch after the one required member
// no sibling declares, or returns "".
func soleRequired(br *load.Schema, siblings []*load.Schema) string {
	found := ""
	for _, r := range br.Required {
		unique := true
		for _, o := range siblings {
			if o != br && o.Property(r) != nil {
				unique = false
			}
		}
		if unique {
			if found != "" {
				return ""
			}
			found = GoName(r)
		}
	}
	return found
}

func variantName(br *load.Schema, def string) string {
	if br.Title != "" {
		return GoName(br.Title)
	}
	return def
}

// shapeKeys finds, for object variants of a shape union, the required members
// that no sibling declares, so the variant can be chosen by looking at keys.
func (b *builder) shapeKeys(s *load.Schema, u *Union) error {
	objs := 0
	for _, v := range u.Variants {
		if v.Object {
			objs++
			if b.schema[v.Payload.Type] != nil {
				if err := b.ensure(v.Payload.Type); err != nil {
					return err
				}
			}
		}
	}
	if objs < 2 {
		return nil
	}
	for _, v := range u.Variants {
		if !v.Object {
			continue
		}
		for _, f := range v.Payload.Type.Fields {
			if !f.Required {
				continue
			}
			unique := true
			for _, o := range u.Variants {
				if o == v || !o.Object {
					continue
				}
				for _, of := range o.Payload.Type.Fields {
					if of.JSON == f.JSON {
						unique = false
					}
				}
			}
			if unique {
				v.Keys = append(v.Keys, f.JSON)
			}
		}
		if len(v.Keys) == 0 {
			u.bySupersets = true
		}
	}
	if u.bySupersets {
		return b.requiredSets(s, u)
	}
	return nil
}

// requiredSets tells object variants apart by all their required members
// when some variant has none of its own (npm 0.5.1's JSON-RPC message:
// a request requires id and method, a response id, a notification
// method). The variant whose required members are all present wins, the
// one requiring more first, so no two variants may require the same set.
func (b *builder) requiredSets(s *load.Schema, u *Union) error {
	seen := map[string]*Variant{}
	for _, v := range u.Variants {
		if !v.Object {
			continue
		}
		v.Keys = nil
		for _, f := range v.Payload.Type.Fields {
			if f.Required {
				v.Keys = append(v.Keys, f.JSON)
			}
		}
		key := strings.Join(v.Keys, "\x00")
		if prev := seen[key]; prev != nil || len(v.Keys) == 0 {
			return b.errf(s, "variant %s of %s has no required member that tells it apart from its siblings", v.Name, u.Name)
		}
		seen[key] = v
		u.SelectOrder = append(u.SelectOrder, v)
	}
	sort.SliceStable(u.SelectOrder, func(i, j int) bool { return len(u.SelectOrder[i].Keys) > len(u.SelectOrder[j].Keys) })
	return nil
}
