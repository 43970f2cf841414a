package emit

import (
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

func (e *emitter) hasGates() bool {
	return e.m.Initialize() != nil
}

// capabilities lists each capability path a gate needs, in first-use order.
func (e *emitter) capabilities() []*ir.CapabilityPath {
	var caps []*ir.CapabilityPath
	seen := map[string]bool{}
	for _, g := range e.o.Gates {
		if !seen[g.Cap.Path] {
			seen[g.Cap.Path] = true
			caps = append(caps, g.Cap)
		}
	}
	return caps
}

// methodGate reports whether g gates its method itself (no member, variant
// or value).
func methodGate(g *ir.Gate) bool { return len(g.Steps) == 0 && g.Variant == nil && g.EnumValue == nil }

// gates emits the negotiated-capabilities API: Negotiated, and Allows,
// MethodCapability, AllowsMethod, CheckParams and CheckResult over one
// table of the resolved gates, which runtime/dispatch evaluates. Each
// capability's accessor and each member gate's walk sit in their row.
func (e *emitter) gates(f *jen.File) {
	init, initResult := e.m.Initialize().Params, e.m.Initialize().Result
	f.Comment("Negotiated holds what both sides advertised in initialize. Gates consult it: a")
	f.Comment("capability is granted by true, or by the presence of its (non-null) object.")
	f.Type().Id("Negotiated").Struct(
		jen.Comment("Request is the client's initialize params (its clientCapabilities)."),
		jen.Id("Request").Op("*").Id(init.Name),
		jen.Comment("Response is the agent's initialize result (its agentCapabilities)."),
		jen.Id("Response").Op("*").Id(initResult.Name),
	)
	var caps []jen.Code
	for _, c := range e.capabilities() {
		caps = append(caps, jen.Values(
			jen.Line().Id("Path").Op(":").Lit(c.Path),
			jen.Line().Id("Allowed").Op(":").Func().Params(jen.Id("n").Op("*").Id("Negotiated")).Bool().Block(e.capBody(c)...),
			jen.Line()))
	}
	var rows []jen.Code
	for _, g := range e.o.Gates {
		field := func(name string, v jen.Code) jen.Code { return jen.Line().Id(name).Op(":").Add(v) }
		d := []jen.Code{field("Method", jen.Lit(g.Method.Wire)), field("Capability", jen.Lit(g.Cap.Path))}
		if g.Row.Result {
			d = append(d, field("Result", jen.True()))
		}
		if g.Row.Variant != "" {
			d = append(d, field("Variant", jen.Lit(g.Row.Variant)))
		}
		if g.Row.Require {
			d = append(d, field("Required", jen.True()))
		}
		if !methodGate(g) {
			walk := append(e.gateWalk(g, jen.Id("p"), namedRef(g.Root), 0, "", nil), jen.Return(jen.Id("at")))
			d = append(d, field("Uses", jen.Qual(DispatchPath, "Walk").Call(jen.Func().Params(jen.Id("p").Op("*").Id(g.Root.Name), jen.Id("at").Index().String()).Index().String().Block(walk...))))
		}
		rows = append(rows, jen.Values(append(d, jen.Line())...))
	}
	f.Comment("gates is this package's gate table: each capability with how to read it, and each gated")
	f.Comment("method, member, variant or value with where a message uses it (see runtime/dispatch).")
	f.Var().Id("gates").Op("=").Qual(DispatchPath, "NewGates").Call(
		jen.Index().Qual(DispatchPath, "Capability").Types(jen.Op("*").Id("Negotiated")).Values(caps...),
		jen.Index().Qual(DispatchPath, "Gate").Values(rows...),
	)
	n := func() *jen.Statement { return jen.Id("n").Op("*").Id("Negotiated") }
	f.Comment("Allows reports whether the capability at the path was advertised. The path is dotted")
	f.Comment("(\"agentCapabilities.loadSession\"), or the JSON pointer when a member name holds a dot.")
	f.Func().Params(n()).Id("Allows").Params(jen.Id("capability").String()).Bool().Block(
		jen.Return(jen.Id("gates").Dot("Allows").Call(jen.Id("n"), jen.Id("capability"))))
	f.Comment("MethodCapability returns the capability a peer must have advertised before it may be sent method.")
	f.Func().Id("MethodCapability").Params(jen.Id("method").String()).Params(jen.String(), jen.Bool()).Block(
		jen.Return(jen.Id("gates").Dot("MethodCapability").Call(jen.Id("method"))))
	f.Comment("AllowsMethod reports whether method may be sent, and the capability it needs when it may not.")
	f.Func().Params(n()).Id("AllowsMethod").Params(jen.Id("method").String()).Params(jen.Bool(), jen.String()).Block(
		jen.Return(jen.Id("gates").Dot("AllowsMethod").Call(jen.Id("n"), jen.Id("method"))))
	for _, what := range []string{"params", "result"} {
		name := "Check" + ir.GoName(what)
		f.Comment(fmt.Sprintf("%s returns every gated method, member or variant that the %s of method (a pointer to", name, what))
		f.Comment("its generated type) uses without the capability that allows it; nil when all are allowed.")
		f.Func().Params(n()).Id(name).Params(jen.Id("method").String(), jen.Id("v").Any()).Index().Qual(WirePath, "GateViolation").Block(
			jen.Return(jen.Id("gates").Dot(name).Call(jen.Id("n"), jen.Id("method"), jen.Id("v"))))
	}
}

// capBody walks the initialize message to the capability, nil-safe (n is
// not nil: runtime/dispatch asks only with a Negotiated); a
// typed _meta namespace is decoded with its generated getter, and one that
// is absent or does not decode grants nothing.
func (e *emitter) capBody(c *ir.CapabilityPath) []jen.Code {
	root := "Request"
	if c.InResult {
		root = "Response"
	}
	out := []jen.Code{
		jen.If(jen.Id("n").Dot(root).Op("==").Nil()).Block(jen.Return(jen.False())),
		jen.Id("x0").Op(":=").Id("n").Dot(root),
	}
	for i, st := range c.Steps {
		cur, next := fmt.Sprintf("x%d", i), fmt.Sprintf("x%d", i+1)
		last := i == len(c.Steps)-1
		fl := st.Field
		if st.Namespace != nil {
			ok, err := fmt.Sprintf("ok%d", i), fmt.Sprintf("err%d", i)
			out = append(out, jen.List(jen.Id(next), jen.Id(ok), jen.Id(err)).Op(":=").Id(cur).Dot(st.Namespace.Ref.Type.Name).Call())
			if last {
				return append(out, jen.Return(jen.Id(ok).Op("&&").Id(err).Op("==").Nil()))
			}
			out = append(out, jen.If(jen.Op("!").Id(ok).Op("||").Id(err).Op("!=").Nil()).Block(jen.Return(jen.False())))
			continue
		}
		if last {
			switch {
			case c.Bool && fieldPtr(fl):
				out = append(out, jen.Return(jen.Id(cur).Dot(fl.Name).Op("!=").Nil().Op("&&").Op("*").Id(cur).Dot(fl.Name)))
			case c.Bool:
				out = append(out, jen.Return(jen.Id(cur).Dot(fl.Name)))
			case c.List:
				out = append(out, jen.Return(jen.Len(jen.Id(cur).Dot(fl.Name)).Op(">").Lit(0)))
			case fieldPtr(fl):
				out = append(out, jen.Return(jen.Id(cur).Dot(fl.Name).Op("!=").Nil()))
			default:
				out = append(out, jen.Return(jen.True()))
			}
			break
		}
		if fieldPtr(fl) {
			out = append(out, jen.Id(next).Op(":=").Id(cur).Dot(fl.Name), jen.If(jen.Id(next).Op("==").Nil()).Block(jen.Return(jen.False())))
		} else {
			out = append(out, jen.Id(next).Op(":=").Op("&").Id(cur).Dot(fl.Name))
		}
	}
	return out
}

func namedRef(t *ir.Type) *ir.Ref { return &ir.Ref{Kind: ir.Named, Type: t} }

// gateWalk emits the nested code that reaches step i of g from expr (a value,
// or a pointer to a struct) of shape cur, and records in at each JSON
// pointer where the gated thing is used; ptr and args build that pointer.
func (e *emitter) gateWalk(g *ir.Gate, expr *jen.Statement, cur *ir.Ref, i int, ptr string, args []jen.Code) []jen.Code {
	if i == len(g.Steps) {
		return gateEnd(g, expr, cur, ptr, args)
	}
	switch g.Steps[i].Kind {
	case ir.StepItems, ir.StepValues:
		return e.gateWalkElems(g, expr, cur, i, ptr, args)
	}
	return e.gateWalkMember(g, expr, cur, i, ptr, args)
}

// gateUse appends the JSON pointer ptr (a format string when args are
// given) to at.
func gateUse(ptr string, args []jen.Code) jen.Code {
	var p jen.Code = jen.Lit(ptr)
	if len(args) > 0 {
		p = jen.Qual("fmt", "Sprintf").Call(append([]jen.Code{jen.Lit(ptr)}, args...)...)
	}
	return jen.Id("at").Op("=").Append(jen.Id("at"), p)
}

// gateEnd checks the gated thing at the end of g's path, reached as expr of
// shape cur: a variant set, an enum value, or (neither) its presence.
func gateEnd(g *ir.Gate, expr *jen.Statement, cur *ir.Ref, ptr string, args []jen.Code) []jen.Code {
	t := cur.NamedType()
	switch {
	case g.Variant != nil:
		holder := expr.Clone()
		if t != nil && t.Kind == ir.Struct {
			holder = holder.Dot(t.Union.FieldName())
		}
		return []jen.Code{jen.If(holder.Dot(g.Variant.Name).Op("!=").Nil()).Block(gateUse(ptr, args))}
	case g.EnumValue != nil:
		return []jen.Code{jen.If(expr.Clone().Op("==").Id(g.EnumValue.Name)).Block(gateUse(ptr, args))}
	}
	return []jen.Code{gateUse(ptr, args)}
}

// gateWalkElems loops over every array item or map value of expr (step i)
// and walks on inside each; the pointer gains the index or the escaped key.
func (e *emitter) gateWalkElems(g *ir.Gate, expr *jen.Statement, cur *ir.Ref, i int, ptr string, args []jen.Code) []jen.Code {
	st := g.Steps[i]
	elemPtr := cur.ElemNullable && pointerable(cur.Elem)
	if t := cur.NamedType(); t != nil && t.Kind == ir.Alias {
		elemPtr = t.Target.ElemNullable && pointerable(t.Target.Elem)
	}
	iv := jen.Id(fmt.Sprintf("i%d", i))
	var elem *jen.Statement
	var loop *jen.Statement
	var nptr string
	var nargs []jen.Code
	if st.Kind == ir.StepItems {
		elem = expr.Clone().Index(iv.Clone())
		loop = jen.For(iv.Clone().Op(":=").Range().Add(expr.Clone()))
		nptr, nargs = ptr+"/%d", append(append([]jen.Code{}, args...), iv.Clone())
	} else {
		kv := jen.Id(fmt.Sprintf("k%d", i))
		elem = jen.Id(fmt.Sprintf("v%d", i))
		loop = jen.For(jen.List(kv.Clone(), elem.Clone()).Op(":=").Range().Add(expr.Clone()))
		nptr, nargs = ptr+"/%s", append(append([]jen.Code{}, args...), jen.Qual(WirePath, "PointerToken").Call(kv.Clone()))
	}
	inner := e.gateWalk(g, elem.Clone(), st.Ref, i+1, nptr, nargs)
	if elemPtr {
		inner = []jen.Code{jen.If(elem.Clone().Op("!=").Nil()).Block(inner...)}
	}
	return []jen.Code{loop.Block(inner...)}
}

// gateWalkMember moves into the member of step i, maybe reached through
// union variants (one guarded branch each), and walks on when it is set; at
// the last step of a require gate it checks the member is present instead.
func (e *emitter) gateWalkMember(g *ir.Gate, expr *jen.Statement, cur *ir.Ref, i int, ptr string, args []jen.Code) []jen.Code {
	st := g.Steps[i]
	bases := []*jen.Statement{expr.Clone()}
	var guards []*jen.Statement
	if st.Union != nil {
		bases, guards = nil, nil
		holder := expr.Clone()
		if t := cur.NamedType(); t != nil && t.Kind == ir.Struct {
			holder = holder.Dot(st.Union.FieldName())
		}
		for _, v := range st.Via {
			bases = append(bases, holder.Clone().Dot(v.Name))
			guards = append(guards, holder.Clone().Dot(v.Name).Op("!=").Nil())
		}
	}
	var out []jen.Code
	for bi, base := range bases {
		val := base.Clone().Dot(st.Field.Name)
		nptr := ptr + "/" + jsonpointer.Escape(st.JSON)
		next := val.Clone()
		var guard *jen.Statement
		switch {
		case fieldPtr(st.Field):
			guard = val.Clone().Op("!=").Nil()
			if st.Field.Ref.NamedType() == nil || (g.EnumValue != nil && i == len(g.Steps)-1) {
				next = jen.Op("*").Add(val.Clone())
			}
		case nilable(st.Field.Ref) && !st.Field.Required:
			guard = val.Clone().Op("!=").Nil()
		}
		var inner []jen.Code
		if g.Row.Require && i == len(g.Steps)-1 {
			// Inverse rule: advertised capability, absent member.
			if guard == nil {
				continue // a value member is always present
			}
			inner = []jen.Code{jen.If(val.Clone().Op("==").Nil()).Block(gateUse(nptr, args))}
		} else {
			inner = e.gateWalk(g, next, st.Ref, i+1, nptr, args)
			if guard != nil {
				inner = []jen.Code{jen.If(guard).Block(inner...)}
			}
		}
		if guards != nil {
			inner = []jen.Code{jen.If(guards[bi]).Block(inner...)}
		}
		out = append(out, inner...)
	}
	return out
}

// gatesTest emits one positive and one negative test per resolved gate: a
// typed message that uses the gated thing, built along the gate's path.
func (e *emitter) gatesTest(f *jen.File) {
	caps := e.capabilities()
	var capRows []jen.Code
	for _, c := range caps {
		row := jen.Dict{jen.Id("Path"): jen.Lit(c.Path), jen.Id("Bool"): jen.Lit(c.Bool), jen.Id("InResult"): jen.Lit(c.InResult)}
		if c.List {
			item, _ := json.Marshal([]any{minimalValue(c.Leaf().Elem, 0)})
			row[jen.Id("List")] = jen.Index().Byte().Parens(jen.Lit(string(item)))
		}
		capRows = append(capRows, jen.Values(row))
	}
	var cases []jen.Code
	for _, g := range e.o.Gates {
		value, ptr := e.gateValue(g, namedRef(g.Root), 0)
		if g.Row.Require {
			// The violating message lacks the member: build the path to its holder.
			value, _ = e.gateValue(&ir.Gate{Row: g.Row, Root: g.Root, Steps: g.Steps[:len(g.Steps)-1], Cap: g.Cap}, namedRef(g.Root), 0)
		}
		check := "CheckParams"
		if g.Row.Result {
			check = "CheckResult"
		}
		d := jen.Dict{
			jen.Id("Gate"):       jen.Lit(ir.GateString(g.Row)),
			jen.Id("Capability"): jen.Lit(g.Cap.Path),
			jen.Id("Pointer"):    jen.Lit(ptr),
			jen.Id("Require"):    jen.Lit(g.Row.Require),
			jen.Id("Check"): jen.Func().Params(jen.Id("ng").Qual(TestPath, "Negotiation")).Params(jen.Index().Qual(WirePath, "GateViolation"), jen.Error()).Block(
				jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("negotiated").Call(jen.Id("ng")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("v").Op(":=").Add(value),
				jen.Return(jen.Id("n").Dot(check).Call(jen.Lit(g.Method.Wire), jen.Op("&").Id("v")), jen.Nil()),
			),
		}
		if methodGate(g) {
			d[jen.Id("Method")] = jen.Lit(g.Method.Wire)
			d[jen.Id("Allowed")] = jen.Func().Params(jen.Id("ng").Qual(TestPath, "Negotiation"), jen.Id("method").String()).Params(jen.Bool(), jen.String(), jen.Error()).Block(
				jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("negotiated").Call(jen.Id("ng")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.False(), jen.Lit(""), jen.Err())),
				jen.List(jen.Id("ok"), jen.Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(jen.Id("method")),
				jen.Return(jen.Id("ok"), jen.Id("need"), jen.Nil()),
			)
		}
		cases = append(cases, jen.Values(d))
	}
	initReq, initResp := e.m.Initialize().Params.Name, e.m.Initialize().Result.Name
	// The base negotiation speaks this package's version, when initialize carries one.
	reqOver, respOver := map[string]any{}, map[string]any{}
	if v := e.m.Version; v.Negotiated() {
		reqOver[v.Params.JSON], respOver[v.Result.JSON] = e.o.ProtocolVersion, e.o.ProtocolVersion
	}
	f.Func().Id("negotiated").Params(jen.Id("ng").Qual(TestPath, "Negotiation")).Params(jen.Op("*").Id("Negotiated"), jen.Error()).Block(
		jen.Id("n").Op(":=").Op("&").Id("Negotiated").Values(jen.Dict{jen.Id("Request"): jen.New(jen.Id(initReq)), jen.Id("Response"): jen.New(jen.Id(initResp))}),
		jen.If(jen.Err().Op(":=").Qual(WirePath, "Decode").Call(jen.Id("ng").Dot("Request"), jen.Id("n").Dot("Request"), jen.Qual(WirePath, "Strict")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("n"), jen.Qual(WirePath, "Decode").Call(jen.Id("ng").Dot("Response"), jen.Id("n").Dot("Response"), jen.Qual(WirePath, "Strict"))),
	)
	f.Func().Id("TestGates").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(TestPath, "Gates").Call(jen.Id("t"), jen.Qual(TestPath, "GateTable").Values(jen.Dict{
			jen.Id("Base"): jen.Qual(TestPath, "Negotiation").Values(jen.Dict{
				jen.Id("Request"):  jen.Index().Byte().Parens(jen.Lit(string(minimalJSON(e.m.Initialize().Params, reqOver)))),
				jen.Id("Response"): jen.Index().Byte().Parens(jen.Lit(string(minimalJSON(e.m.Initialize().Result, respOver)))),
			}),
			jen.Id("Capabilities"): jen.Index().Qual(TestPath, "Capability").Values(capRows...),
			jen.Id("Cases"):        jen.Index().Qual(TestPath, "GateCase").Values(cases...),
		})),
	)
	f.Comment("ptr returns a pointer to a copy of v.")
	f.Func().Id("ptr").Types(jen.Id("T").Any()).Params(jen.Id("v").Id("T")).Op("*").Id("T").Block(jen.Return(jen.Op("&").Id("v")))
}

// gateValue builds a Go expression of shape cur whose value reaches the gated
// thing from step i, and the JSON pointer the violation will carry.
func (e *emitter) gateValue(g *ir.Gate, cur *ir.Ref, i int) (*jen.Statement, string) {
	t := cur.NamedType()
	if i == len(g.Steps) {
		switch {
		case g.Variant != nil:
			v := jen.Id(g.Union.Name).Values(jen.Dict{jen.Id(g.Variant.Name): jen.Op("&").Id(g.Variant.Payload.Type.Name).Values()})
			if t.Kind == ir.Struct {
				return jen.Id(t.Name).Values(jen.Dict{jen.Id(g.Union.FieldName()): v}), ""
			}
			return v, ""
		case g.EnumValue != nil:
			return jen.Id(g.EnumValue.Name), ""
		}
		return e.zeroValue(cur), ""
	}
	st := g.Steps[i]
	inner, rest := e.gateValue(g, st.Ref, i+1)
	if st.Kind == ir.StepItems || st.Kind == ir.StepValues {
		r := cur
		if t != nil && t.Kind == ir.Alias {
			r = t.Target
		}
		if r.ElemNullable && pointerable(r.Elem) {
			inner = jen.Id("ptr").Call(inner)
		}
		if st.Kind == ir.StepItems {
			return goType(cur).Values(inner), "/0" + rest
		}
		return goType(cur).Values(jen.Dict{jen.Lit("k"): inner}), "/k" + rest
	}
	if fieldPtr(st.Field) {
		inner = jen.Id("ptr").Call(inner)
	}
	member := jen.Dict{jen.Id(st.Field.Name): inner}
	ptr := "/" + jsonpointer.Escape(st.JSON) + rest
	if st.Union == nil {
		return jen.Id(t.Name).Values(member), ptr
	}
	v := st.Via[0]
	u := jen.Id(st.Union.Name).Values(jen.Dict{jen.Id(v.Name): jen.Op("&").Id(v.Payload.Type.Name).Values(member)})
	if t.Kind == ir.Struct {
		return jen.Id(t.Name).Values(jen.Dict{jen.Id(st.Union.FieldName()): u}), ptr
	}
	return u, ptr
}

// zeroValue is a present value of shape r: non-nil for slices and maps, so
// presence gates see it.
func (e *emitter) zeroValue(r *ir.Ref) *jen.Statement {
	switch r.Kind {
	case ir.Array, ir.Map:
		return goType(r).Values()
	case ir.String:
		return jen.Lit("")
	case ir.Bool:
		return jen.False()
	case ir.Int, ir.Float:
		return goType(r).Call(jen.Lit(0))
	case ir.Raw, ir.Routed:
		return jen.Qual(WirePath, "Raw").Call(jen.Lit("{}"))
	}
	t := r.NamedType()
	if t.Kind == ir.Alias && nilable(t.Target) {
		return jen.Id(r.Type.Name).Values()
	}
	if t.Kind == ir.Alias || t.Kind == ir.Enum {
		return jen.Op("*").New(jen.Id(r.Type.Name))
	}
	return jen.Id(r.Type.Name).Values()
}
