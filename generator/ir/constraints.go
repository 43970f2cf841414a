package ir

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/load"
)

// ObjectRules are the constraints on an object as a whole, beyond its
// declared members: they hold for a Struct (Type.Rules) and for a map-only
// object (Ref.Rules).
type ObjectRules struct {
	// Names is the shape every member name has (propertyNames); nil: any name.
	Names *Ref
	// Patterns are the patternProperties, in schema order.
	Patterns []*PatternRule
	// Additional is the additionalProperties schema of members that match no
	// declared name and no pattern, when their values are kept raw (a
	// struct's unknown members, a map whose values patterns type); nil: any value.
	Additional *Ref
	// Closed is additionalProperties false: members that match no declared
	// name and no pattern are not allowed.
	Closed bool
	// Dependent is dependentRequired: a member that requires others.
	Dependent []load.Dependency
}

// PatternRule is one patternProperties entry: members whose names match
// Pattern have values of shape Ref. Ref is nil when the map's own values
// already have that shape (a closed map with this one pattern).
type PatternRule struct {
	Pattern string
	Ref     *Ref
}

// empty reports rules that constrain nothing.
func (o *ObjectRules) empty() bool {
	return o.Names == nil && len(o.Patterns) == 0 && o.Additional == nil && !o.Closed && len(o.Dependent) == 0
}

// numberConstraints copies the constraints of a scalar or array schema.
func numberConstraints(r *Ref, s *load.Schema) {
	str := func(n interface{ String() string }) *string {
		v := n.String()
		return &v
	}
	if s.Minimum != nil {
		r.Minimum = str(s.Minimum)
	}
	if s.Maximum != nil {
		r.Maximum = str(s.Maximum)
	}
	if s.ExclusiveMinimum != nil {
		r.ExclusiveMinimum = str(s.ExclusiveMinimum)
	}
	if s.ExclusiveMaximum != nil {
		r.ExclusiveMaximum = str(s.ExclusiveMaximum)
	}
	if s.MultipleOf != nil {
		r.MultipleOf = str(s.MultipleOf)
	}
	r.MinItems, r.MaxItems, r.UniqueItems = s.MinItems, s.MaxItems, s.UniqueItems
	r.ContentEncoding, r.ContentMediaType = s.ContentEncoding, s.ContentMediaType
}

// objectRules reads the object-wide keywords of s. typedPattern says the
// caller types the values of a closed map with a single pattern itself, so
// that pattern needs no shape of its own.
func (b *builder) objectRules(owner *Type, s *load.Schema, member string, typedPattern bool) (*ObjectRules, error) {
	o := &ObjectRules{Dependent: s.DependentRequired}
	if ap := s.AdditionalProperties; ap != nil && ap.IsBool && !ap.BoolValue {
		o.Closed = true
	}
	if pn := s.PropertyNames; pn != nil {
		r, err := b.nameShape(owner, pn, member)
		if err != nil {
			return nil, err
		}
		o.Names = r
	}
	for i, pp := range s.PatternProperties {
		rule := &PatternRule{Pattern: pp.Name}
		if !typedPattern {
			name := member + "Pattern"
			if len(s.PatternProperties) > 1 {
				name += fmt.Sprint(i + 1)
			}
			r, _, err := b.ref(owner, pp.Schema, name)
			if err != nil {
				return nil, err
			}
			rule.Ref = r
		}
		o.Patterns = append(o.Patterns, rule)
	}
	if o.empty() {
		return nil, nil
	}
	return o, nil
}

// nameShape reads propertyNames: a member name is always a string, so a
// schema without a type (propertyNames: {maxLength: 64}) is a string one.
func (b *builder) nameShape(owner *Type, pn *load.Schema, member string) (*Ref, error) {
	s := pn
	if !pn.IsBool && len(pn.Types) == 0 && refOnly(pn) == "" && pn.AnyOf == nil && pn.OneOf == nil {
		c := *pn
		c.Types = []string{"string"}
		s = &c
	}
	r, _, err := b.ref(owner, s, member+"Name")
	if err != nil {
		return nil, err
	}
	if JSONKind(r) != "string" {
		return nil, b.errf(pn, "propertyNames must describe strings: member names are strings")
	}
	return r, nil
}

// mapShape types the values of a map-only object and reads its rules. With
// patternProperties the values differ by name, so they are kept raw and
// checked by decoding, except in a closed map with one pattern, whose values
// all have that pattern's shape.
func (b *builder) mapShape(owner *Type, s *load.Schema, member string) (elem *Ref, nullable bool, rules *ObjectRules, err error) {
	ap := s.AdditionalProperties
	apSchema := ap != nil && !ap.IsBool
	closed := ap != nil && ap.IsBool && !ap.BoolValue
	typedPattern := closed && len(s.PatternProperties) == 1
	switch {
	case typedPattern:
		elem, nullable, err = b.ref(owner, s.PatternProperties[0].Schema, member+"Value")
	case apSchema && len(s.PatternProperties) == 0:
		elem, nullable, err = b.ref(owner, ap, member+"Value")
	default:
		elem = &Ref{Kind: Raw}
	}
	if err != nil {
		return nil, false, nil, err
	}
	rules, err = b.objectRules(owner, s, member, typedPattern)
	if err != nil {
		return nil, false, nil, err
	}
	if apSchema && len(s.PatternProperties) > 0 {
		if rules.Additional, _, err = b.ref(owner, ap, member+"Value"); err != nil {
			return nil, false, nil, err
		}
	}
	return elem, nullable, rules, nil
}

// structRules reads the object-wide keywords of a struct: its unknown
// members are kept raw, so an additionalProperties schema is checked by
// decoding them.
func (b *builder) structRules(t *Type, s *load.Schema) error {
	rules, err := b.objectRules(t, s, "", false)
	if err != nil {
		return err
	}
	if ap := s.AdditionalProperties; ap != nil && !ap.IsBool {
		r, _, err := b.ref(t, ap, "Extra")
		if err != nil {
			return err
		}
		if rules == nil {
			rules = &ObjectRules{}
		}
		rules.Additional = r
	}
	t.Rules = rules
	return nil
}

// inlineEnum types an enum written in place (npm 0.5.1's jsonrpc: {enum:
// ["2.0"]}): by its declared type, else by its values, which must then be
// of one JSON type (integers count as numbers of type integer). null among
// the values makes the use nullable.
func (b *builder) inlineEnum(s *load.Schema, declared []string) (string, bool, error) {
	kind, nullable := "", false
	for _, v := range s.Enum {
		k := ""
		switch v.Kind {
		case load.Null:
			nullable = true
			continue
		case load.String:
			k = "string"
		case load.Bool:
			k = "boolean"
		case load.Number:
			k = "number"
			if _, err := v.Number.Int64(); err == nil {
				k = "integer"
			}
		default:
			return "", false, b.errf(s, "enum values must be scalars")
		}
		switch {
		case kind == "" || kind == k:
			kind = k
		case kind == "integer" && k == "number", kind == "number" && k == "integer":
			kind = "number"
		default:
			return "", false, b.errf(s, "enum values of several JSON types need a union; write it with anyOf")
		}
	}
	if len(declared) == 1 {
		if kind != "" && kind != declared[0] && !(declared[0] == "number" && kind == "integer") {
			return "", false, b.errf(s, "enum values do not match type %s", declared[0])
		}
		kind = declared[0]
	}
	if kind == "" {
		return "", false, b.errf(s, "an enum of only null has no Go type")
	}
	return kind, nullable, nil
}

// enumValues are the values of an enum without null.
func enumValues(vs []*load.Node) []*load.Node {
	var out []*load.Node
	for _, v := range vs {
		if v.Kind != load.Null {
			out = append(out, v)
		}
	}
	return out
}
