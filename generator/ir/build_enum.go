package ir

import (
	"strings"

	"github.com/acpgen/acpgen/generator/load"
)

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
