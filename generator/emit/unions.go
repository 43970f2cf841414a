package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// The union API beyond the variant fields: the Unknown variant of closed
// tagged unions, the Kind accessor and the checks MarshalJSON makes.

// unknownField is the field of a closed tagged union that keeps a variant
// with an unknown tag. ir reserves the name among variants.
const unknownField = "Unknown"

// keepsUnknown reports a tagged union with neither a catch-all nor an
// untagged fallback: every such union keeps an unknown tag in its Unknown
// variant when decoding leniently, so a newer peer's additions (a new
// session update kind, a new content block type) do not fail the message.
func keepsUnknown(u *ir.Union) bool {
	if u.Discriminator == "" {
		return false
	}
	for _, v := range u.Variants {
		if v.Role == ir.CatchAll || v.Role == ir.Fallback {
			return false
		}
	}
	return true
}

// tagField is the Go field of a catch-all variant's payload that holds the
// tag it carries, or "" when there is none of type string.
func tagField(u *ir.Union, v *ir.Variant) string {
	for _, f := range v.Payload.Type.Fields {
		if f.JSON == u.Discriminator && f.Ref.Kind == ir.String && !fieldPtr(f) {
			return f.Name
		}
	}
	return ""
}

// stringKind reports a union whose every variant has a tag value: its Kind
// is the tag (a string type); other unions get an enumeration of variants.
func stringKind(u *ir.Union) bool {
	if u.Discriminator == "" {
		return false
	}
	for _, v := range u.Variants {
		switch {
		case v.Role == ir.Tagged:
		case v.Role == ir.CatchAll && tagField(u, v) != "":
		default:
			return false
		}
	}
	return true
}

// declared returns every package-level name of the model, so the names
// this file adds can avoid them.
func (e *emitter) declared() map[string]bool {
	if e.decls == nil {
		e.decls = map[string]bool{}
		for _, t := range e.m.Types {
			e.decls[t.Name] = true
			for _, v := range t.EnumValues {
				e.decls[v.Name] = true
			}
			if u := t.Union; u != nil {
				e.decls[u.Name] = true
				for _, v := range u.Variants {
					e.decls["New"+u.Name+v.Name] = true
				}
			}
		}
		for _, n := range ir.Reserved("decl") {
			e.decls[n] = true
		}
	}
	return e.decls
}

// kindType names the type of u's Kind, "" when the name (or a constant's)
// is taken: the union then has no Kind method.
func (e *emitter) kindType(u *ir.Union) string {
	if k, ok := e.kindNames[u]; ok {
		return k
	}
	d := e.declared()
	name := ""
	for _, cand := range []string{u.Name + "Kind", u.Name + "Variant"} {
		ok := !d[cand]
		for _, v := range u.Variants {
			ok = ok && !d[cand+v.Name]
		}
		if ok {
			name = cand
			break
		}
	}
	if e.kindNames == nil {
		e.kindNames = map[*ir.Union]string{}
	}
	e.kindNames[u] = name
	if name != "" {
		d[name] = true
		for _, v := range u.Variants {
			d[name+v.Name] = true
		}
	}
	return name
}

// unionAPI emits u's Kind type, constants and method.
func (e *emitter) unionAPI(u *ir.Union) jen.Code {
	kt := e.kindType(u)
	if kt == "" {
		return jen.Null()
	}
	out := jen.Null()
	var consts, cases []jen.Code
	if stringKind(u) {
		out.Comment(fmt.Sprintf("%s is the %s of a %s: which variant it holds.", kt, u.Discriminator, u.Name)).Line().
			Type().Id(kt).String().Line().Line()
		for _, v := range u.Variants {
			if v.Role != ir.Tagged {
				continue
			}
			consts = append(consts, jen.Comment(fmt.Sprintf("%s is the %s of the %s variant.", kt+v.Name, u.Discriminator, v.Name)),
				jen.Id(kt+v.Name).Id(kt).Op("=").Lit(v.Tag))
			cases = append(cases, jen.Case(jen.Id("v").Dot(v.Name).Op("!=").Nil()).Block(jen.Return(jen.Id(kt+v.Name))))
		}
		for _, v := range u.Variants {
			if v.Role == ir.CatchAll {
				cases = append(cases, jen.Case(jen.Id("v").Dot(v.Name).Op("!=").Nil()).Block(jen.Return(jen.Id(kt).Call(jen.Id("v").Dot(v.Name).Dot(tagField(u, v))))))
			}
		}
		if keepsUnknown(u) {
			cases = append(cases, jen.Case(jen.Id("v").Dot(unknownField).Op("!=").Nil()).Block(jen.Return(jen.Id(kt).Call(jen.Id("v").Dot(unknownField).Dot("Tag")))))
		}
		out.Const().Defs(consts...).Line().Line()
		doc := fmt.Sprintf("Kind reports the variant v holds as its %s: a constant %s..., or the tag as received for a variant this version does not know; \"\" when no variant is set. With several set (which Validate reports) it is the first.", u.Discriminator, kt)
		out.Comment(doc).Line().
			Func().Params(jen.Id("v").Id(u.Name)).Id("Kind").Params().Id(kt).Block(jen.Switch().Block(cases...), jen.Return(jen.Lit("")))
		return out
	}
	var names []jen.Code
	for i, v := range u.Variants {
		c := jen.Id(kt + v.Name)
		if i == 0 {
			c = c.Id(kt).Op("=").Iota().Op("+").Lit(1)
		}
		consts = append(consts, jen.Comment(fmt.Sprintf("%s is the %s variant.", kt+v.Name, v.Name)), c)
		set := jen.Id("v").Dot(v.Name).Op("!=").Nil()
		if v.Null {
			set = jen.Id("v").Dot(v.Name)
		}
		cases = append(cases, jen.Case(set).Block(jen.Return(jen.Id(kt+v.Name))))
		names = append(names, jen.Case(jen.Id(kt+v.Name)).Block(jen.Return(jen.Lit(v.Name))))
	}
	if keepsUnknown(u) {
		consts = append(consts, jen.Comment(fmt.Sprintf("%sUnknown is a variant whose %s this version does not know (see %s.Unknown).", kt, u.Discriminator, u.Name)), jen.Id(kt+"Unknown"))
		cases = append(cases, jen.Case(jen.Id("v").Dot(unknownField).Op("!=").Nil()).Block(jen.Return(jen.Id(kt+"Unknown"))))
		names = append(names, jen.Case(jen.Id(kt+"Unknown")).Block(jen.Return(jen.Lit("Unknown"))))
	}
	out.Comment(fmt.Sprintf("%s says which variant a %s holds; the zero value means none.", kt, u.Name)).Line().
		Type().Id(kt).Int().Line().Line().
		Const().Defs(consts...).Line().Line().
		Comment("String returns the variant's field name, or \"\" for the zero value.").Line().
		Func().Params(jen.Id("k").Id(kt)).Id("String").Params().String().Block(jen.Switch(jen.Id("k")).Block(names...), jen.Return(jen.Lit(""))).Line().Line().
		Comment("Kind reports the variant v holds; 0 when none is set. With several set (which Validate reports) it is the first.").Line().
		Func().Params(jen.Id("v").Id(u.Name)).Id("Kind").Params().Id(kt).Block(jen.Switch().Block(cases...), jen.Return(jen.Lit(0)))
	return out
}

// unionValue emits u's Value method: the set variant's payload, for a type
// switch.
func unionValue(u *ir.Union) jen.Code {
	var cases []jen.Code
	null := ""
	for _, v := range u.Variants {
		if v.Null {
			null = v.Name
			continue
		}
		cases = append(cases, jen.Case(jen.Id("v").Dot(v.Name).Op("!=").Nil()).Block(jen.Return(jen.Id("v").Dot(v.Name))))
	}
	if keepsUnknown(u) {
		cases = append(cases, jen.Case(jen.Id("v").Dot(unknownField).Op("!=").Nil()).Block(jen.Return(jen.Id("v").Dot(unknownField))))
	}
	doc := "Value returns the payload of the variant v holds, for a type switch"
	if keepsUnknown(u) {
		doc += " (a *wire.UnknownVariant for a variant this version does not know)"
	}
	doc += "; nil when no variant is set"
	if null != "" {
		doc += " or " + null + " (the JSON null; see Kind)"
	}
	doc += ". With several set (which Validate reports) it is the first."
	body := []jen.Code{jen.Return(jen.Nil())}
	if len(cases) > 0 {
		body = []jen.Code{jen.Switch().Block(cases...), jen.Return(jen.Nil())}
	}
	return jen.Comment(doc).Line().Func().Params(jen.Id("v").Id(u.Name)).Id("Value").Params().Any().Block(body...)
}

// variantsCheck is the end of a union's validate: exactly one variant set,
// else a violation that also makes MarshalJSON fail.
func variantsCheck(u *ir.Union) jen.Code {
	var names []string
	args := []jen.Code{jen.Lit(u.Name), jen.Nil()}
	for _, v := range u.Variants {
		names = append(names, v.Name)
		set := jen.Id("x").Dot(v.Name).Op("!=").Nil()
		if v.Null {
			set = jen.Id("x").Dot(v.Name)
		}
		args = append(args, set)
	}
	if keepsUnknown(u) {
		args = append(args, jen.Id("x").Dot(unknownField).Op("!=").Nil())
	}
	args[1] = jen.Lit(strings.Join(names, ", "))
	return jen.If(jen.Id("n").Op("!=").Lit(1)).Block(jen.Id("v").Dot("Variants").Call(args...))
}

// unknownValidate checks the Unknown variant: reported as unknown (unless a
// received message is checked leniently), or as misplaced when its tag is known.
func unknownValidate(u *ir.Union) jen.Code {
	var known []jen.Code
	for _, o := range u.Variants {
		if o.Role == ir.Tagged {
			known = append(known, jen.Lit(o.Tag))
		}
	}
	tag := jen.Id("x").Dot(unknownField).Dot("Tag")
	isKnown := jen.Lit(false)
	if len(known) > 0 {
		isKnown = jen.Id("known")
	}
	body := []jen.Code{jen.Id("n").Op("++")}
	if len(known) > 0 {
		body = append(body, jen.Id("known").Op(":=").False(), jen.Switch(tag.Clone()).Block(jen.Case(known...).Block(jen.Id("known").Op("=").True())))
	}
	body = append(body, jen.Id("v").Dot("UnknownVariant").Call(jen.Lit(u.Discriminator), tag.Clone(), isKnown))
	return jen.If(jen.Id("x").Dot(unknownField).Op("!=").Nil()).Block(body...)
}
