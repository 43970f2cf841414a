package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// wireName is runtime/wire's exported identifier name, qualified.
func wireName(name string) *jen.Statement { return jen.Qual(WirePath, name) }

// shapeName names a value shape for helper functions (decodeSliceContentBlock).
func shapeName(r *ir.Ref) string {
	switch r.Kind {
	case ir.String:
		return "String"
	case ir.Bool:
		return "Bool"
	case ir.Int:
		return strings.ToUpper(r.Format[:1]) + r.Format[1:]
	case ir.Float:
		return "Float64"
	case ir.Raw, ir.Routed:
		return "Raw"
	case ir.Named:
		return r.Type.Name
	case ir.Array:
		n := ""
		if r.ElemNullable && pointerable(r.Elem) {
			n = "Nullable"
		}
		return "Slice" + n + shapeName(r.Elem)
	case ir.Map:
		n := ""
		if r.ElemNullable && pointerable(r.Elem) {
			n = "Nullable"
		}
		return "Map" + n + shapeName(r.Elem)
	}
	panic("shape")
}

var readers = map[string]string{"int32": "ReadInt32", "uint16": "ReadUint16", "uint32": "ReadUint32", "int64": "ReadInt64", "uint64": "ReadUint64"}

// scalarSuffix names a scalar shape in the runtime's value functions
// (wire.DecodeString, wire.EncodeInt32).
func scalarSuffix(r *ir.Ref) string {
	switch r.Kind {
	case ir.String:
		return "String"
	case ir.Bool:
		return "Bool"
	case ir.Int:
		return strings.TrimPrefix(readers[r.Format], "Read")
	case ir.Float:
		return "Float64"
	case ir.Raw, ir.Routed:
		return "Raw"
	}
	return ""
}

// decodeTo returns an expression decoding the next value into target, of
// shape r, or into *target when ptr; it evaluates to the error.
func (e *emitter) decodeTo(r *ir.Ref, target *jen.Statement, ptr bool) *jen.Statement {
	if r.Kind == ir.Named {
		if u := r.Type.Underlying(); scalarAlias(u) {
			return e.decodeTo(u.Target, jen.Parens(jen.Op("*").Add(goType(u.Target))).Call(addr(target, ptr)), true)
		}
		if tbl := e.tableVar(r.Type); tbl != "" {
			return jen.Id(tbl).Dot("DecodeValue").Call(jen.Id("d"), addr(target, ptr))
		}
		return target.Clone().Dot("DecodeJSON").Call(jen.Id("d"))
	}
	addr := target.Clone()
	if !ptr {
		addr = jen.Op("&").Add(target.Clone())
	}
	switch r.Kind {
	case ir.Array:
		if list := e.listVar(r); list != "" {
			return jen.Id(list).Dot("DecodeValue").Call(jen.Id("d"), addr)
		}
		fn := "DecodeSlice"
		if r.ElemNullable && pointerable(r.Elem) {
			fn = "DecodeNullableSlice"
		}
		return wireName(fn).Call(jen.Id("d"), addr, jen.Lit(r.SkipInvalidItems), e.elemDecoder(r.Elem))
	case ir.Map:
		switch {
		case r.ElemNullable && pointerable(r.Elem):
			return wireName("DecodeNullableMap").Call(jen.Id("d"), addr, e.elemDecoder(r.Elem))
		case r.Elem.Kind == ir.Raw || r.Elem.Kind == ir.Routed:
			return wireName("DecodeRawMap").Call(jen.Id("d"), addr)
		}
		return wireName("DecodeMap").Call(jen.Id("d"), addr, e.elemDecoder(r.Elem))
	}
	return wireName("Decode"+scalarSuffix(r)).Call(addr, jen.Id("d"))
}

// decodeInto returns statements that declare x (of shape r's Go type),
// decode the next value into it and leave any failure in err.
func (e *emitter) decodeInto(r *ir.Ref) []jen.Code {
	return []jen.Code{jen.Var().Id("x").Add(goType(r)), jen.Err().Op(":=").Add(e.decodeTo(r, jen.Id("x"), false))}
}

// elemDecoder is the func(*T, *wire.Decoder) error decoding one item of
// shape r in place: a runtime function, a DecodeJSON method expression, or
// a helper for a nested container.
func (e *emitter) elemDecoder(r *ir.Ref) jen.Code {
	switch r.Kind {
	case ir.Named:
		if tbl := e.tableVar(r.Type); tbl != "" {
			return e.tableHelper("decode", r.Type, func(f *jen.File, name string) {
				f.Func().Id(name).Params(jen.Id("p").Op("*").Id(r.Type.Name), decoderParam()).Error().Block(
					jen.Return(jen.Id(tbl).Dot("DecodeValue").Call(jen.Id("d"), jen.Id("p"))))
			})
		}
		return jen.Parens(jen.Op("*").Id(r.Type.Name)).Dot("DecodeJSON")
	case ir.Array, ir.Map:
		name := "decode" + shapeName(r)
		if r.SkipInvalidItems {
			name += "SkipInvalid"
		}
		return jen.Id(e.helper(name, func(f *jen.File) {
			f.Func().Id(name).Params(jen.Id("p").Op("*").Add(goType(r)), decoderParam()).Error().Block(
				jen.Return(e.decodeTo(r, jen.Id("p"), true)))
			f.Line()
		}))
	}
	return wireName("Decode" + scalarSuffix(r))
}

// elemEncoder is the func(*T, []byte) []byte appending one item of shape r.
func (e *emitter) elemEncoder(r *ir.Ref) jen.Code {
	switch r.Kind {
	case ir.Named:
		if tbl := e.tableVar(r.Type); tbl != "" {
			return e.tableHelper("append", r.Type, func(f *jen.File, name string) {
				f.Func().Id(name).Params(jen.Id("p").Op("*").Id(r.Type.Name), jen.Id("b").Index().Byte()).Index().Byte().Block(
					jen.Return(jen.Id(tbl).Dot("AppendValue").Call(jen.Id("b"), jen.Id("p"))))
			})
		}
		return jen.Parens(jen.Op("*").Id(r.Type.Name)).Dot("AppendJSON")
	case ir.Array, ir.Map:
		name := "append" + shapeName(r)
		return jen.Id(e.helper(name, func(f *jen.File) {
			f.Func().Id(name).Params(jen.Id("p").Op("*").Add(goType(r)), jen.Id("b").Index().Byte()).Index().Byte().Block(
				jen.Return(e.appendCall(r, jen.Id("b"), jen.Op("*").Id("p"), false)))
			f.Line()
		}))
	}
	return wireName("Encode" + scalarSuffix(r))
}

// appendCall is the expression appending a value expression of shape r to
// b. A named value must be addressable (their AppendJSON has a pointer
// receiver, a table takes the address), or a pointer to it when ptr.
func (e *emitter) appendCall(r *ir.Ref, b, expr *jen.Statement, ptr bool) *jen.Statement {
	switch r.Kind {
	case ir.String:
		return wireName("AppendString").Call(b, expr)
	case ir.Bool:
		return wireName("AppendBool").Call(b, expr)
	case ir.Int:
		if strings.HasPrefix(r.Format, "u") {
			return wireName("AppendUint").Call(b, jen.Uint64().Call(expr))
		}
		return wireName("AppendInt").Call(b, jen.Int64().Call(expr))
	case ir.Float:
		return wireName("AppendFloat").Call(b, expr)
	case ir.Raw, ir.Routed:
		return wireName("AppendRaw").Call(b, expr)
	case ir.Array:
		if list := e.listVar(r); list != "" {
			return jen.Id(list).Dot("AppendValue").Call(b, addr(expr, ptr))
		}
		fn := "AppendSlice"
		if r.ElemNullable && pointerable(r.Elem) {
			fn = "AppendNullableSlice"
		}
		return wireName(fn).Call(b, expr, e.elemEncoder(r.Elem))
	case ir.Map:
		switch {
		case r.ElemNullable && pointerable(r.Elem):
			return wireName("AppendNullableMap").Call(b, expr, e.elemEncoder(r.Elem))
		case r.Elem.Kind == ir.Raw || r.Elem.Kind == ir.Routed:
			return wireName("AppendRawMap").Call(b, expr)
		}
		return wireName("AppendMap").Call(b, expr, e.elemEncoder(r.Elem))
	case ir.Named:
		if u := r.Type.Underlying(); scalarAlias(u) {
			return e.appendCall(u.Target, b, asScalar(u, expr, ptr), false)
		}
		if tbl := e.tableVar(r.Type); tbl != "" {
			return jen.Id(tbl).Dot("AppendValue").Call(b, addr(expr, ptr))
		}
		return expr.Dot("AppendJSON").Call(b)
	}
	panic("appendCall")
}

// appendValue returns `b = <append expr>` for a value expression of shape r.
func (e *emitter) appendValue(r *ir.Ref, expr *jen.Statement) jen.Code {
	return jen.Id("b").Op("=").Add(e.appendCall(r, jen.Id("b"), expr, false))
}

// appendPointed is appendValue for a pointer expr to a named value (a
// scalar's pointer is dereferenced first, as derefIfScalar does).
func (e *emitter) appendPointed(r *ir.Ref, expr *jen.Statement) jen.Code {
	return jen.Id("b").Op("=").Add(e.appendCall(r, jen.Id("b"), derefIfScalar(r, expr), r.Kind == ir.Named))
}

// tableHelper is a function reaching named type t through its table, for
// runtime helpers that take one per item (wire.DecodeSlice's): declared
// once, by emit.
func (e *emitter) tableHelper(verb string, t *ir.Type, emit func(f *jen.File, name string)) jen.Code {
	name := verb + t.Name
	return jen.Id(e.helper(name, func(f *jen.File) {
		emit(f, name)
		f.Line()
	}))
}

// listVar names the wire.List through which generated code decodes and
// encodes arrays of shape r, declared once per shape; "" for an array whose
// items may be null, which keeps the generic runtime functions. A generic
// DecodeSlice or AppendSlice would be compiled again for every item type
// (items are structs of distinct shapes): those copies were 7% of gen/acp's
// compile (instructions, counted with cachegrind).
func (e *emitter) listVar(r *ir.Ref) string {
	v := listValue(e, r)
	if v == nil {
		return ""
	}
	name := "list" + shapeName(r)
	if r.SkipInvalidItems {
		name += "SkipInvalid"
	}
	return e.helper(name, func(f *jen.File) {
		f.Var().Id(name).Op("=").Add(wireName("List")).Values(jen.Dict{
			jen.Id("Type"):  jen.Parens(jen.Op("*").Add(goType(r))).Call(jen.Nil()),
			jen.Id("Value"): v,
		})
		f.Line()
	})
}

// listValue is the *wire.Value an interpreted array of shape r is decoded
// and encoded with: shapes only, since generated code validates it. nil when
// an array in r has items that may be null.
func listValue(e *emitter, r *ir.Ref) jen.Code {
	switch r.Kind {
	case ir.Array, ir.Map:
		if r.ElemNullable {
			return nil
		}
		elem := listValue(e, r.Elem)
		if elem == nil {
			return nil
		}
		fields := jen.Dict{jen.Id("Shape"): wireName("ShapeMap"), jen.Id("Elem"): elem}
		if r.Kind == ir.Array {
			fields = jen.Dict{jen.Id("Shape"): wireName("ShapeSlice"), jen.Id("Elem"): elem}
			if r.SkipInvalidItems {
				fields[jen.Id("SkipInvalid")] = jen.True()
			}
		}
		return jen.Op("&").Add(wireName("Value")).Values(fields)
	case ir.String:
		return jen.Op("&").Add(wireName("String"))
	case ir.Bool:
		return jen.Op("&").Add(wireName("Bool"))
	case ir.Int:
		return jen.Op("&").Add(wireName(scalarValues[r.Format]))
	case ir.Float:
		return jen.Op("&").Add(wireName("Float64"))
	case ir.Named:
		if u := r.Type.Underlying(); scalarAlias(u) {
			return listValue(e, u.Target)
		}
	}
	return e.tableValue(r)
}

// ---- helpers for nested containers, emitted once per shape ----

func (e *emitter) helper(name string, fn func(*jen.File)) string {
	if !e.helpers[name] {
		e.helpers[name] = true
		e.pending = append(e.pending, fn)
	}
	return name
}

func derefIfScalar(r *ir.Ref, expr *jen.Statement) *jen.Statement {
	if r.Kind == ir.Named {
		return expr
	}
	return jen.Op("*").Add(expr)
}

// ---- per-type codecs ----

func recv(t string) *jen.Statement { return jen.Params(jen.Id("v").Op("*").Id(t)) }

func decoderParam() jen.Code { return jen.Id("d").Op("*").Add(wireName("Decoder")) }

func (e *emitter) codecs(f *jen.File) {
	for _, t := range e.m.Types {
		if e.cold(t) {
			e.coldCodec(f, t)
			continue
		}
		switch t.Kind {
		case ir.Struct:
			e.structCodec(f, t)
			if t.Union != nil {
				e.unionMembers(f, t.Union, false)
			}
		case ir.ObjectUnion:
			if e.coldUnion(t) {
				e.coldUnionCodec(f, t)
				continue
			}
			e.unionMembers(f, t.Union, true)
			e.objectEntry(f, t, true)
		case ir.ValueUnion:
			e.valueUnion(f, t)
		case ir.Enum:
			if stringEnum(t) {
				e.stringEnumCodec(f, t)
				continue
			}
			e.enumCodec(f, t)
		case ir.Alias:
			if scalarAlias(t) {
				e.scalarCodec(f, t)
				continue
			}
			if t.Target.Kind != ir.Named {
				e.aliasCodec(f, t)
			}
		}
		if !(t.Kind == ir.Alias && t.Target.Kind == ir.Named) {
			e.stdInterop(f, t.Name, t.Kind == ir.Struct || t.Kind == ir.ObjectUnion || t.Kind == ir.ValueUnion)
		}
	}
	e.tableOf(f)
	e.flushHelpers(f)
}

// tableOf emits TableOf, the one entry through which code outside the
// package reaches a type's table: a type described by data has no codec
// methods to call. The types are a static wire.Index, looked up by the
// runtime.
func (e *emitter) tableOf(f *jen.File) {
	var entries []jen.Code
	for _, t := range e.m.Types {
		if tbl := e.tableVar(t); tbl != "" && t.Underlying() == t {
			entries = append(entries, jen.Values(
				jen.Id("Type").Op(":").Parens(jen.Op("*").Id(t.Name)).Call(jen.Nil()),
				jen.Id("Table").Op(":").Op("&").Id(tbl)))
		}
	}
	f.Var().Id("tables").Op("=").Add(wireName("Index")).Values(jen.Dict{
		jen.Id("Entries"): jen.Index().Add(wireName("Indexed")).ValuesFunc(func(g *jen.Group) {
			for _, x := range entries {
				g.Line().Add(x)
			}
			g.Line()
		}),
	})
	f.Comment("TableOf is the wire.Table of the generated type v points to (wire.OwnCodec for")
	f.Comment("a type with codec methods of its own, nil for another type): what decodes")
	f.Comment("(wire.DecodeWith), encodes and validates any type of the package from outside")
	f.Comment("it. Only a program that calls it links every table.")
	f.Func().Id("TableOf").Params(jen.Id("v").Any()).Qual(WirePath, "Table").Block(
		jen.Return(jen.Id("tables").Dot("Of").Call(jen.Id("v"))))
	f.Line()
}

// flushHelpers writes the helpers requested since the last flush; writing
// one may request more.
func (e *emitter) flushHelpers(f *jen.File) {
	for ; e.flushed < len(e.pending); e.flushed++ {
		e.pending[e.flushed](f)
	}
}

// marshalJSON starts type name's value-receiver MarshalJSON; Block adds the
// body. It is kept out of line: inlined, it would be compiled a second time
// into the pointer-receiver wrapper Go generates for it, with the copy of v
// to the heap (3% of gen/acp's compile, counted with cachegrind).
func marshalJSON(f *jen.File, name string) *jen.Statement {
	f.Comment("//go:noinline")
	return f.Func().Params(jen.Id("v").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error())
}

// unmarshalJSON starts type name's UnmarshalJSON; Block adds the body. It
// is kept out of line, so its body is not written into the package's export
// data for callers to inline: one call more for a caller, less to compile
// in every type (0.3% of gen/acp's compile, counted with cachegrind).
func unmarshalJSON(f *jen.File, name string) *jen.Statement {
	f.Comment("UnmarshalJSON decodes data leniently, as the official SDKs accept it.")
	f.Comment("")
	f.Comment("//go:noinline")
	return f.Func().Add(recv(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error()
}

// stdInterop makes every type usable with encoding/json, through the fast paths.
func (e *emitter) stdInterop(f *jen.File, name string, checked bool) {
	if checked {
		f.Comment("MarshalJSON encodes v with its generated encoder. It fails with a *wire.EncodeError,")
		f.Comment("naming the union and its variants, when a union in v has no variant or several set.")
		marshalJSON(f, name).Block(
			jen.Return(jen.Id("marshal").Call(jen.Op("&").Id("v"), jen.Lit(e.o.Package+"."+name))),
		)
		e.helper("marshal", func(f *jen.File) {
			f.Comment("marshal encodes x for encoding/json after checking that every union in it has exactly")
			f.Comment("one variant set: AppendJSON would write an empty object or only the first variant.")
			f.Func().Id("marshal").Params(jen.Id("x").Interface(jen.Qual(WirePath, "Appender"), jen.Id(validateWith).Params(jen.Op("*").Qual(WirePath, "Validator"))), jen.Id("typ").String()).Params(jen.Index().Byte(), jen.Error()).Block(
				jen.Var().Id("v").Qual(WirePath, "Validator"),
				jen.Id("x").Dot(validateWith).Call(jen.Op("&").Id("v")),
				jen.If(jen.Err().Op(":=").Id("v").Dot("EncodeErr").Call(jen.Id("typ")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("x").Dot("AppendJSON").Call(jen.Nil()), jen.Nil()),
			)
			f.Line()
		})
	} else {
		f.Comment("MarshalJSON encodes v with its generated encoder.")
		marshalJSON(f, name).Block(
			jen.Return(jen.Id("v").Dot("AppendJSON").Call(jen.Nil()), jen.Nil()),
		)
	}
	unmarshalJSON(f, name).Block(
		jen.Return(wireName("Decode").Call(jen.Id("data"), jen.Id("v"), wireName("Lenient"))),
	)
	f.Line()
}

// objectEntry emits DecodeJSON/AppendJSON for object-shaped types, on top of
// their member-level methods. The decode loop is emitted per type (not shared
// through an interface) so the required-member masks stay on the stack.
func (e *emitter) objectEntry(f *jen.File, t *ir.Type, union bool) {
	name := t.Name
	fallback, holder := objectFallback(t, union)
	body := decodeObjectBody(t, union, fallback, holder)
	if fallback == nil {
		f.Comment(fmt.Sprintf("DecodeJSON decodes one %s object, keeping unknown members.", name))
		f.Func().Add(recv(name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(body...)
	} else {
		f.Comment(fmt.Sprintf("DecodeJSON decodes one %s object, keeping unknown members. When the tagged variant fails, the object is retried as %s, as anyOf allows.", name, fallback.Name))
		f.Func().Add(recv(name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(
			jen.Id("m").Op(":=").Id("d").Dot("Mark").Call(),
			jen.Err().Op(":=").Id("v").Dot("decodeObject").Call(jen.Id("d"), jen.False()),
			jen.If(jen.Err().Op("==").Nil().Op("||").Qual(WirePath, "IsSyntax").Call(jen.Err()).Op("||").Add(holder.Clone()).Dot(fallback.Name).Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("d").Dot("Rewind").Call(jen.Id("m")),
			jen.If(jen.Id("v").Dot("decodeObject").Call(jen.Id("d"), jen.True()).Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Return(jen.Nil()),
		)
		f.Func().Add(recv(name)).Id("decodeObject").Params(decoderParam(), jen.Id("asFallback").Bool()).Error().Block(body...)
	}
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Index().Byte().Block(
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{')),
		jen.List(jen.Id("b"), jen.Id("_")).Op("=").Id("v").Dot("appendFields").Call(jen.Id("b"), jen.False()),
		jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}'))),
	)
	f.Line()
}

// objectFallback is the untagged fallback variant of an anyOf union t, which
// accepts an object whose tagged variant fails (decoding retries it that way),
// and holder, the union value: v itself, or v's embedded union field.
// fallback is nil when t has none, holder when t is no anyOf union.
func objectFallback(t *ir.Type, union bool) (fallback *ir.Variant, holder *jen.Statement) {
	if t.Union == nil || t.Union.Exclusive {
		return nil, nil
	}
	for _, vr := range t.Union.Variants {
		if vr.Role == ir.Fallback {
			fallback = vr
		}
	}
	holder = jen.Id("v")
	if !union {
		holder = jen.Id("v").Dot(t.Union.FieldName())
	}
	return fallback, holder
}

// decodeObjectBody decodes one object of t into v: the union's variant
// selected first (or, asFallback, the fallback set up), then the members,
// through the runtime's one object loop.
func decodeObjectBody(t *ir.Type, union bool, fallback *ir.Variant, holder *jen.Statement) []jen.Code {
	var pre []jen.Code
	pre = append(pre, jen.Op("*").Id("v").Op("=").Id(t.Name).Values())
	if t.Union != nil {
		sel := jen.If(jen.Err().Op(":=").Id("v").Dot("selectVariant").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		if fallback != nil {
			init := []jen.Code{holder.Clone().Dot(fallback.Name).Op("=").New(jen.Id(fallback.Payload.Type.Name))}
			if fallback.Payload.Type.Union != nil {
				init = append(init, jen.If(jen.Err().Op(":=").Add(holder.Clone()).Dot(fallback.Name).Dot("selectVariant").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
			}
			pre = append(pre, jen.If(jen.Id("asFallback")).Block(init...).Else().Block(sel))
		} else {
			pre = append(pre, sel)
		}
	}
	sink := jen.Op("&").Id("v").Dot("Unknown")
	if union {
		sink = jen.Id("v").Dot("unknownSink").Call()
	}
	var members, required jen.Code = jen.Nil(), jen.Nil()
	if hasMembersTable(t) {
		members = jen.Op("&").Id(membersTable(t))
	}
	if t.Union != nil {
		required = jen.Id("v").Dot("required")
	}
	return append(pre, jen.Return(wireName("DecodeObject").Call(jen.Id("d"), sink, jen.Id("v").Dot("decodeField"), members, required)))
}

// requiredNames are the JSON names of t's own required members, by slot.
func requiredNames(t *ir.Type) []string {
	var out []string
	for _, fl := range t.Fields {
		if fl.Required {
			out = append(out, fl.JSON)
		}
	}
	return out
}

// hasMembersTable says whether struct t has a wire.Members table: required
// members or aliases.
func hasMembersTable(t *ir.Type) bool {
	return t.Kind == ir.Struct && (len(requiredNames(t)) > 0 || len(aliasedFields(t)) > 0)
}

// membersTable names the package variable holding t's wire.Members.
func membersTable(t *ir.Type) string { return "members" + t.Name }

// membersTableDecl declares t's wire.Members: its required members by slot
// and its alias table.
func membersTableDecl(f *jen.File, t *ir.Type) {
	if !hasMembersTable(t) {
		return
	}
	vals := jen.Dict{}
	if names := requiredNames(t); len(names) > 0 {
		var lits []jen.Code
		for _, n := range names {
			lits = append(lits, jen.Lit(n))
		}
		vals[jen.Id("Required")] = jen.Index().String().Values(lits...)
	}
	if len(aliasedFields(t)) > 0 {
		vals[jen.Id("Aliases")] = jen.Id(aliasTable(t))
	}
	f.Var().Id(membersTable(t)).Op("=").Add(wireName("Members")).Values(vals)
}

// aliasedFields are t's members that have other names.
func aliasedFields(t *ir.Type) []*ir.Field {
	var out []*ir.Field
	for _, f := range t.Fields {
		if len(f.Aliases) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// aliasTable names the package variable holding t's alias table.
func aliasTable(t *ir.Type) string { return "aliases" + t.Name }

// aliasTableDecl declares t's alias table, when t has aliases: the runtime
// reads the aliases with it, so decoding needs no per-alias code.
func aliasTableDecl(f *jen.File, t *ir.Type) {
	var rows []jen.Code
	for _, fl := range aliasedFields(t) {
		for _, a := range fl.Aliases {
			rows = append(rows, wireName("Alias").Values(jen.Id("Name").Op(":").Lit(a), jen.Id("Member").Op(":").Lit(fl.JSON)))
		}
	}
	if len(rows) == 0 {
		return
	}
	f.Comment(fmt.Sprintf("%s lists the other names of %s's members, in precedence order: lenient decoding", aliasTable(t), t.Name))
	f.Comment("reads one when the member itself is absent; strict decoding refuses them; encoding writes the member's own name.")
	f.Var().Id(aliasTable(t)).Op("=").Add(wireName("NewAliases")).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, rows...)
}

func (e *emitter) structCodec(f *jen.File, t *ir.Type) {
	aliasTableDecl(f, t)
	membersTableDecl(f, t)
	e.objectEntry(f, t, false)
	// decodeField
	var cases []jen.Code
	slot := 0
	for _, fl := range t.Fields {
		cases = append(cases, jen.Case(jen.Lit(fl.JSON)).Block(e.fieldDecode(fl, &slot)...))
	}
	var tail jen.Code = jen.Return(wireName("NotMember"), jen.Nil())
	if t.Union != nil {
		tail = jen.Return(wireName("Inner").Call(jen.Id("v").Dot(t.Union.FieldName()).Dot("decodeField").Call(jen.Id("d"), jen.Id("key"))))
	}
	var sw jen.Code = jen.Null()
	if len(cases) > 0 {
		sw = jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...)
	}
	f.Comment("decodeField decodes the member named key; it returns a required member's slot, wire.Optional or wire.NotMember.")
	f.Func().Add(recv(t.Name)).Id("decodeField").Params(decoderParam(), jen.Id("key").Index().Byte()).Params(jen.Int(), jen.Error()).Block(sw, tail)
	if t.Union != nil {
		var own jen.Code = jen.Nil()
		if hasMembersTable(t) {
			own = jen.Id(membersTable(t)).Dot("Required")
		}
		f.Comment("required names the required members of level w: v's own, then the selected variant's.")
		f.Func().Add(recv(t.Name)).Id("required").Params(jen.Id("w").Int()).Index().String().Block(
			jen.If(jen.Id("w").Op("==").Lit(0)).Block(jen.Return(own)),
			jen.Return(jen.Id("v").Dot(t.Union.FieldName()).Dot("required").Call(jen.Id("w").Op("-").Lit(1))))
	}
	if t.Union != nil {
		f.Comment("selectVariant picks the variant from the object ahead, before its members are read.")
		f.Func().Add(recv(t.Name)).Id("selectVariant").Params(decoderParam()).Error().Block(
			jen.Return(jen.Id("v").Dot(t.Union.FieldName()).Dot("selectVariant").Call(jen.Id("d"))))
	}
	// appendFields
	var enc []jen.Code
	for _, fl := range t.Fields {
		enc = append(enc, e.fieldEncode(fl)...)
	}
	if t.Union != nil {
		enc = append(enc, jen.List(jen.Id("b"), jen.Id("comma")).Op("=").Id("v").Dot(t.Union.FieldName()).Dot("appendFields").Call(jen.Id("b"), jen.Id("comma")))
	}
	enc = append(enc, jen.Return(jen.Id("v").Dot("Unknown").Dot("AppendMembers").Call(jen.Id("b"), jen.Id("comma"))))
	f.Comment("appendFields appends v's members, comma-separated; comma says whether one was written before.")
	f.Func().Add(recv(t.Name)).Id("appendFields").Params(jen.Id("b").Index().Byte(), jen.Id("comma").Bool()).Params(jen.Index().Byte(), jen.Bool()).Block(enc...)
	f.Line()
}

func zeroOf(fl *ir.Field) jen.Code {
	if fieldPtr(fl) || nilable(fl.Ref) {
		return jen.Nil()
	}
	switch fl.Ref.Kind {
	case ir.String:
		return jen.Lit("")
	case ir.Bool:
		return jen.False()
	case ir.Int, ir.Float:
		return jen.Lit(0)
	}
	return jen.Id(fl.Ref.Type.Name).Values()
}

// fieldDecode decodes member fl; slot counts the required members so far.
func (e *emitter) fieldDecode(fl *ir.Field, slot *int) []jen.Code {
	var out []jen.Code
	var ret jen.Code = wireName("Optional")
	if fl.Required {
		ret = jen.Lit(*slot)
		*slot++
	}
	target := jen.Id("v").Dot(fl.Name)
	if fl.Nullable && fl.DefaultOnError && fl.Ref.Kind == ir.Map && fl.Ref.Elem.Kind == ir.Raw && !fl.Ref.ElemNullable {
		return append(out, jen.Return(ret, wireName("DecodeRawMapMember").Call(jen.Id("d"), jen.Op("&").Add(target), jen.Lit(fl.JSON))))
	}
	if fl.Nullable {
		out = append(out, jen.If(jen.Id("d").Dot("TryNull").Call()).Block(target.Clone().Op("=").Add(zeroOf(fl)), jen.Return(ret, jen.Nil())))
	} else if fl.DefaultOnNull {
		out = append(out, jen.If(jen.Id("d").Dot("Lenient").Call().Op("&&").Id("d").Dot("TryNull").Call()).Block(target.Clone().Op("=").Add(zeroOf(fl)), jen.Return(ret, jen.Nil())))
	}
	if fieldPtr(fl) {
		out = append(out, target.Clone().Op("=").New(goType(fl.Ref)))
	}
	dec := e.decodeTo(fl.Ref, target, fieldPtr(fl))
	if !fl.DefaultOnError {
		return append(out, jen.Return(ret, wireName("AtKey").Call(dec, jen.Lit(fl.JSON))))
	}
	// Lenient decoding treats a value that fails to decode as absent.
	return append(out,
		jen.Id("m").Op(":=").Id("d").Dot("Mark").Call(),
		jen.If(jen.Err().Op(":=").Add(dec), jen.Err().Op("!=").Nil()).Block(
			target.Clone().Op("=").Add(zeroOf(fl)),
			jen.Return(ret, wireName("AtKey").Call(jen.Id("d").Dot("Recover").Call(jen.Id("m"), jen.Err()), jen.Lit(fl.JSON))),
		),
		jen.Return(ret, jen.Nil()))
}

func (e *emitter) fieldEncode(fl *ir.Field) []jen.Code {
	v := jen.Id("v").Dot(fl.Name)
	write := func(val jen.Code) []jen.Code {
		return []jen.Code{jen.Id("b").Op("=").Add(wireName("Key")).Call(jen.Id("b"), jen.Op("&").Id("comma"), jen.Lit(fmt.Sprintf("%q:", fl.JSON))), val}
	}
	null := jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("..."))
	switch {
	case fieldPtr(fl):
		val := e.appendPointed(fl.Ref, v.Clone())
		if fl.Required {
			return []jen.Code{jen.If(v.Clone().Op("==").Nil()).Block(write(null)...).Else().Block(write(val)...)}
		}
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(write(val)...)}
	case nilable(fl.Ref):
		val := e.appendValue(fl.Ref, v.Clone())
		if !fl.Required {
			return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(write(val)...)}
		}
		if fl.Nullable {
			return []jen.Code{jen.If(v.Clone().Op("==").Nil()).Block(write(null)...).Else().Block(write(val)...)}
		}
	}
	return write(e.appendValue(fl.Ref, v.Clone()))
}

// unionMembers emits the member-level methods of an object union (standalone
// or embedded in a struct).
func (e *emitter) unionMembers(f *jen.File, u *ir.Union, standalone bool) {
	name := u.Name
	var sel []jen.Code
	if u.Discriminator != "" {
		sel = selectByTag(u)
	} else {
		sel = selectByShape(u)
	}
	f.Comment("selectVariant picks the variant from the object ahead, before its members are read.")
	f.Func().Add(recv(name)).Id("selectVariant").Params(decoderParam()).Error().Block(sel...)

	// decodeField, required, appendFields, unknownSink
	// tagged are the variants whose tag selectVariant read: the tag member
	// is skipped, checked once ahead of the variants rather than in each.
	var dec, chk, enc, sink, tagged []jen.Code
	for _, v := range u.Variants {
		active := jen.Id("v").Dot(v.Name).Op("!=").Nil()
		if v.Role == ir.Tagged || v.Role == ir.Absent {
			tagged = append(tagged, active.Clone())
		}
		dec = append(dec, jen.Case(active.Clone()).Block(jen.Return(e.payloadField(v))))
		chk = append(chk, jen.Case(active.Clone()).Block(jen.Return(e.variantRequired(v))))
		var en []jen.Code
		if v.Role == ir.Tagged {
			en = append(en, jen.Id("b").Op("=").Add(wireName("Key")).Call(jen.Id("b"), jen.Op("&").Id("comma"), jen.Lit(fmt.Sprintf("%q:%q", u.Discriminator, v.Tag))))
		}
		en = append(en, jen.Return(e.payloadFields(v)))
		enc = append(enc, jen.Case(active.Clone()).Block(en...))
		sink = append(sink, jen.Case(active.Clone()).Block(jen.Return(variantSink(v))))
	}
	if keepsUnknown(u) {
		active := jen.Id("v").Dot(unknownField).Op("!=").Nil()
		tagged = append(tagged, active.Clone())
		dec = append(dec, jen.Case(active.Clone()).Block(jen.Return(wireName("NotMember"), jen.Nil())))
		enc = append(enc, jen.Case(active.Clone()).Block(jen.Return(jen.Id("v").Dot(unknownField).Dot("AppendFields").Call(jen.Id("b"), jen.Lit(u.Discriminator), jen.Id("comma")))))
		sink = append(sink, jen.Case(active.Clone()).Block(jen.Return(jen.Op("&").Id("v").Dot(unknownField).Dot("Fields"))))
	}
	var body []jen.Code
	if len(tagged) > 0 {
		body = append(body, jen.If(jen.String().Call(jen.Id("key")).Op("==").Lit(u.Discriminator)).Block(
			jen.Switch().Block(jen.Case(tagged...).Block(jen.Return(wireName("Optional"), jen.Id("d").Dot("Skip").Call())))))
	}
	f.Comment("decodeField decodes a member of the selected variant.")
	f.Func().Add(recv(name)).Id("decodeField").Params(decoderParam(), jen.Id("key").Index().Byte()).Params(jen.Int(), jen.Error()).Block(
		append(body, jen.Switch().Block(dec...), jen.Return(wireName("NotMember"), jen.Nil()))...)
	f.Comment("required names the selected variant's required members of level w.")
	f.Func().Add(recv(name)).Id("required").Params(jen.Id("w").Int()).Index().String().Block(
		jen.Switch().Block(chk...), jen.Return(jen.Nil()))
	f.Comment("appendFields appends the selected variant's members, its tag first.")
	f.Func().Add(recv(name)).Id("appendFields").Params(jen.Id("b").Index().Byte(), jen.Id("comma").Bool()).Params(jen.Index().Byte(), jen.Bool()).Block(
		jen.Switch().Block(enc...), jen.Return(jen.Id("b"), jen.Id("comma")))
	if standalone {
		f.Comment("unknownSink is where members no variant declares are kept.")
		f.Func().Add(recv(name)).Id("unknownSink").Params().Op("*").Add(wireName("Fields")).Block(
			jen.Switch().Block(sink...), jen.Return(jen.Nil()))
	}
	f.Line()
}

// variantRequired names variant v's required members of level w: its
// payload's table, or the payload's own required method when it embeds a union.
func (e *emitter) variantRequired(v *ir.Variant) jen.Code {
	t := v.Payload.Type
	if u := t.Underlying(); e.cold(u) {
		return wireName("Level").Call(jen.Id("w"), jen.Id(objectTable(u)).Dot("RequiredNames").Call())
	}
	if t.Union != nil {
		return jen.Id("v").Dot(v.Name).Dot("required").Call(jen.Id("w"))
	}
	var names jen.Code = jen.Nil()
	if hasMembersTable(t) {
		names = jen.Id(membersTable(t)).Dot("Required")
	}
	return wireName("Level").Call(jen.Id("w"), names)
}

// payloadField decodes the member named key of variant v's payload: through
// its table when the payload is cold.
func (e *emitter) payloadField(v *ir.Variant) jen.Code {
	x := jen.Id("v").Dot(v.Name)
	if u := v.Payload.Type.Underlying(); e.cold(u) {
		return wireName("DecodeMember").Call(jen.Id("d"), x, jen.Op("&").Id(objectTable(u)), jen.Id("key"))
	}
	return x.Dot("decodeField").Call(jen.Id("d"), jen.Id("key"))
}

// payloadFields appends the members of variant v's payload.
func (e *emitter) payloadFields(v *ir.Variant) jen.Code {
	x := jen.Id("v").Dot(v.Name)
	if u := v.Payload.Type.Underlying(); e.cold(u) {
		return wireName("AppendMembers").Call(jen.Id("b"), x, jen.Op("&").Id(objectTable(u)), jen.Id("comma"))
	}
	return x.Dot("appendFields").Call(jen.Id("b"), jen.Id("comma"))
}

// initVariant sets variant v to a new payload and, for a payload that is a
// union itself, selects its variant too.
func initVariant(v *ir.Variant) []jen.Code {
	out := []jen.Code{jen.Id("v").Dot(v.Name).Op("=").New(jen.Id(v.Payload.Type.Name))}
	if v.Payload.Type.Union != nil {
		return append(out, jen.Return(jen.Id("v").Dot(v.Name).Dot("selectVariant").Call(jen.Id("d"))))
	}
	return append(out, jen.Return(jen.Nil()))
}

// selectByTag is selectVariant's body for a union with a discriminator: the
// tag's absence, wrong kind or unknown value falls to the variant whose role
// takes it, or is an error (kept as Unknown when lenient).
func selectByTag(u *ir.Union) []jen.Code {
	name := u.Name
	var fallback, catchAll, absent *ir.Variant
	for _, v := range u.Variants {
		switch v.Role {
		case ir.Fallback:
			fallback = v
		case ir.CatchAll:
			catchAll = v
		case ir.Absent:
			absent = v
		}
	}
	var sel []jen.Code
	D := u.Discriminator
	sel = append(sel,
		jen.List(jen.Id("kind"), jen.Id("tag"), jen.Id("found"), jen.Err()).Op(":=").Id("d").Dot("ScanKey").Call(jen.Lit(D)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	)
	var missing []jen.Code
	switch {
	case absent != nil:
		missing = initVariant(absent)
	case fallback != nil:
		missing = initVariant(fallback)
	default:
		missing = []jen.Code{jen.Return(jen.Id("d").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("missing discriminator %q", D))))}
	}
	sel = append(sel, jen.If(jen.Op("!").Id("found").Op("||").Id("kind").Op("==").Add(wireName("KindNull"))).Block(missing...))
	var wrongKind []jen.Code
	if fallback != nil {
		wrongKind = initVariant(fallback)
	} else {
		wrongKind = []jen.Code{jen.Return(wireName("AtKey").Call(jen.Id("d").Dot("TypeError").Call(jen.Lit("string"), jen.Id("kind")), jen.Lit(D)))}
	}
	sel = append(sel, jen.If(jen.Id("kind").Op("!=").Add(wireName("KindString"))).Block(wrongKind...))
	var cases []jen.Code
	for _, v := range u.Variants {
		if v.Role == ir.Tagged {
			cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(initVariant(v)...))
		}
	}
	switch {
	case catchAll != nil:
		cases = append(cases, jen.Default().Block(initVariant(catchAll)...))
	case fallback != nil:
		cases = append(cases, jen.Default().Block(initVariant(fallback)...))
	}
	sel = append(sel, jen.Switch(jen.String().Call(jen.Id("tag"))).Block(cases...))
	if catchAll == nil && fallback == nil {
		sel = append(sel, jen.Comment("Lenient decoding keeps a variant this version does not know."),
			jen.If(jen.Id("d").Dot("Lenient").Call()).Block(
				jen.Id("v").Dot(unknownField).Op("=").Op("&").Add(wireName("UnknownVariant")).Values(jen.Dict{jen.Id("Tag"): jen.String().Call(jen.Id("tag"))}),
				jen.Return(jen.Nil())))
		sel = append(sel, jen.Return(wireName("AtKey").Call(jen.Id("d").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("unknown %s %%q of %s", D, name)), jen.Id("tag")), jen.Lit(D))))
	}
	return sel
}

// selectByShape is selectVariant's body for a union told apart by which
// members are present, tried in SelectOrder.
func selectByShape(u *ir.Union) []jen.Code {
	name := u.Name
	var sel []jen.Code
	var keys []string
	lone := false
	order := u.Variants
	if u.SelectOrder != nil {
		order = u.SelectOrder
	}
	for _, v := range order {
		var blk []jen.Code
		var cond *jen.Statement
		for i, k := range v.Keys {
			fv := fmt.Sprintf("found%d", i)
			blk = append(blk, jen.List(jen.Id("_"), jen.Id("_"), jen.Id(fv), jen.Err()).Op(":=").Id("d").Dot("ScanKey").Call(jen.Lit(k)),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
			if cond == nil {
				cond = jen.Id(fv)
			} else {
				cond = cond.Op("&&").Id(fv)
			}
			keys = append(keys, k)
		}
		if cond == nil {
			// A lone object variant needs no look-ahead.
			sel = append(sel, initVariant(v)...)
			lone = true
			break
		}
		blk = append(blk, jen.If(cond).Block(initVariant(v)...))
		sel = append(sel, jen.Block(blk...))
	}
	if !lone {
		sel = append(sel, jen.Return(jen.Id("d").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("matches no variant of %s: expected a member %s", name, quoteList(keys, " or "))))))
	}
	return sel
}

// variantSink is where a variant keeps members it does not declare: a
// struct's Unknown field, or, for a payload that is itself a union, the sink
// of its selected variant.
func variantSink(v *ir.Variant) jen.Code {
	if v.Payload.Type.Kind == ir.ObjectUnion {
		return jen.Id("v").Dot(v.Name).Dot("unknownSink").Call()
	}
	return jen.Op("&").Id("v").Dot(v.Name).Dot("Unknown")
}

// jsonKind is the wire.Kind constant a value of shape r starts with.
func jsonKind(r *ir.Ref) string {
	return map[string]string{"string": "KindString", "boolean": "KindBool", "number": "KindNumber", "array": "KindArray", "object": "KindObject"}[ir.JSONKind(r)]
}

func (e *emitter) valueUnion(f *jen.File, t *ir.Type) {
	u := t.Union
	byKind := map[string][]*ir.Variant{}
	var order []string
	var anyV *ir.Variant // the variant that accepts any value, tried last
	for _, v := range u.Variants {
		k := "KindNull"
		if !v.Null {
			k = jsonKind(v.Payload)
		}
		if k == "" {
			anyV = v
			continue
		}
		if _, ok := byKind[k]; !ok {
			order = append(order, k)
		}
		byKind[k] = append(byKind[k], v)
	}
	var cases []jen.Code
	var want []string
	for _, k := range order {
		want = append(want, strings.ToLower(strings.TrimPrefix(k, "Kind")))
		cases = append(cases, jen.Case(wireName(k)).Block(e.kindCandidates(byKind[k], anyV)...))
	}
	var tail jen.Code = jen.Return(jen.Id("d").Dot("TypeError").Call(jen.Lit(strings.Join(want, " or ")), jen.Id("k")))
	if anyV != nil {
		tail = e.anyVariant(anyV)
	}
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s, choosing the variant by JSON type, then by trying the candidates in order.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(
		jen.Op("*").Id("v").Op("=").Id(t.Name).Values(),
		jen.Id("k").Op(":=").Id("d").Dot("Peek").Call(),
		jen.Switch(jen.Id("k")).Block(cases...),
		tail,
	)
	var enc []jen.Code
	for _, v := range u.Variants {
		if v.Null {
			enc = append(enc, jen.Case(jen.Id("v").Dot(v.Name)).Block(jen.Return(jen.Append(jen.Id("b"), jen.Lit("null").Op("...")))))
			continue
		}
		val := e.appendPointed(v.Payload, jen.Id("v").Dot(v.Name))
		if nilable(v.Payload) {
			val = e.appendValue(v.Payload, jen.Id("v").Dot(v.Name))
		}
		enc = append(enc, jen.Case(jen.Id("v").Dot(v.Name).Op("!=").Nil()).Block(val, jen.Return(jen.Id("b"))))
	}
	f.Comment("AppendJSON appends the set variant; with none set it appends null.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Index().Byte().Block(
		jen.Switch().Block(enc...), jen.Return(jen.Append(jen.Id("b"), jen.Lit("null").Op("..."))))
	f.Line()
}

// kindCandidates tries the variants of one JSON type in order: the first
// that decodes wins. With a variant that takes any value (anyV), a candidate
// must also be valid to win, as anyOf would accept the value through anyV
// otherwise; nothing fails here then, anyV takes what is left.
func (e *emitter) kindCandidates(vs []*ir.Variant, anyV *ir.Variant) []jen.Code {
	var body []jen.Code
	for i, v := range vs {
		if v.Null {
			return append(body, jen.Id("v").Dot(v.Name).Op("=").True(), jen.Return(jen.Id("d").Dot("ReadNull").Call()))
		}
		last := i == len(vs)-1 && anyV == nil
		var blk []jen.Code
		if !last {
			blk = append(blk, jen.Id("m").Op(":=").Id("d").Dot("Mark").Call())
		}
		blk = append(blk, e.decodeInto(v.Payload)...)
		assign := jen.Id("v").Dot(v.Name).Op("=").Op("&").Id("x")
		if nilable(v.Payload) {
			assign = jen.Id("v").Dot(v.Name).Op("=").Id("x")
		}
		switch {
		case last:
			blk = append(blk, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())), assign, jen.Return(jen.Nil()))
		case anyV != nil:
			ok := jen.Err().Op("==").Nil()
			if checks := e.valueValidate(v.Payload, jen.Id("x"), false); len(checks) > 0 {
				ok = ok.Op("&&").Add(wireName("Satisfies")).Call(jen.Func().Params(jen.Id("v").Op("*").Add(wireName("Validator"))).Block(checks...))
			}
			blk = append(blk, jen.If(ok).Block(assign, jen.Return(jen.Nil())),
				jen.If(jen.Err().Op("!=").Nil().Op("&&").Add(wireName("IsSyntax")).Call(jen.Err())).Block(jen.Return(jen.Err())),
				jen.Id("d").Dot("Rewind").Call(jen.Id("m")))
		default:
			// Told apart by trying: the first variant that decodes wins.
			blk = append(blk, jen.If(jen.Err().Op("==").Nil()).Block(assign, jen.Return(jen.Nil())),
				jen.If(wireName("IsSyntax").Call(jen.Err())).Block(jen.Return(jen.Err())),
				jen.Id("d").Dot("Rewind").Call(jen.Id("m")))
		}
		body = append(body, jen.Block(blk...))
	}
	return body
}

// anyVariant decodes the value into the variant that accepts any value.
func (e *emitter) anyVariant(v *ir.Variant) jen.Code {
	return jen.Block(append(e.decodeInto(v.Payload),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("v").Dot(v.Name).Op("=").Id("x"),
		jen.Return(jen.Nil()))...)
}

func (e *emitter) enumCodec(f *jen.File, t *ir.Type) {
	// String enums are tables (stringEnum); these are the integer ones.
	dec := []jen.Code{
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("d").Dot(readers[t.EnumBase.Format]).Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	if !t.EnumOpen {
		var vals []jen.Code
		for _, v := range t.EnumValues {
			vals = append(vals, jen.Lit(int(v.Int)))
		}
		dec = append(dec, jen.Switch(jen.Id("x")).Block(jen.Case(vals...).Block(), jen.Default().Block(jen.Return(jen.Id("d").Dot("Errorf").Call(jen.Lit(fmt.Sprintf("unknown %s value %%d", t.Name)), jen.Id("x"))))))
	}
	dec = append(dec, jen.Op("*").Id("v").Op("=").Id(t.Name).Call(jen.Id("x")), jen.Return(jen.Nil()))
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s value.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(dec...)
	base := t.EnumBase
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Index().Byte().Block(
		e.appendValue(base, goType(base).Call(jen.Op("*").Id("v"))), jen.Return(jen.Id("b")))
	f.Line()
}

func (e *emitter) aliasCodec(f *jen.File, t *ir.Type) {
	r := t.Target
	dec := append(e.decodeInto(r),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("v").Op("=").Id(t.Name).Call(jen.Id("x")),
		jen.Return(jen.Nil()))
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s value.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(dec...)
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Index().Byte().Block(
		e.appendValue(r, aliased(r, "v")), jen.Return(jen.Id("b")))
	f.Line()
}

// aliased is the alias value *ptr as its target type r: converted, or for
// an array (*(*[]T)(ptr)), which is addressable, as a wire.List needs.
func aliased(r *ir.Ref, ptr string) *jen.Statement {
	if r.Kind == ir.Array {
		return jen.Parens(jen.Op("*").Parens(jen.Op("*").Add(goType(r))).Call(jen.Id(ptr)))
	}
	return goType(r).Call(jen.Op("*").Id(ptr))
}
