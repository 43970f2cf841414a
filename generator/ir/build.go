package ir

import (
	"fmt"
	"slices"

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
	wires := map[string]string{} // method constant -> wire name
	for _, d := range doc.Root.Defs {
		if w := d.Schema.XMethod; w != "" {
			c := MethodConst(w)
			if prev, ok := wires[c]; ok && prev != w {
				return nil, b.errf(d.Schema, "methods %q and %q both have the Go constant %s", prev, w, c)
			}
			wires[c] = w
			b.decls[c] = true
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
	b.m.markHot()
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

// mapOnly reports an object schema with no properties: a map or a free-form object.
func mapOnly(s *load.Schema) bool {
	if len(s.Properties) > 0 {
		return false
	}
	return len(s.PatternProperties) > 0 || s.AdditionalProperties != nil && !(s.AdditionalProperties.IsBool && s.AdditionalProperties.BoolValue)
}
