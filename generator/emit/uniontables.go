package emit

import (
	"slices"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// This file emits cold object unions: unions off the streaming path whose
// every variant is a cold struct, described by a static wire.Union that
// runtime/wire's interpreter selects, decodes, encodes and validates with.

// coldUnion reports whether object union t is described by a table: it is
// not hot, no other union holds it as a variant (which would call its
// member-level methods), and every payload is a cold struct (coldSets).
func (e *emitter) coldUnion(t *ir.Type) bool {
	if e.coldUnions == nil {
		e.coldSets()
	}
	return e.coldUnions[t]
}

// heldAsVariant maps each type some union holds as a variant's payload to
// the types holding it: unions, and structs embedding a union.
func heldAsVariant(types []*ir.Type) map[*ir.Type][]*ir.Type {
	held := map[*ir.Type][]*ir.Type{}
	for _, t := range types {
		if t.Union == nil {
			continue
		}
		for _, v := range t.Union.Variants {
			if v.Payload != nil && v.Payload.Kind == ir.Named {
				p := v.Payload.Type.Underlying()
				held[p] = append(held[p], t)
			}
		}
	}
	return held
}

// coldVariants reports variants the interpreter can select and read.
func (e *emitter) coldVariants(u *ir.Union) bool {
	for _, v := range u.Variants {
		if v.Payload == nil || v.Payload.Kind != ir.Named || !e.cold(v.Payload.Type.Underlying()) {
			return false
		}
		if v.Role == ir.CatchAll && tagField(u, v) == "" {
			return false
		}
	}
	return true
}

// unionTable names the package variable holding u's wire.Union.
func unionTable(u *ir.Union) string { return "union" + u.Name }

// variantRoles are runtime/wire's VariantRole constants.
var variantRoles = map[ir.Role]string{ir.Tagged: "VariantTagged", ir.CatchAll: "VariantCatchAll", ir.Absent: "VariantAbsent", ir.Shape: "VariantShape", ir.Fallback: "VariantFallback"}

// coldUnionCodec emits t's table and its MarshalJSON and UnmarshalJSON.
func (e *emitter) coldUnionCodec(f *jen.File, t *ir.Type) {
	e.unionTableVar(f, t.Union)
	table := jen.Op("&").Id(unionTable(t.Union))
	f.Comment("MarshalJSON encodes v with its table. It fails with a *wire.EncodeError,")
	f.Comment("naming the union and its variants, when none or several are set.")
	marshalJSON(f, t.Name).Block(
		jen.Return(wireName("MarshalWith").Call(jen.Op("&").Id("v"), table.Clone(), jen.Lit(e.o.Package+"."+t.Name))))
	tableUnmarshal(f, t.Name, table)
}

// unionTableVar declares u's wire.Union, for a standalone union or one
// embedded in a cold struct.
func (e *emitter) unionTableVar(f *jen.File, u *ir.Union) {
	var variants []jen.Code
	for _, v := range u.Variants {
		vals := jen.Dict{
			jen.Id("Name"):    jen.Lit(v.Name),
			jen.Id("Role"):    wireName(variantRoles[v.Role]),
			jen.Id("Payload"): jen.Op("&").Id(objectTable(v.Payload.Type.Underlying())),
		}
		if v.Role == ir.Tagged {
			vals[jen.Id("Tag")] = jen.Lit(v.Tag)
		}
		if len(v.Keys) > 0 {
			var keys []jen.Code
			for _, k := range v.Keys {
				keys = append(keys, jen.Lit(k))
			}
			vals[jen.Id("Keys")] = jen.Index().String().Values(keys...)
		}
		variants = append(variants, jen.Values(vals))
	}
	tbl := jen.Dict{
		jen.Id("Name"):     jen.Lit(u.Name),
		jen.Id("Type"):     jen.Parens(jen.Op("*").Id(u.Name)).Call(jen.Nil()),
		jen.Id("Variants"): jen.Index().Add(wireName("Variant")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, variants...),
	}
	if u.Discriminator != "" {
		tbl[jen.Id("Discriminator")] = jen.Lit(u.Discriminator)
	}
	if order := selectOrder(u); order != nil {
		tbl[jen.Id("Order")] = jen.Index().Int().Values(order...)
	}
	if keepsUnknown(u) {
		tbl[jen.Id("KeepsUnknown")] = jen.True()
	}
	f.Var().Id(unionTable(u)).Op("=").Add(wireName("Union")).Values(tbl)
}

// selectOrder is u's SelectOrder as indexes of its variants, nil when it
// is the declaration order.
func selectOrder(u *ir.Union) []jen.Code {
	if u.SelectOrder == nil {
		return nil
	}
	var out []jen.Code
	same := true
	for i, v := range u.SelectOrder {
		j := slices.Index(u.Variants, v)
		same = same && i == j
		out = append(out, jen.Lit(j))
	}
	if same && len(u.SelectOrder) == len(u.Variants) {
		return nil
	}
	return out
}
