package ir

import (
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/load"
)

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

// fieldName is the Go field that holds an embedded union in its struct.
func (u *Union) fieldName() string {
	if u.Discriminator != "" {
		return GoName(u.Discriminator)
	}
	return "Variant"
}

// FieldName is the Go field that holds an embedded union in its struct.
func (u *Union) FieldName() string { return u.fieldName() }

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
		v := &Variant{Title: br.Title, Description: br.Description, Pointer: br.Pointer, titled: true}
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
