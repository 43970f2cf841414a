package emit

import (
	"fmt"
	"strconv"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// This file emits cold types: structs off the streaming path (ir's hot set,
// hot.go) that runtime/wire's interpreter decodes, encodes and validates
// from a static table (wire.Object) instead of generated code. Their
// methods are one call each into the runtime.

// cold reports whether struct t is described by a table: it is not hot, and
// everything it does is something the interpreter does (see tabular).
func (e *emitter) cold(t *ir.Type) bool {
	if e.colds == nil {
		e.coldSets()
	}
	return e.colds[t]
}

// coldSets decides cold structs and cold unions once for every type of the
// model. It starts from every candidate and drops what breaks a rule until
// none does (the greatest fixpoint): a union is cold only when every
// payload is a cold struct, and a struct embedding a union only when that
// union's payloads are cold and every union holding the struct as a
// variant is cold too, since a generated union calls the member-level
// methods of an embedding payload, which a table-described struct lacks.
func (e *emitter) coldSets() {
	cyclic := onCycle(e.m.Types)
	held := heldAsVariant(e.m.Types)
	e.colds, e.coldUnions = map[*ir.Type]bool{}, map[*ir.Type]bool{}
	for _, t := range e.m.Types {
		switch {
		case t.Kind == ir.Struct && !t.Hot && t.Rules == nil && len(aliasedFields(t)) == 0 &&
			!cyclic[t] && e.tabularFields(t):
			e.colds[t] = true
		case t.Kind == ir.ObjectUnion && !t.Hot && len(held[t]) == 0:
			e.coldUnions[t] = true
		}
	}
	for dropped := true; dropped; {
		dropped = false
		for t := range e.colds {
			if t.Union != nil && !(e.coldVariants(t.Union) && e.coldHolders(held[t])) {
				delete(e.colds, t)
				dropped = true
			}
		}
		for t := range e.coldUnions {
			if !e.coldVariants(t.Union) {
				delete(e.coldUnions, t)
				dropped = true
			}
		}
	}
}

// coldHolders reports whether every holder (a union, or a struct embedding
// one) is described by a table.
func (e *emitter) coldHolders(holders []*ir.Type) bool {
	for _, h := range holders {
		if !e.colds[h] && !e.coldUnions[h] {
			return false
		}
	}
	return true
}

// onCycle are the types that reach themselves: their tables would refer to
// each other at package initialisation, which Go rejects.
func onCycle(types []*ir.Type) map[*ir.Type]bool {
	out := map[*ir.Type]bool{}
	for _, t := range types {
		seen := map[*ir.Type]bool{}
		var reaches func(u *ir.Type) bool
		reaches = func(u *ir.Type) bool {
			found := false
			u.EachRef(func(r *ir.Ref) {
				if found || r.Kind != ir.Named {
					return
				}
				if r.Type == t {
					found = true
				} else if !seen[r.Type] {
					seen[r.Type] = true
					found = reaches(r.Type)
				}
			})
			return found
		}
		out[t] = reaches(t)
	}
	return out
}

func (e *emitter) tabularFields(t *ir.Type) bool {
	for _, fl := range t.Fields {
		if !tabular(fl.Ref) && !e.rawRouted(fl.Ref) && !boundedMember(fl.Ref) {
			return false
		}
	}
	return true
}

// rawRouted reports a method-routed payload checked only as raw JSON (its
// routes are open or not all typed), which the interpreter holds as RawJSON.
func (e *emitter) rawRouted(r *ir.Ref) bool {
	return r.Kind == ir.Routed && e.routedTypes(r) == nil
}

// tabular reports whether the interpreter checks a value of shape r as its
// generated code would: strings with their StringRule, numbers without
// bounds, raw values, named types (which check themselves), and arrays and
// maps of those without item or member constraints.
func tabular(r *ir.Ref) bool {
	if r.Const != nil || r.Enum != nil {
		return false
	}
	switch r.Kind {
	case ir.String, ir.Bool, ir.Raw:
		return true
	case ir.Int:
		return r.MultipleOf == nil && (!hasBounds(r) || r.Format != "uint64" && intRule(r) != nil || boundsHeld(r))
	case ir.Float:
		return !hasBounds(r) && r.MultipleOf == nil
	case ir.Named:
		return !nilable(r)
	case ir.Array:
		return r.MinItems == nil && r.MaxItems == nil && !r.UniqueItems && !r.ElemNullable && tabular(r.Elem)
	case ir.Map:
		return r.Rules == nil && !r.ElemNullable && tabular(r.Elem)
	}
	return false
}

// boundedMember reports a member's own number with bounds or array with an
// item count, which the interpreter checks (wire.FloatBound, Value.Items)
// with the messages of generated code; nested ones keep generated code.
func boundedMember(r *ir.Ref) bool {
	switch r.Kind {
	case ir.Float:
		return r.MultipleOf == nil
	case ir.Array:
		return !r.UniqueItems && !r.ElemNullable && tabular(r.Elem)
	}
	return false
}

// floatBounds are the wire.FloatBound values of a number's bounds, in the
// order floatChecks checks them; a bound that is no number is left out, as
// there.
func floatBounds(r *ir.Ref) []jen.Code {
	var out []jen.Code
	bound := func(s *string, lower, exclusive bool, what string) {
		if s == nil {
			return
		}
		x, err := strconv.ParseFloat(*s, 64)
		if err != nil {
			return
		}
		b := jen.Dict{jen.Id("Limit"): jen.Lit(x), jen.Id("What"): jen.Lit(what + *s)}
		if lower {
			b[jen.Id("Lower")] = jen.True()
		}
		if exclusive {
			b[jen.Id("Exclusive")] = jen.True()
		}
		out = append(out, jen.Values(b))
	}
	bound(r.Minimum, true, false, "must be at least ")
	bound(r.Maximum, false, false, "must be at most ")
	bound(r.ExclusiveMinimum, true, true, "must be greater than ")
	bound(r.ExclusiveMaximum, false, true, "must be less than ")
	return out
}

// itemCounts is the wire.IntRule of an array's item count, nil for none.
func itemCounts(r *ir.Ref) jen.Dict {
	out := jen.Dict{}
	if r.MinItems != nil && *r.MinItems > 0 {
		out[jen.Id("HasMin")], out[jen.Id("Min")] = jen.True(), jen.Lit(*r.MinItems)
		out[jen.Id("MinWhat")] = jen.Lit(fmt.Sprintf("must have at least %d item%s", *r.MinItems, plural(*r.MinItems)))
	}
	if r.MaxItems != nil {
		out[jen.Id("HasMax")], out[jen.Id("Max")] = jen.True(), jen.Lit(*r.MaxItems)
		out[jen.Id("MaxWhat")] = jen.Lit(fmt.Sprintf("must have at most %d item%s", *r.MaxItems, plural(*r.MaxItems)))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// boundsHeld reports bounds the Go type of an integer already guarantees.
func boundsHeld(r *ir.Ref) bool {
	typeLo, typeHi := formatBounds(r.Format)
	lo, _ := intLowerBound(r)
	hi, _ := intUpperBound(r)
	return (lo == nil || lo.Cmp(typeLo) <= 0) && (hi == nil || hi.Cmp(typeHi) >= 0)
}

func hasBounds(r *ir.Ref) bool {
	return r.Minimum != nil || r.Maximum != nil || r.ExclusiveMinimum != nil || r.ExclusiveMaximum != nil
}

// intRule is the wire.IntRule of an integer's bounds (as intChecks derives
// them, leaving out what the Go type guarantees), or nil when there is none
// to check or the interpreter cannot hold them (a uint64, a bound beyond
// int64).
func intRule(r *ir.Ref) jen.Dict {
	if !hasBounds(r) || r.Format == "uint64" {
		return nil
	}
	out := jen.Dict{}
	typeLo, typeHi := formatBounds(r.Format)
	if lo, what := intLowerBound(r); lo != nil && lo.Cmp(typeLo) > 0 {
		if !lo.IsInt64() {
			return nil
		}
		out[jen.Id("HasMin")], out[jen.Id("Min")], out[jen.Id("MinWhat")] = jen.True(), jen.Lit(int(lo.Int64())), jen.Lit(what)
	}
	if hi, what := intUpperBound(r); hi != nil && hi.Cmp(typeHi) < 0 {
		if !hi.IsInt64() {
			return nil
		}
		out[jen.Id("HasMax")], out[jen.Id("Max")], out[jen.Id("MaxWhat")] = jen.True(), jen.Lit(int(hi.Int64())), jen.Lit(what)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// shapeNames are runtime/wire's Shape constants of the integer formats.
var shapeNames = map[string]string{"int32": "ShapeInt32", "uint16": "ShapeUint16", "uint32": "ShapeUint32", "int64": "ShapeInt64", "": "ShapeInt64"}

// objectTable names the package variable holding t's wire.Object.
func objectTable(t *ir.Type) string { return "object" + t.Name }

// coldCodec emits t's table and its codec methods.
func (e *emitter) coldCodec(f *jen.File, t *ir.Type) {
	var members []jen.Code
	for _, fl := range t.Fields {
		vals := jen.Dict{
			jen.Id("Name"):  jen.Lit(fl.JSON),
			jen.Id("Field"): jen.Lit(fl.Name),
			jen.Id("Value"): e.tableValue(fl.Ref),
		}
		if flags := memberFlags(fl); flags != nil {
			vals[jen.Id("Flags")] = flags
		}
		members = append(members, jen.Values(vals))
	}
	obj := jen.Dict{
		jen.Id("Name"): jen.Lit(e.o.Package + "." + t.Name),
		jen.Id("Type"): jen.Parens(jen.Op("*").Id(t.Name)).Call(jen.Nil()),
	}
	if u := t.Union; u != nil {
		e.unionTableVar(f, u)
		obj[jen.Id("Union")], obj[jen.Id("UnionField")] = jen.Op("&").Id(unionTable(u)), jen.Lit(u.FieldName())
	}
	if len(members) > 0 {
		obj[jen.Id("Members")] = jen.Index().Add(wireName("Member")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, members...)
	}
	f.Var().Id(objectTable(t)).Op("=").Add(wireName("Object")).Values(obj)
	table := jen.Op("&").Id(objectTable(t))
	f.Comment("MarshalJSON encodes v with its table. It fails with a *wire.EncodeError,")
	f.Comment("naming the union and its variants, when a union in v has no variant or several set.")
	marshalJSON(f, t.Name).Block(
		jen.Return(wireName("MarshalTable").Call(jen.Id("v"), table.Clone())))
	tableUnmarshal(f, t.Name, table)
}

// tableValidate emits t's Validate: one call of wire.ValidateErr with t's table,
// which costs less to compile in each of the many types than a Validator of
// their own (1% of gen/acp's compile, instructions counted with cachegrind).
func tableValidate(f *jen.File, t *ir.Type, table jen.Code) {
	f.Comment(fmt.Sprintf("Validate reports every way x breaks the schema of %s, each with the JSON pointer of the offending value.", t.Name))
	f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("Validate").Params().Error().Block(
		jen.Return(wireName("ValidateErr").Call(jen.Id("x"), table)),
	)
	f.Line()
}

// tableUnmarshal emits the UnmarshalJSON of a type reached through table.
func tableUnmarshal(f *jen.File, name string, table *jen.Statement) {
	unmarshalJSON(f, name).Block(
		jen.Return(wireName("DecodeWith").Call(jen.Id("data"), jen.Id("v"), table.Clone(), wireName("Lenient"))))
	f.Line()
}

// tableVar names the package variable holding the table runtime/wire
// reaches named type t through (a cold struct's wire.Object, a cold
// union's wire.Union), "" for a type with codec methods of its own.
func (e *emitter) tableVar(t *ir.Type) string {
	switch t = t.Underlying(); {
	case e.cold(t):
		return objectTable(t)
	case e.coldUnion(t):
		return unionTable(t.Union)
	case stringEnum(t):
		return enumTable(t)
	case scalarAlias(t):
		return scalarTable(t)
	}
	return ""
}

// tableExpr is the wire.Table of named type t: its table, or wire.OwnCodec
// for a type with codec methods of its own.
func (e *emitter) tableExpr(t *ir.Type) jen.Code {
	if v := e.tableVar(t); v != "" {
		return jen.Op("&").Id(v)
	}
	return wireName("OwnCodec").Values()
}

// addr is the address of the named value expr, expr itself when ptr.
func addr(expr *jen.Statement, ptr bool) *jen.Statement {
	if ptr {
		return expr.Clone()
	}
	return jen.Op("&").Add(expr.Clone())
}

// memberFlags are fl's wire.MemberFlags, nil for none.
func memberFlags(fl *ir.Field) jen.Code {
	var flags []jen.Code
	add := func(on bool, name string) {
		if on {
			flags = append(flags, wireName(name))
		}
	}
	add(fl.Required, "Required")
	add(fl.Nullable, "Nullable")
	add(fieldPtr(fl), "Pointer")
	add(fl.DefaultOnNull, "DefaultOnNull")
	add(fl.DefaultOnError, "DefaultOnError")
	if len(flags) == 0 {
		return nil
	}
	out := jen.Add(flags[0])
	for _, fl := range flags[1:] {
		out = out.Op("|").Add(fl)
	}
	return out
}

// scalarValues are runtime/wire's shared values of the scalar shapes. A
// table takes their address (&wire.String): a pointer variable of another
// package would be copied by package init code, an address is laid out by
// the compiler.
var scalarValues = map[string]string{"int32": "Int32", "uint16": "Uint16", "uint32": "Uint32", "int64": "Int64", "uint64": "Uint64", "": "Int64"}

// scalar reports a string, boolean or number shape.
func scalar(r *ir.Ref) bool {
	return r.Kind == ir.String || r.Kind == ir.Bool || r.Kind == ir.Int || r.Kind == ir.Float
}

// tableValue is the *wire.Value describing shape r.
func (e *emitter) tableValue(r *ir.Ref) jen.Code {
	value := func(shape string, fields jen.Dict) jen.Code {
		fields[jen.Id("Shape")] = wireName(shape)
		return jen.Op("&").Add(wireName("Value")).Values(fields)
	}
	switch r.Kind {
	case ir.String:
		if rule := e.stringRule(r, ""); rule != "" {
			return value("ShapeString", jen.Dict{jen.Id("Rule"): jen.Op("&").Id(rule)})
		}
		return jen.Op("&").Add(wireName("String"))
	case ir.Bool:
		return jen.Op("&").Add(wireName("Bool"))
	case ir.Int:
		if rule := intRule(r); rule != nil {
			return value(shapeNames[r.Format], jen.Dict{jen.Id("Ints"): jen.Op("&").Add(wireName("IntRule")).Values(rule)})
		}
		return jen.Op("&").Add(wireName(scalarValues[r.Format]))
	case ir.Float:
		if bounds := floatBounds(r); len(bounds) > 0 {
			return value("ShapeFloat64", jen.Dict{jen.Id("Floats"): jen.Index().Add(wireName("FloatBound")).Values(bounds...)})
		}
		return jen.Op("&").Add(wireName("Float64"))
	case ir.Raw, ir.Routed:
		return jen.Op("&").Add(wireName("RawJSON"))
	case ir.Named:
		u := r.Type.Underlying()
		if u.Kind == ir.Alias && scalar(u.Target) && tabular(u.Target) {
			// A named scalar has the scalar's layout and checks.
			return e.tableValue(u.Target)
		}
		if e.cold(u) {
			return value("ShapeObject", jen.Dict{jen.Id("Object"): jen.Op("&").Id(objectTable(u))})
		}
		if e.coldUnion(u) {
			return value("ShapeUnion", jen.Dict{jen.Id("Union"): jen.Op("&").Id(unionTable(u.Union))})
		}
		if stringEnum(u) {
			return value("ShapeEnum", jen.Dict{jen.Id("Enum"): jen.Op("&").Id(enumTable(u))})
		}
		return value("ShapeCoded", jen.Dict{jen.Id("Coded"): jen.Parens(jen.Op("*").Id(r.Type.Name)).Call(jen.Nil())})
	case ir.Array:
		fields := jen.Dict{jen.Id("Elem"): e.tableValue(r.Elem)}
		if counts := itemCounts(r); counts != nil {
			fields[jen.Id("Items")] = jen.Op("&").Add(wireName("IntRule")).Values(counts)
		}
		if r.SkipInvalidItems {
			fields[jen.Id("SkipInvalid")] = jen.True()
		}
		return value("ShapeSlice", fields)
	case ir.Map:
		return value("ShapeMap", jen.Dict{jen.Id("Elem"): e.tableValue(r.Elem)})
	}
	panic("tableValue")
}

// stringEnum reports a string enumeration, which decodes and validates
// with a wire.Enum of its values (a closed one) or as any string (an open
// one) instead of a switch, hot or cold: a switch over a few strings is no
// faster than the table's loop.
func stringEnum(t *ir.Type) bool { return t.Kind == ir.Enum && t.EnumBase.Kind == ir.String }

// enumTable names the package variable holding a cold enum's wire.Enum.
func enumTable(t *ir.Type) string { return "enum" + t.Name }

// stringEnumCodec declares t's wire.Enum (the values of a closed enum) and
// its MarshalJSON and UnmarshalJSON.
func (e *emitter) stringEnumCodec(f *jen.File, t *ir.Type) {
	tbl := jen.Dict{
		jen.Id("Name"): jen.Lit(t.Name),
		jen.Id("Type"): jen.Parens(jen.Op("*").Id(t.Name)).Call(jen.Nil()),
	}
	if t.EnumOpen {
		tbl[jen.Id("Open")] = jen.True()
	} else {
		var vals []jen.Code
		for _, v := range t.EnumValues {
			vals = append(vals, jen.Lit(v.String))
		}
		tbl[jen.Id("Values")] = jen.Index().String().Values(vals...)
	}
	f.Var().Id(enumTable(t)).Op("=").Add(wireName("Enum")).Values(tbl)
	f.Comment("MarshalJSON encodes v with its table.")
	marshalJSON(f, t.Name).Block(
		jen.Return(jen.Id(enumTable(t)).Dot("AppendValue").Call(jen.Nil(), jen.Id("v")), jen.Nil()))
	tableUnmarshal(f, t.Name, jen.Op("&").Id(enumTable(t)))
}

// scalarAlias reports a named scalar (type SessionID string) whose checks
// the interpreter makes as its generated code would. Its table is a
// wire.Scalar; generated code reads, writes and checks its values as the
// scalar they are, converted, with no methods of the type in between.
func scalarAlias(t *ir.Type) bool {
	return t.Kind == ir.Alias && scalar(t.Target) && tabular(t.Target)
}

// scalarTable names the package variable holding a named scalar's wire.Scalar.
func scalarTable(t *ir.Type) string { return "scalar" + t.Name }

// asScalar is the named scalar value expr (a pointer to it when ptr)
// converted to its scalar type.
func asScalar(t *ir.Type, expr *jen.Statement, ptr bool) *jen.Statement {
	if ptr {
		expr = jen.Op("*").Add(expr.Clone())
	}
	return goType(t.Target).Call(expr)
}

// scalarCodec declares named scalar t's wire.Scalar and its MarshalJSON and
// UnmarshalJSON.
func (e *emitter) scalarCodec(f *jen.File, t *ir.Type) {
	f.Var().Id(scalarTable(t)).Op("=").Add(wireName("Scalar")).Values(jen.Dict{
		jen.Id("Type"):  jen.Parens(jen.Op("*").Id(t.Name)).Call(jen.Nil()),
		jen.Id("Value"): e.tableValue(t.Target),
	})
	f.Comment("MarshalJSON encodes v with its table.")
	marshalJSON(f, t.Name).Block(
		jen.Return(jen.Id(scalarTable(t)).Dot("AppendValue").Call(jen.Nil(), jen.Id("v")), jen.Nil()))
	tableUnmarshal(f, t.Name, jen.Op("&").Id(scalarTable(t)))
}
