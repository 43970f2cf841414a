package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// Go types: the declarations of types.go.

func scalarType(r *ir.Ref) *jen.Statement {
	switch r.Kind {
	case ir.String:
		return jen.String()
	case ir.Bool:
		return jen.Bool()
	case ir.Int:
		return jen.Id(r.Format)
	case ir.Float:
		return jen.Float64()
	case ir.Raw, ir.Routed:
		return jen.Qual(WirePath, "Raw")
	}
	return nil
}

// goType is the Go type of a value of shape r.
func goType(r *ir.Ref) *jen.Statement {
	switch r.Kind {
	case ir.Array:
		return jen.Index().Add(elemType(r))
	case ir.Map:
		return jen.Map(jen.String()).Add(elemType(r))
	case ir.Named:
		return jen.Id(r.Type.Name)
	}
	return scalarType(r)
}

func elemType(r *ir.Ref) *jen.Statement {
	if r.ElemNullable && pointerable(r.Elem) {
		return jen.Op("*").Add(goType(r.Elem))
	}
	return goType(r.Elem)
}

// nilable reports shapes whose Go zero value already means absent.
func nilable(r *ir.Ref) bool {
	switch r.Kind {
	case ir.Array, ir.Map, ir.Raw, ir.Routed:
		return true
	case ir.Named:
		t := r.Type.Underlying()
		return t.Kind == ir.Alias && nilable(t.Target)
	}
	return false
}

func pointerable(r *ir.Ref) bool { return !nilable(r) }

// fieldPtr reports whether a field is held through a pointer: the convention is
// that a value that may be absent or null is a pointer (nil = absent/null),
// unless its Go type is already nil-able (slices, maps, raw JSON).
func fieldPtr(f *ir.Field) bool {
	return (!f.Required || f.Nullable) && pointerable(f.Ref)
}

func fieldType(f *ir.Field) *jen.Statement {
	if fieldPtr(f) {
		return jen.Op("*").Add(goType(f.Ref))
	}
	return goType(f.Ref)
}

func (e *emitter) types(f *jen.File) {
	for _, t := range e.m.Types {
		f.Add(e.typeDecl(t))
		f.Line()
	}
	e.enumConsts(f)
}

func (e *emitter) typeDecl(t *ir.Type) jen.Code {
	doc := comment(e.typeDoc(t))
	switch t.Kind {
	case ir.Struct:
		var fields []jen.Code
		for _, fl := range t.Fields {
			tag := fl.JSON
			if !fl.Required {
				tag += ",omitempty"
			}
			fields = append(fields, comment(e.fieldDoc(fl)), jen.Id(fl.Name).Add(fieldType(fl)).Tag(map[string]string{"json": tag}))
		}
		if t.Union != nil {
			fields = append(fields, jen.Comment(fmt.Sprintf("%s holds the variant; its members are encoded inline in this object.", t.Union.FieldName())),
				jen.Id(t.Union.FieldName()).Id(t.Union.Name).Tag(map[string]string{"json": "-"}))
		}
		fields = append(fields, jen.Comment("Unknown keeps members this version does not model, in input order, so they re-encode unchanged."),
			jen.Id("Unknown").Qual(WirePath, "Fields").Tag(map[string]string{"json": "-"}))
		out := doc.Line().Type().Id(t.Name).Struct(fields...)
		if t.Union != nil {
			out.Line().Line().Add(e.unionDecl(t.Union, t))
		}
		return out
	case ir.ObjectUnion, ir.ValueUnion:
		return e.unionDecl(t.Union, t)
	case ir.Enum:
		return doc.Line().Type().Id(t.Name).Add(goType(t.EnumBase))
	case ir.Alias:
		if t.Target.Kind == ir.Named {
			return doc.Line().Type().Id(t.Name).Op("=").Id(t.Target.Type.Name)
		}
		return doc.Line().Type().Id(t.Name).Add(goType(t.Target))
	}
	panic("unknown kind")
}

func (e *emitter) unionDecl(u *ir.Union, t *ir.Type) jen.Code {
	var fields []jen.Code
	for _, v := range u.Variants {
		fields = append(fields, jen.Comment(variantDoc(u, v)))
		switch {
		case v.Null:
			fields = append(fields, jen.Id(v.Name).Bool().Tag(map[string]string{"json": "-"}))
		case nilable(v.Payload):
			fields = append(fields, jen.Id(v.Name).Add(goType(v.Payload)).Tag(map[string]string{"json": "-"}))
		default:
			fields = append(fields, jen.Id(v.Name).Op("*").Add(goType(v.Payload)).Tag(map[string]string{"json": "-"}))
		}
	}
	if keepsUnknown(u) {
		fields = append(fields, jen.Comment(fmt.Sprintf("%s keeps a variant whose %s this version does not know, with its members; only lenient decoding sets it, and Validate reports it.", unknownField, u.Discriminator)),
			jen.Id(unknownField).Op("*").Qual(WirePath, "UnknownVariant").Tag(map[string]string{"json": "-"}))
	}
	doc := fmt.Sprintf("%s is a union: exactly one variant field is set.", u.Name)
	if t.Kind != ir.Struct {
		doc = e.typeDoc(t) + "\n\nExactly one variant field is set."
	} else {
		doc += fmt.Sprintf(" It is embedded in %s.", t.Name)
	}
	out := comment(doc).Line().Type().Id(u.Name).Struct(fields...)
	// Constructors, one per variant, so a caller cannot set two at once by accident.
	for _, v := range u.Variants {
		name := "New" + u.Name + v.Name
		switch {
		case v.Null:
			out.Line().Line().Comment(fmt.Sprintf("%s returns the null %s.", name, u.Name)).Line().
				Func().Id(name).Params().Id(u.Name).Block(jen.Return(jen.Id(u.Name).Values(jen.Dict{jen.Id(v.Name): jen.True()})))
		case nilable(v.Payload):
			out.Line().Line().Comment(fmt.Sprintf("%s returns a %s holding the %s variant.", name, u.Name, v.Name)).Line().
				Func().Id(name).Params(jen.Id("v").Add(goType(v.Payload))).Id(u.Name).Block(jen.Return(jen.Id(u.Name).Values(jen.Dict{jen.Id(v.Name): jen.Id("v")})))
		default:
			out.Line().Line().Comment(fmt.Sprintf("%s returns a %s holding the %s variant.", name, u.Name, v.Name)).Line().
				Func().Id(name).Params(jen.Id("v").Add(goType(v.Payload))).Id(u.Name).Block(jen.Return(jen.Id(u.Name).Values(jen.Dict{jen.Id(v.Name): jen.Op("&").Id("v")})))
		}
	}
	out.Line().Line().Add(e.unionAPI(u))
	out.Line().Line().Add(unionValue(u))
	return out
}

func variantDoc(u *ir.Union, v *ir.Variant) string {
	switch v.Role {
	case ir.Tagged:
		return fmt.Sprintf("%s is the variant with %s %q.", v.Name, u.Discriminator, v.Tag)
	case ir.Fallback:
		return fmt.Sprintf("%s is the untagged variant: chosen when %s is absent or unknown; an unknown %s is kept among its unknown members.", v.Name, u.Discriminator, u.Discriminator)
	case ir.CatchAll:
		return fmt.Sprintf("%s keeps a variant whose %s this version does not know, with all its members.", v.Name, u.Discriminator)
	case ir.Absent:
		return fmt.Sprintf("%s is the variant without %s (absent or null).", v.Name, u.Discriminator)
	}
	if v.Null {
		return fmt.Sprintf("%s is the JSON null variant.", v.Name)
	}
	if len(v.Keys) > 0 {
		return fmt.Sprintf("%s is the variant told apart by its member(s) %s.", v.Name, quoteList(v.Keys, ", "))
	}
	return fmt.Sprintf("%s is the %s variant.", v.Name, kindWord(v.Payload))
}

func kindWord(r *ir.Ref) string {
	switch r.Kind {
	case ir.String:
		return "string"
	case ir.Bool:
		return "boolean"
	case ir.Int:
		return "integer (" + r.Format + ")"
	case ir.Float:
		return "number"
	case ir.Array:
		return "array of " + kindWord(r.Elem)
	case ir.Map:
		return "object map of " + kindWord(r.Elem)
	case ir.Named:
		return r.Type.Name
	}
	return "JSON value"
}

// quoteList quotes each of ss as a Go string and joins them with sep.
func quoteList(ss []string, sep string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, sep)
}

func (e *emitter) typeDoc(t *ir.Type) string {
	var parts []string
	what := ""
	switch t.Kind {
	case ir.Struct:
		what = "an object"
	case ir.ObjectUnion:
		if t.Union.Discriminator != "" {
			what = fmt.Sprintf("a union of objects tagged by %q", t.Union.Discriminator)
		} else {
			what = "a union of objects told apart by their members"
		}
	case ir.ValueUnion:
		what = "a union told apart by JSON type"
	case ir.Enum:
		if t.EnumOpen {
			what = fmt.Sprintf("an open enumeration of %s values: the listed constants or any other", kindWord(t.EnumBase))
		} else {
			what = fmt.Sprintf("a closed enumeration of %s values", kindWord(t.EnumBase))
		}
	case ir.Alias:
		if t.Target.Kind == ir.Named {
			what = "another name for " + t.Target.Type.Name
		} else {
			what = kindWord(t.Target)
			if t.Target.Kind == ir.Raw {
				what = "any JSON value, kept verbatim"
			}
		}
	}
	parts = append(parts, fmt.Sprintf("%s is %s.", t.Name, what))
	for _, u := range t.Uses {
		kind := "request"
		if u.Method.Notification {
			kind = "notification"
		}
		parts = append(parts, fmt.Sprintf("It is the %s of %s, a %s handled by the %s side.", u.Role, u.Method.Wire, kind, u.Method.Side))
	}
	if t.Def != "" {
		parts = append(parts, fmt.Sprintf("Schema: $defs/%s.", t.Def))
	} else if t.Parent != nil {
		parts = append(parts, fmt.Sprintf("Defined inline in %s.", t.Parent.Name))
	}
	if links := docLinks(t.Description); len(links) > 0 {
		parts = append(parts, "See "+strings.Join(links, " and ")+".")
	}
	if len(t.Overlay) > 0 {
		parts = append(parts, e.provenance(t.Overlay))
	}
	text := strings.Join(parts, " ")
	if e.o.Descriptions && t.Description != "" {
		text += "\n\n" + description(t.Description)
	}
	return text
}

func (e *emitter) fieldDoc(f *ir.Field) string {
	var parts []string
	req := "optional"
	if f.Required {
		req = "required"
	}
	s := fmt.Sprintf("%s is the %s member %q", f.Name, req, f.JSON)
	if f.Nullable {
		s += "; null is allowed"
	}
	parts = append(parts, s+".")
	if fieldPtr(f) {
		parts = append(parts, "nil means absent or null.")
	} else if !f.Required && nilable(f.Ref) {
		parts = append(parts, "nil means absent.")
	}
	if f.DefaultOnError {
		parts = append(parts, "Lenient decoding treats an invalid value as absent.")
	}
	if f.DefaultOnNull {
		parts = append(parts, "Lenient decoding treats null as the default.")
	}
	if f.Ref.Kind == ir.Array && f.Ref.SkipInvalidItems {
		parts = append(parts, "Lenient decoding drops invalid items.")
	}
	if f.Ref.Kind == ir.Routed {
		parts = append(parts, fmt.Sprintf("Its type depends on the method: one of %s.", strings.Join(f.Ref.Routes, ", ")))
	}
	if f.Default != nil {
		parts = append(parts, fmt.Sprintf("Default: %s.", f.Default.JSON()))
	}
	if links := docLinks(f.Description); len(links) > 0 {
		parts = append(parts, "See "+strings.Join(links, " and ")+".")
	}
	if f.Ephemeral {
		parts = append(parts, "It applies to this turn only and is not part of durable history.")
	}
	if len(f.Aliases) > 0 {
		parts = append(parts, fmt.Sprintf("Lenient decoding also reads it as %s (the member's own name wins, then the first listed); strict decoding refuses those names; encoding writes %q.", quoteList(f.Aliases, " or "), f.JSON))
	}
	if len(f.Overlay) > 0 {
		parts = append(parts, e.provenance(f.Overlay))
	}
	text := strings.Join(parts, " ")
	if e.o.Descriptions && f.Description != "" {
		text += "\n\n" + description(f.Description)
	}
	return text
}

// docLinks extracts the upstream documentation URLs a description points at:
// facts we may cite, unlike the description's sentences.
func docLinks(desc string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(desc, func(r rune) bool {
		return r == ' ' || r == '\n' || r == '(' || r == ')' || r == '<' || r == '>' || r == '"'
	}) {
		if strings.HasPrefix(w, "https://agentclientprotocol.com/") {
			w = strings.TrimRight(w, ".,;:")
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

func (e *emitter) enumConsts(f *jen.File) {
	for _, t := range e.m.Types {
		if t.Kind != ir.Enum {
			continue
		}
		var defs []jen.Code
		for _, v := range t.EnumValues {
			if t.EnumBase.Kind == ir.String {
				defs = append(defs, jen.Comment(fmt.Sprintf("%s is the %s value %q.", v.Name, t.Name, v.String)), jen.Id(v.Name).Id(t.Name).Op("=").Lit(v.String))
			} else {
				defs = append(defs, jen.Comment(fmt.Sprintf("%s is the %s value %d (%s).", v.Name, t.Name, v.Int, v.Title)), jen.Id(v.Name).Id(t.Name).Op("=").Lit(int(v.Int)))
			}
		}
		f.Const().Defs(defs...)
		f.Line()
	}
}
