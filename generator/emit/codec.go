package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
)

func wq(name string) *Statement { return Qual(WirePath, name) }

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
func (e *emitter) decodeTo(r *ir.Ref, target *Statement, ptr bool) *Statement {
	if r.Kind == ir.Named {
		return target.Clone().Dot("DecodeJSON").Call(Id("d"))
	}
	addr := target.Clone()
	if !ptr {
		addr = Op("&").Add(target.Clone())
	}
	switch r.Kind {
	case ir.Array:
		fn := "DecodeSlice"
		if r.ElemNullable && pointerable(r.Elem) {
			fn = "DecodeNullableSlice"
		}
		return wq(fn).Call(Id("d"), addr, Lit(r.SkipInvalidItems), e.elemDecoder(r.Elem))
	case ir.Map:
		switch {
		case r.ElemNullable && pointerable(r.Elem):
			return wq("DecodeNullableMap").Call(Id("d"), addr, e.elemDecoder(r.Elem))
		case r.Elem.Kind == ir.Raw || r.Elem.Kind == ir.Routed:
			return wq("DecodeRawMap").Call(Id("d"), addr)
		}
		return wq("DecodeMap").Call(Id("d"), addr, e.elemDecoder(r.Elem))
	}
	return wq("Decode"+scalarSuffix(r)).Call(addr, Id("d"))
}

// decodeInto returns statements that declare x (of shape r's Go type),
// decode the next value into it and leave any failure in err.
func (e *emitter) decodeInto(r *ir.Ref) []Code {
	return []Code{Var().Id("x").Add(goType(r)), Err().Op(":=").Add(e.decodeTo(r, Id("x"), false))}
}

// elemDecoder is the func(*T, *wire.Decoder) error decoding one item of
// shape r in place: a runtime function, a DecodeJSON method expression, or
// a helper for a nested container.
func (e *emitter) elemDecoder(r *ir.Ref) Code {
	switch r.Kind {
	case ir.Named:
		return Parens(Op("*").Id(r.Type.Name)).Dot("DecodeJSON")
	case ir.Array, ir.Map:
		name := "decode" + shapeName(r)
		if r.SkipInvalidItems {
			name += "SkipInvalid"
		}
		return Id(e.helper(name, func(f *File) {
			f.Func().Id(name).Params(Id("p").Op("*").Add(goType(r)), decoderParam()).Error().Block(
				Return(e.decodeTo(r, Id("p"), true)))
			f.Line()
		}))
	}
	return wq("Decode" + scalarSuffix(r))
}

// elemEncoder is the func(*T, []byte) []byte appending one item of shape r.
func (e *emitter) elemEncoder(r *ir.Ref) Code {
	switch r.Kind {
	case ir.Named:
		return Parens(Op("*").Id(r.Type.Name)).Dot("AppendJSON")
	case ir.Array, ir.Map:
		name := "append" + shapeName(r)
		return Id(e.helper(name, func(f *File) {
			f.Func().Id(name).Params(Id("p").Op("*").Add(goType(r)), Id("b").Index().Byte()).Index().Byte().Block(
				Return(e.appendCall(r, Id("b"), Op("*").Id("p"))))
			f.Line()
		}))
	}
	return wq("Encode" + scalarSuffix(r))
}

// appendCall is the expression appending a value expression of shape r to
// b. expr must be addressable for named types (their AppendJSON has a
// pointer receiver).
func (e *emitter) appendCall(r *ir.Ref, b, expr *Statement) *Statement {
	switch r.Kind {
	case ir.String:
		return wq("AppendString").Call(b, expr)
	case ir.Bool:
		return wq("AppendBool").Call(b, expr)
	case ir.Int:
		if strings.HasPrefix(r.Format, "u") {
			return wq("AppendUint").Call(b, Uint64().Call(expr))
		}
		return wq("AppendInt").Call(b, Int64().Call(expr))
	case ir.Float:
		return wq("AppendFloat").Call(b, expr)
	case ir.Raw, ir.Routed:
		return wq("AppendRaw").Call(b, expr)
	case ir.Array:
		fn := "AppendSlice"
		if r.ElemNullable && pointerable(r.Elem) {
			fn = "AppendNullableSlice"
		}
		return wq(fn).Call(b, expr, e.elemEncoder(r.Elem))
	case ir.Map:
		switch {
		case r.ElemNullable && pointerable(r.Elem):
			return wq("AppendNullableMap").Call(b, expr, e.elemEncoder(r.Elem))
		case r.Elem.Kind == ir.Raw || r.Elem.Kind == ir.Routed:
			return wq("AppendRawMap").Call(b, expr)
		}
		return wq("AppendMap").Call(b, expr, e.elemEncoder(r.Elem))
	case ir.Named:
		return expr.Dot("AppendJSON").Call(b)
	}
	panic("appendCall")
}

// appendValue returns `b = <append expr>` for a value expression of shape r.
func (e *emitter) appendValue(r *ir.Ref, expr *Statement) Code {
	return Id("b").Op("=").Add(e.appendCall(r, Id("b"), expr))
}

// ---- helpers for nested containers, emitted once per shape ----

func (e *emitter) helper(name string, fn func(*File)) string {
	if !e.helpers[name] {
		e.helpers[name] = true
		e.pending = append(e.pending, fn)
	}
	return name
}

func derefIfScalar(r *ir.Ref, expr *Statement) *Statement {
	if r.Kind == ir.Named {
		return expr
	}
	return Op("*").Add(expr)
}

// ---- per-type codecs ----

func recv(t string) *Statement { return Params(Id("v").Op("*").Id(t)) }

func decoderParam() Code { return Id("d").Op("*").Add(wq("Decoder")) }

func (e *emitter) codecs(f *File) {
	for _, t := range e.m.Types {
		switch t.Kind {
		case ir.Struct:
			e.structCodec(f, t)
			if t.Union != nil {
				e.unionMembers(f, t.Union, false)
			}
		case ir.ObjectUnion:
			e.unionMembers(f, t.Union, true)
			e.objectEntry(f, t, true)
		case ir.ValueUnion:
			e.valueUnion(f, t)
		case ir.Enum:
			e.enumCodec(f, t)
		case ir.Alias:
			if t.Target.Kind != ir.Named {
				e.aliasCodec(f, t)
			}
		}
		if !(t.Kind == ir.Alias && t.Target.Kind == ir.Named) {
			e.stdInterop(f, t.Name, t.Kind == ir.Struct || t.Kind == ir.ObjectUnion || t.Kind == ir.ValueUnion)
		}
	}
	e.flushHelpers(f)
}

// flushHelpers writes the helpers requested since the last flush; writing
// one may request more.
func (e *emitter) flushHelpers(f *File) {
	for ; e.flushed < len(e.pending); e.flushed++ {
		e.pending[e.flushed](f)
	}
}

// stdInterop makes every type usable with encoding/json, through the fast paths.
func (e *emitter) stdInterop(f *File, name string, checked bool) {
	if checked {
		f.Comment("MarshalJSON encodes v with its generated encoder. It fails with a *wire.EncodeError,")
		f.Comment("naming the union and its variants, when a union in v has no variant or several set.")
		f.Func().Params(Id("v").Id(name)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
			Return(Id("marshal").Call(Op("&").Id("v"), Lit(e.o.Package+"."+name))),
		)
		e.helper("marshal", func(f *File) {
			f.Comment("marshal encodes x for encoding/json after checking that every union in it has exactly")
			f.Comment("one variant set: AppendJSON would write an empty object or only the first variant.")
			f.Func().Id("marshal").Params(Id("x").Interface(Qual(WirePath, "Appender"), Id("validate").Params(Op("*").Qual(WirePath, "Validator"))), Id("typ").String()).Params(Index().Byte(), Error()).Block(
				Var().Id("v").Qual(WirePath, "Validator"),
				Id("x").Dot("validate").Call(Op("&").Id("v")),
				If(Err().Op(":=").Id("v").Dot("EncodeErr").Call(Id("typ")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
				Return(Id("x").Dot("AppendJSON").Call(Nil()), Nil()),
			)
			f.Line()
		})
	} else {
		f.Comment("MarshalJSON encodes v with its generated encoder.")
		f.Func().Params(Id("v").Id(name)).Id("MarshalJSON").Params().Params(Index().Byte(), Error()).Block(
			Return(Id("v").Dot("AppendJSON").Call(Nil()), Nil()),
		)
	}
	f.Comment("UnmarshalJSON decodes data leniently, as the official SDKs accept it.")
	f.Func().Add(recv(name)).Id("UnmarshalJSON").Params(Id("data").Index().Byte()).Error().Block(
		Return(wq("Decode").Call(Id("data"), Id("v"), wq("Lenient"))),
	)
	f.Line()
}

// objectEntry emits DecodeJSON/AppendJSON for object-shaped types, on top of
// their member-level methods. The decode loop is emitted per type (not shared
// through an interface) so the required-member masks stay on the stack.
func (e *emitter) objectEntry(f *File, t *ir.Type, union bool) {
	name := t.Name
	// An anyOf union with an untagged fallback accepts an object whose tagged
	// variant fails, as the fallback: decoding retries it that way.
	var fallback *ir.Variant
	var holder *Statement // the union value: v itself, or v's embedded union field
	if t.Union != nil && !t.Union.Exclusive {
		for _, vr := range t.Union.Variants {
			if vr.Role == ir.Fallback {
				fallback = vr
			}
		}
		holder = Id("v")
		if !union {
			holder = Id("v").Dot(t.Union.FieldName())
		}
	}
	var pre []Code
	pre = append(pre, Op("*").Id("v").Op("=").Id(name).Values())
	if t.Union != nil {
		sel := If(Err().Op(":=").Id("v").Dot("selectVariant").Call(Id("d")), Err().Op("!=").Nil()).Block(Return(Err()))
		if fallback != nil {
			init := []Code{holder.Clone().Dot(fallback.Name).Op("=").New(Id(fallback.Payload.Type.Name))}
			if fallback.Payload.Type.Union != nil {
				init = append(init, If(Err().Op(":=").Add(holder.Clone()).Dot(fallback.Name).Dot("selectVariant").Call(Id("d")), Err().Op("!=").Nil()).Block(Return(Err())))
			}
			pre = append(pre, If(Id("asFallback")).Block(init...).Else().Block(sel))
		} else {
			pre = append(pre, sel)
		}
	}
	sink := Op("&").Id("v").Dot("Unknown")
	if union {
		sink = Id("v").Dot("unknownSink").Call()
	}
	body := append(pre,
		If(Err().Op(":=").Id("d").Dot("BeginObject").Call(), Err().Op("!=").Nil()).Block(Return(Err())),
		Var().Id("seen").Index(Lit(seenDepth)).Uint64(),
		For().Block(
			List(Id("key"), Id("ok"), Err()).Op(":=").Id("d").Dot("NextKey").Call(),
			If(Err().Op("!=").Nil()).Block(Return(Err())),
			If(Op("!").Id("ok")).Block(Break()),
			List(Id("handled"), Err()).Op(":=").Id("v").Dot("decodeField").Call(Id("d"), Id("key"), Id("seen").Index(Empty(), Empty())),
			If(Err().Op("==").Nil().Op("&&").Op("!").Id("handled")).Block(Err().Op("=").Id("d").Dot("KeepUnknown").Call(Id("key"), sink)),
			If(Err().Op("!=").Nil()).Block(Return(Err())),
		),
		Return(Id("v").Dot("checkRequired").Call(Id("d"), Id("seen").Index(Empty(), Empty()))),
	)
	if fallback == nil {
		f.Comment(fmt.Sprintf("DecodeJSON decodes one %s object, keeping unknown members.", name))
		f.Func().Add(recv(name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(body...)
	} else {
		f.Comment(fmt.Sprintf("DecodeJSON decodes one %s object, keeping unknown members. When the tagged variant fails, the object is retried as %s, as anyOf allows.", name, fallback.Name))
		f.Func().Add(recv(name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(
			Id("m").Op(":=").Id("d").Dot("Mark").Call(),
			Err().Op(":=").Id("v").Dot("decodeObject").Call(Id("d"), False()),
			If(Err().Op("==").Nil().Op("||").Qual(WirePath, "IsSyntax").Call(Err()).Op("||").Add(holder.Clone()).Dot(fallback.Name).Op("!=").Nil()).Block(Return(Err())),
			Id("d").Dot("Rewind").Call(Id("m")),
			If(Id("v").Dot("decodeObject").Call(Id("d"), True()).Op("!=").Nil()).Block(Return(Err())),
			Return(Nil()),
		)
		f.Func().Add(recv(name)).Id("decodeObject").Params(decoderParam(), Id("asFallback").Bool()).Error().Block(body...)
	}
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(name)).Id("AppendJSON").Params(Id("b").Index().Byte()).Index().Byte().Block(
		Id("b").Op("=").Append(Id("b"), LitRune('{')),
		List(Id("b"), Id("_")).Op("=").Id("v").Dot("appendFields").Call(Id("b"), False()),
		Return(Append(Id("b"), LitRune('}'))),
	)
	f.Line()
}

func (e *emitter) structCodec(f *File, t *ir.Type) {
	e.objectEntry(f, t, false)
	// decodeField
	var cases []Code
	bit := 0
	for _, fl := range t.Fields {
		cases = append(cases, Case(Lit(fl.JSON)).Block(e.fieldDecode(fl, &bit)...))
	}
	var tail Code = Return(False(), Nil())
	if t.Union != nil {
		tail = Return(Id("v").Dot(t.Union.FieldName()).Dot("decodeField").Call(Id("d"), Id("key"), Id("seen").Index(Lit(1), Empty())))
	}
	var sw Code = Null()
	if len(cases) > 0 {
		sw = Switch(String().Call(Id("key"))).Block(cases...)
	}
	f.Comment("decodeField decodes the member named key; it reports false for a member it does not declare.")
	f.Func().Add(recv(t.Name)).Id("decodeField").Params(decoderParam(), Id("key").Index().Byte(), Id("seen").Index().Uint64()).Params(Bool(), Error()).Block(sw, tail)
	// checkRequired
	var checks []Code
	bit = 0
	for _, fl := range t.Fields {
		if fl.Required {
			checks = append(checks, If(Id("seen").Index(Lit(0)).Op("&").Parens(Lit(1).Op("<<").Lit(bit)).Op("==").Lit(0)).Block(
				Return(Id("d").Dot("Errorf").Call(Lit("missing required member %q"), Lit(fl.JSON))),
			))
			bit++
		}
	}
	if t.Union != nil {
		checks = append(checks, Return(Id("v").Dot(t.Union.FieldName()).Dot("checkRequired").Call(Id("d"), Id("seen").Index(Lit(1), Empty()))))
	} else {
		checks = append(checks, Return(Nil()))
	}
	f.Comment("checkRequired reports the first required member that decoding did not see.")
	f.Func().Add(recv(t.Name)).Id("checkRequired").Params(decoderParam(), Id("seen").Index().Uint64()).Error().Block(checks...)
	if t.Union != nil {
		f.Comment("selectVariant picks the variant from the object ahead, before its members are read.")
		f.Func().Add(recv(t.Name)).Id("selectVariant").Params(decoderParam()).Error().Block(
			Return(Id("v").Dot(t.Union.FieldName()).Dot("selectVariant").Call(Id("d"))))
	}
	// appendFields
	var enc []Code
	for _, fl := range t.Fields {
		enc = append(enc, e.fieldEncode(fl)...)
	}
	if t.Union != nil {
		enc = append(enc, List(Id("b"), Id("comma")).Op("=").Id("v").Dot(t.Union.FieldName()).Dot("appendFields").Call(Id("b"), Id("comma")))
	}
	enc = append(enc, Return(Id("v").Dot("Unknown").Dot("AppendMembers").Call(Id("b"), Id("comma"))))
	f.Comment("appendFields appends v's members, comma-separated; comma says whether one was written before.")
	f.Func().Add(recv(t.Name)).Id("appendFields").Params(Id("b").Index().Byte(), Id("comma").Bool()).Params(Index().Byte(), Bool()).Block(enc...)
	f.Line()
}

func zeroOf(fl *ir.Field) Code {
	if fieldPtr(fl) || nilable(fl.Ref) {
		return Nil()
	}
	switch fl.Ref.Kind {
	case ir.String:
		return Lit("")
	case ir.Bool:
		return False()
	case ir.Int, ir.Float:
		return Lit(0)
	}
	return Id(fl.Ref.Type.Name).Values()
}

func (e *emitter) fieldDecode(fl *ir.Field, bit *int) []Code {
	var out []Code
	if fl.Required {
		out = append(out, Id("seen").Index(Lit(0)).Op("|=").Lit(1).Op("<<").Lit(*bit))
		*bit++
	}
	target := Id("v").Dot(fl.Name)
	if fl.Nullable {
		out = append(out, If(Id("d").Dot("TryNull").Call()).Block(target.Clone().Op("=").Add(zeroOf(fl)), Return(True(), Nil())))
	} else if fl.DefaultOnNull {
		out = append(out, If(Id("d").Dot("Lenient").Call().Op("&&").Id("d").Dot("TryNull").Call()).Block(target.Clone().Op("=").Add(zeroOf(fl)), Return(True(), Nil())))
	}
	if fieldPtr(fl) {
		out = append(out, target.Clone().Op("=").New(goType(fl.Ref)))
	}
	dec := e.decodeTo(fl.Ref, target, fieldPtr(fl))
	if !fl.DefaultOnError {
		return append(out, Return(True(), wq("AtKey").Call(dec, Lit(fl.JSON))))
	}
	// Lenient decoding treats a value that fails to decode as absent.
	return append(out,
		Id("m").Op(":=").Id("d").Dot("Mark").Call(),
		If(Err().Op(":=").Add(dec), Err().Op("!=").Nil()).Block(
			target.Clone().Op("=").Add(zeroOf(fl)),
			Return(True(), wq("AtKey").Call(Id("d").Dot("Recover").Call(Id("m"), Err()), Lit(fl.JSON))),
		),
		Return(True(), Nil()))
}

func (e *emitter) fieldEncode(fl *ir.Field) []Code {
	v := Id("v").Dot(fl.Name)
	write := func(val Code) []Code {
		return []Code{Id("b").Op("=").Add(wq("Key")).Call(Id("b"), Op("&").Id("comma"), Lit(fmt.Sprintf("%q:", fl.JSON))), val}
	}
	null := Id("b").Op("=").Append(Id("b"), Lit("null").Op("..."))
	switch {
	case fieldPtr(fl):
		val := e.appendValue(fl.Ref, derefIfScalar(fl.Ref, v.Clone()))
		if fl.Required {
			return []Code{If(v.Clone().Op("==").Nil()).Block(write(null)...).Else().Block(write(val)...)}
		}
		return []Code{If(v.Clone().Op("!=").Nil()).Block(write(val)...)}
	case nilable(fl.Ref):
		val := e.appendValue(fl.Ref, v.Clone())
		if !fl.Required {
			return []Code{If(v.Clone().Op("!=").Nil()).Block(write(val)...)}
		}
		if fl.Nullable {
			return []Code{If(v.Clone().Op("==").Nil()).Block(write(null)...).Else().Block(write(val)...)}
		}
	}
	return write(e.appendValue(fl.Ref, v.Clone()))
}

// unionMembers emits the member-level methods of an object union (standalone
// or embedded in a struct).
func (e *emitter) unionMembers(f *File, u *ir.Union, standalone bool) {
	name := u.Name
	var sel []Code
	if u.Discriminator != "" {
		sel = selectByTag(u)
	} else {
		sel = selectByShape(u)
	}
	f.Comment("selectVariant picks the variant from the object ahead, before its members are read.")
	f.Func().Add(recv(name)).Id("selectVariant").Params(decoderParam()).Error().Block(sel...)

	// decodeField, checkRequired, appendFields, unknownSink
	var dec, chk, enc, sink []Code
	for _, v := range u.Variants {
		active := Id("v").Dot(v.Name).Op("!=").Nil()
		var d []Code
		if v.Role == ir.Tagged || v.Role == ir.Absent {
			// The tag was read by selectVariant; the variant field says it.
			d = append(d, If(String().Call(Id("key")).Op("==").Lit(u.Discriminator)).Block(Return(True(), Id("d").Dot("Skip").Call())))
		}
		d = append(d, Return(Id("v").Dot(v.Name).Dot("decodeField").Call(Id("d"), Id("key"), Id("seen"))))
		dec = append(dec, Case(active.Clone()).Block(d...))
		chk = append(chk, Case(active.Clone()).Block(Return(Id("v").Dot(v.Name).Dot("checkRequired").Call(Id("d"), Id("seen")))))
		var en []Code
		if v.Role == ir.Tagged {
			en = append(en, Id("b").Op("=").Add(wq("Key")).Call(Id("b"), Op("&").Id("comma"), Lit(fmt.Sprintf("%q:%q", u.Discriminator, v.Tag))))
		}
		en = append(en, Return(Id("v").Dot(v.Name).Dot("appendFields").Call(Id("b"), Id("comma"))))
		enc = append(enc, Case(active.Clone()).Block(en...))
		sink = append(sink, Case(active.Clone()).Block(Return(variantSink(v))))
	}
	if keepsUnknown(u) {
		active := Id("v").Dot(unknownField).Op("!=").Nil()
		dec = append(dec, Case(active.Clone()).Block(
			If(String().Call(Id("key")).Op("==").Lit(u.Discriminator)).Block(Return(True(), Id("d").Dot("Skip").Call())),
			Return(False(), Nil())))
		chk = append(chk, Case(active.Clone()).Block(Return(Nil())))
		enc = append(enc, Case(active.Clone()).Block(Return(Id("v").Dot(unknownField).Dot("AppendFields").Call(Id("b"), Lit(u.Discriminator), Id("comma")))))
		sink = append(sink, Case(active.Clone()).Block(Return(Op("&").Id("v").Dot(unknownField).Dot("Fields"))))
	}
	f.Comment("decodeField decodes a member of the selected variant.")
	f.Func().Add(recv(name)).Id("decodeField").Params(decoderParam(), Id("key").Index().Byte(), Id("seen").Index().Uint64()).Params(Bool(), Error()).Block(
		Switch().Block(dec...), Return(False(), Nil()))
	f.Comment("checkRequired checks the selected variant's required members.")
	f.Func().Add(recv(name)).Id("checkRequired").Params(decoderParam(), Id("seen").Index().Uint64()).Error().Block(
		Switch().Block(chk...), Return(Id("d").Dot("Errorf").Call(Lit("no variant of "+name+" selected"))))
	f.Comment("appendFields appends the selected variant's members, its tag first.")
	f.Func().Add(recv(name)).Id("appendFields").Params(Id("b").Index().Byte(), Id("comma").Bool()).Params(Index().Byte(), Bool()).Block(
		Switch().Block(enc...), Return(Id("b"), Id("comma")))
	if standalone {
		f.Comment("unknownSink is where members no variant declares are kept.")
		f.Func().Add(recv(name)).Id("unknownSink").Params().Op("*").Add(wq("Fields")).Block(
			Switch().Block(sink...), Return(Nil()))
	}
	f.Line()
}

// initVariant sets variant v to a new payload and, for a payload that is a
// union itself, selects its variant too.
func initVariant(v *ir.Variant) []Code {
	out := []Code{Id("v").Dot(v.Name).Op("=").New(Id(v.Payload.Type.Name))}
	if v.Payload.Type.Union != nil {
		return append(out, Return(Id("v").Dot(v.Name).Dot("selectVariant").Call(Id("d"))))
	}
	return append(out, Return(Nil()))
}

// selectByTag is selectVariant's body for a union with a discriminator: the
// tag's absence, wrong kind or unknown value falls to the variant whose role
// takes it, or is an error (kept as Unknown when lenient).
func selectByTag(u *ir.Union) []Code {
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
	var sel []Code
	D := u.Discriminator
	sel = append(sel,
		List(Id("kind"), Id("tag"), Id("found"), Err()).Op(":=").Id("d").Dot("ScanKey").Call(Lit(D)),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
	)
	var missing []Code
	switch {
	case absent != nil:
		missing = initVariant(absent)
	case fallback != nil:
		missing = initVariant(fallback)
	default:
		missing = []Code{Return(Id("d").Dot("Errorf").Call(Lit(fmt.Sprintf("missing discriminator %q", D))))}
	}
	sel = append(sel, If(Op("!").Id("found").Op("||").Id("kind").Op("==").Add(wq("KindNull"))).Block(missing...))
	var wrongKind []Code
	if fallback != nil {
		wrongKind = initVariant(fallback)
	} else {
		wrongKind = []Code{Return(wq("AtKey").Call(Id("d").Dot("TypeError").Call(Lit("string"), Id("kind")), Lit(D)))}
	}
	sel = append(sel, If(Id("kind").Op("!=").Add(wq("KindString"))).Block(wrongKind...))
	var cases []Code
	for _, v := range u.Variants {
		if v.Role == ir.Tagged {
			cases = append(cases, Case(Lit(v.Tag)).Block(initVariant(v)...))
		}
	}
	switch {
	case catchAll != nil:
		cases = append(cases, Default().Block(initVariant(catchAll)...))
	case fallback != nil:
		cases = append(cases, Default().Block(initVariant(fallback)...))
	}
	sel = append(sel, Switch(String().Call(Id("tag"))).Block(cases...))
	if catchAll == nil && fallback == nil {
		sel = append(sel, Comment("Lenient decoding keeps a variant this version does not know."),
			If(Id("d").Dot("Lenient").Call()).Block(
				Id("v").Dot(unknownField).Op("=").Op("&").Add(wq("UnknownVariant")).Values(Dict{Id("Tag"): String().Call(Id("tag"))}),
				Return(Nil())))
		sel = append(sel, Return(wq("AtKey").Call(Id("d").Dot("Errorf").Call(Lit(fmt.Sprintf("unknown %s %%q of %s", D, name)), Id("tag")), Lit(D))))
	}
	return sel
}

// selectByShape is selectVariant's body for a union told apart by which
// members are present, tried in SelectOrder.
func selectByShape(u *ir.Union) []Code {
	name := u.Name
	var sel []Code
	var keys []string
	lone := false
	order := u.Variants
	if u.SelectOrder != nil {
		order = u.SelectOrder
	}
	for _, v := range order {
		var blk []Code
		var cond *Statement
		for i, k := range v.Keys {
			fv := fmt.Sprintf("found%d", i)
			blk = append(blk, List(Id("_"), Id("_"), Id(fv), Err()).Op(":=").Id("d").Dot("ScanKey").Call(Lit(k)),
				If(Err().Op("!=").Nil()).Block(Return(Err())))
			if cond == nil {
				cond = Id(fv)
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
		blk = append(blk, If(cond).Block(initVariant(v)...))
		sel = append(sel, Block(blk...))
	}
	if !lone {
		sel = append(sel, Return(Id("d").Dot("Errorf").Call(Lit(fmt.Sprintf("matches no variant of %s: expected a member %s", name, strings.Join(quoteKeys(keys), " or "))))))
	}
	return sel
}

// variantSink is where a variant keeps members it does not declare: a
// struct's Unknown field, or, for a payload that is itself a union, the sink
// of its selected variant.
func variantSink(v *ir.Variant) Code {
	if v.Payload.Type.Kind == ir.ObjectUnion {
		return Id("v").Dot(v.Name).Dot("unknownSink").Call()
	}
	return Op("&").Id("v").Dot(v.Name).Dot("Unknown")
}

func quoteKeys(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = fmt.Sprintf("%q", k)
	}
	return out
}

// jsonKind is the wire.Kind constant a value of shape r starts with.
func jsonKind(r *ir.Ref) string {
	return map[string]string{"string": "KindString", "boolean": "KindBool", "number": "KindNumber", "array": "KindArray", "object": "KindObject"}[ir.JSONKind(r)]
}

func (e *emitter) valueUnion(f *File, t *ir.Type) {
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
	var cases []Code
	var want []string
	for _, k := range order {
		want = append(want, strings.ToLower(strings.TrimPrefix(k, "Kind")))
		cases = append(cases, Case(wq(k)).Block(e.kindCandidates(byKind[k], anyV)...))
	}
	var tail Code = Return(Id("d").Dot("TypeError").Call(Lit(strings.Join(want, " or ")), Id("k")))
	if anyV != nil {
		tail = e.anyVariant(anyV)
	}
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s, choosing the variant by JSON type, then by trying the candidates in order.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(
		Op("*").Id("v").Op("=").Id(t.Name).Values(),
		Id("k").Op(":=").Id("d").Dot("Peek").Call(),
		Switch(Id("k")).Block(cases...),
		tail,
	)
	var enc []Code
	for _, v := range u.Variants {
		if v.Null {
			enc = append(enc, Case(Id("v").Dot(v.Name)).Block(Return(Append(Id("b"), Lit("null").Op("...")))))
			continue
		}
		val := e.appendValue(v.Payload, derefIfScalar(v.Payload, Id("v").Dot(v.Name)))
		if nilable(v.Payload) {
			val = e.appendValue(v.Payload, Id("v").Dot(v.Name))
		}
		enc = append(enc, Case(Id("v").Dot(v.Name).Op("!=").Nil()).Block(val, Return(Id("b"))))
	}
	f.Comment("AppendJSON appends the set variant; with none set it appends null.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(Id("b").Index().Byte()).Index().Byte().Block(
		Switch().Block(enc...), Return(Append(Id("b"), Lit("null").Op("..."))))
	f.Line()
}

// kindCandidates tries the variants of one JSON type in order: the first
// that decodes wins. With a variant that takes any value (anyV), a candidate
// must also be valid to win, as anyOf would accept the value through anyV
// otherwise; nothing fails here then, anyV takes what is left.
func (e *emitter) kindCandidates(vs []*ir.Variant, anyV *ir.Variant) []Code {
	var body []Code
	for i, v := range vs {
		if v.Null {
			return append(body, Id("v").Dot(v.Name).Op("=").True(), Return(Id("d").Dot("ReadNull").Call()))
		}
		last := i == len(vs)-1 && anyV == nil
		var blk []Code
		if !last {
			blk = append(blk, Id("m").Op(":=").Id("d").Dot("Mark").Call())
		}
		blk = append(blk, e.decodeInto(v.Payload)...)
		assign := Id("v").Dot(v.Name).Op("=").Op("&").Id("x")
		if nilable(v.Payload) {
			assign = Id("v").Dot(v.Name).Op("=").Id("x")
		}
		switch {
		case last:
			blk = append(blk, If(Err().Op("!=").Nil()).Block(Return(Err())), assign, Return(Nil()))
		case anyV != nil:
			ok := Err().Op("==").Nil()
			if checks := e.valueValidate(v.Payload, Id("x"), false); len(checks) > 0 {
				ok = ok.Op("&&").Add(wq("Satisfies")).Call(Func().Params(Id("v").Op("*").Add(wq("Validator"))).Block(checks...))
			}
			blk = append(blk, If(ok).Block(assign, Return(Nil())),
				If(Err().Op("!=").Nil().Op("&&").Add(wq("IsSyntax")).Call(Err())).Block(Return(Err())),
				Id("d").Dot("Rewind").Call(Id("m")))
		default:
			// Told apart by trying: the first variant that decodes wins.
			blk = append(blk, If(Err().Op("==").Nil()).Block(assign, Return(Nil())),
				If(wq("IsSyntax").Call(Err())).Block(Return(Err())),
				Id("d").Dot("Rewind").Call(Id("m")))
		}
		body = append(body, Block(blk...))
	}
	return body
}

// anyVariant decodes the value into the variant that accepts any value.
func (e *emitter) anyVariant(v *ir.Variant) Code {
	return Block(append(e.decodeInto(v.Payload),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Id("v").Dot(v.Name).Op("=").Id("x"),
		Return(Nil()))...)
}

func (e *emitter) enumCodec(f *File, t *ir.Type) {
	var dec []Code
	if t.EnumBase.Kind == ir.String {
		var cases []Code
		for _, v := range t.EnumValues {
			cases = append(cases, Case(Lit(v.String)).Block(Op("*").Id("v").Op("=").Id(v.Name)))
		}
		if t.EnumOpen {
			cases = append(cases, Default().Block(Op("*").Id("v").Op("=").Id(t.Name).Call(String().Call(Id("s")))))
		} else {
			cases = append(cases, Default().Block(Return(Id("d").Dot("Errorf").Call(Lit(fmt.Sprintf("unknown %s value %%q", t.Name)), Id("s")))))
		}
		dec = append(dec,
			List(Id("s"), Err()).Op(":=").Id("d").Dot("ReadStringBytes").Call(),
			If(Err().Op("!=").Nil()).Block(Return(Err())),
			Switch(String().Call(Id("s"))).Block(cases...),
			Return(Nil()))
	} else {
		dec = append(dec,
			List(Id("x"), Err()).Op(":=").Id("d").Dot(readers[t.EnumBase.Format]).Call(),
			If(Err().Op("!=").Nil()).Block(Return(Err())))
		if !t.EnumOpen {
			var vals []Code
			for _, v := range t.EnumValues {
				vals = append(vals, Lit(int(v.Int)))
			}
			dec = append(dec, Switch(Id("x")).Block(Case(vals...).Block(), Default().Block(Return(Id("d").Dot("Errorf").Call(Lit(fmt.Sprintf("unknown %s value %%d", t.Name)), Id("x"))))))
		}
		dec = append(dec, Op("*").Id("v").Op("=").Id(t.Name).Call(Id("x")), Return(Nil()))
	}
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s value.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(dec...)
	base := t.EnumBase
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(Id("b").Index().Byte()).Index().Byte().Block(
		e.appendValue(base, goType(base).Call(Op("*").Id("v"))), Return(Id("b")))
	f.Line()
}

func (e *emitter) aliasCodec(f *File, t *ir.Type) {
	r := t.Target
	dec := append(e.decodeInto(r),
		If(Err().Op("!=").Nil()).Block(Return(Err())),
		Op("*").Id("v").Op("=").Id(t.Name).Call(Id("x")),
		Return(Nil()))
	f.Comment(fmt.Sprintf("DecodeJSON decodes one %s value.", t.Name))
	f.Func().Add(recv(t.Name)).Id("DecodeJSON").Params(decoderParam()).Error().Block(dec...)
	f.Comment("AppendJSON appends the JSON encoding of v to b.")
	f.Func().Add(recv(t.Name)).Id("AppendJSON").Params(Id("b").Index().Byte()).Index().Byte().Block(
		e.appendValue(r, goType(r).Call(Op("*").Id("v"))), Return(Id("b")))
	f.Line()
}
