package ir

import "github.com/acpgen/acpgen/generator/load"

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
