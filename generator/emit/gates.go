package emit

import (
	"fmt"

	. "github.com/dave/jennifer/jen"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// namedType resolves aliases of a named shape.
func namedType(r *ir.Ref) *ir.Type {
	if r == nil || r.Kind != ir.Named {
		return nil
	}
	t := r.Type
	for t.Kind == ir.Alias && t.Target.Kind == ir.Named {
		t = t.Target.Type
	}
	return t
}

func (e *emitter) hasGates() bool {
	return e.m.Initialize() != nil
}

// capFuncs names one accessor per capability path, in first-use order.
func (e *emitter) capFuncs() ([]*ir.CapabilityPath, map[string]string) {
	var caps []*ir.CapabilityPath
	names := map[string]string{}
	for _, g := range e.o.Gates {
		if _, ok := names[g.Cap.Dotted]; !ok {
			names[g.Cap.Dotted] = fmt.Sprintf("cap%d", len(caps))
			caps = append(caps, g.Cap)
		}
	}
	return caps, names
}

// gates emits the negotiated-capabilities API: Allows, AllowsMethod,
// CheckParams and CheckResult, generated from the resolved gate table.
func (e *emitter) gates(f *File) {
	init, initResult := e.m.Initialize().Params, e.m.Initialize().Result
	f.Comment("Negotiated holds what both sides advertised in initialize. Gates consult it: a")
	f.Comment("capability is granted by true, or by the presence of its (non-null) object.")
	f.Type().Id("Negotiated").Struct(
		Comment("Request is the client's initialize params (its clientCapabilities)."),
		Id("Request").Op("*").Id(init.Name),
		Comment("Response is the agent's initialize result (its agentCapabilities)."),
		Id("Response").Op("*").Id(initResult.Name),
	)
	caps, names := e.capFuncs()
	var cases []Code
	for _, c := range caps {
		cases = append(cases, Case(Lit(c.Dotted)).Block(Return(Id("n").Dot(names[c.Dotted]).Call())))
	}
	f.Comment("Allows reports whether the capability at the dotted path was advertised.")
	f.Func().Params(Id("n").Op("*").Id("Negotiated")).Id("Allows").Params(Id("capability").String()).Bool().Block(
		Switch(Id("capability")).Block(cases...), Return(False()))
	for _, c := range caps {
		f.Func().Params(Id("n").Op("*").Id("Negotiated")).Id(names[c.Dotted]).Params().Bool().Block(e.capBody(c)...)
	}
	// Method gates.
	var mcases []Code
	methodCaps := map[string][]string{}
	var order []string
	for _, g := range e.o.Gates {
		if len(g.Steps) == 0 && g.Variant == nil && g.EnumValue == nil {
			if _, ok := methodCaps[g.Method.Wire]; !ok {
				order = append(order, g.Method.Wire)
			}
			methodCaps[g.Method.Wire] = append(methodCaps[g.Method.Wire], g.Cap.Dotted)
		}
	}
	for _, w := range order {
		mcases = append(mcases, Case(Lit(w)).Block(Return(Lit(methodCaps[w][0]), True())))
	}
	f.Comment("MethodCapability returns the capability a peer must have advertised before it may be sent method.")
	f.Func().Id("MethodCapability").Params(Id("method").String()).Params(String(), Bool()).Block(
		Switch(Id("method")).Block(mcases...), Return(Lit(""), False()))
	f.Comment("AllowsMethod reports whether method may be sent, and the capability it needs when it may not.")
	f.Func().Params(Id("n").Op("*").Id("Negotiated")).Id("AllowsMethod").Params(Id("method").String()).Params(Bool(), String()).Block(
		List(Id("c"), Id("gated")).Op(":=").Id("MethodCapability").Call(Id("method")),
		If(Op("!").Id("gated").Op("||").Id("n").Dot("Allows").Call(Id("c"))).Block(Return(True(), Lit(""))),
		Return(False(), Id("c")),
	)
	e.checkFunc(f, false, names)
	e.checkFunc(f, true, names)
}

// capBody walks the initialize message to the capability, nil-safe.
func (e *emitter) capBody(c *ir.CapabilityPath) []Code {
	root := "Request"
	if c.InResult {
		root = "Response"
	}
	out := []Code{
		If(Id("n").Op("==").Nil().Op("||").Id("n").Dot(root).Op("==").Nil()).Block(Return(False())),
		Id("x0").Op(":=").Id("n").Dot(root),
	}
	for i, fl := range c.Fields {
		cur, next := fmt.Sprintf("x%d", i), fmt.Sprintf("x%d", i+1)
		last := i == len(c.Fields)-1
		if last {
			switch {
			case c.Bool && fieldPtr(fl):
				out = append(out, Return(Id(cur).Dot(fl.Name).Op("!=").Nil().Op("&&").Op("*").Id(cur).Dot(fl.Name)))
			case c.Bool:
				out = append(out, Return(Id(cur).Dot(fl.Name)))
			case fieldPtr(fl):
				out = append(out, Return(Id(cur).Dot(fl.Name).Op("!=").Nil()))
			default:
				out = append(out, Return(True()))
			}
			break
		}
		if fieldPtr(fl) {
			out = append(out, Id(next).Op(":=").Id(cur).Dot(fl.Name), If(Id(next).Op("==").Nil()).Block(Return(False())))
		} else {
			out = append(out, Id(next).Op(":=").Op("&").Id(cur).Dot(fl.Name))
		}
	}
	return out
}

func (e *emitter) checkFunc(f *File, result bool, names map[string]string) {
	byMethod := map[string][]*ir.Gate{}
	var order []string
	for _, g := range e.o.Gates {
		if g.Row.Result != result {
			continue
		}
		if _, ok := byMethod[g.Method.Wire]; !ok {
			order = append(order, g.Method.Wire)
		}
		byMethod[g.Method.Wire] = append(byMethod[g.Method.Wire], g)
	}
	var cases []Code
	for _, w := range order {
		gs := byMethod[w]
		root := gs[0].Root
		body := []Code{
			List(Id("p"), Id("ok")).Op(":=").Id("v").Assert(Op("*").Id(root.Name)),
			If(Op("!").Id("ok").Op("||").Id("p").Op("==").Nil()).Block(Return(Id("out"))),
		}
		for _, g := range gs {
			body = append(body, e.gateWalk(g, names[g.Cap.Dotted], Id("p"), namedRef(root), 0, "", nil)...)
		}
		cases = append(cases, Case(Lit(w)).Block(body...))
	}
	name, what := "CheckParams", "params"
	if result {
		name, what = "CheckResult", "result"
	}
	f.Comment(fmt.Sprintf("%s returns every gated method, member or variant that the %s of method (a pointer to", name, what))
	f.Comment("its generated type) uses without the capability that allows it; nil when all are allowed.")
	f.Func().Params(Id("n").Op("*").Id("Negotiated")).Id(name).Params(Id("method").String(), Id("v").Any()).Params(Id("out").Index().Qual(WirePath, "GateViolation")).Block(
		Switch(Id("method")).Block(cases...), Return(Id("out")))
}

func namedRef(t *ir.Type) *ir.Ref { return &ir.Ref{Kind: ir.Named, Type: t} }

// gateWalk emits the nested code that reaches step i of g from expr (a value,
// or a pointer to a struct) of shape cur; ptr and args build the violation's
// JSON pointer only when one is recorded.
func (e *emitter) gateWalk(g *ir.Gate, capFn string, expr *Statement, cur *ir.Ref, i int, ptr string, args []Code) []Code {
	record := func(ptr string, args []Code) Code {
		var p Code = Lit(ptr)
		if len(args) > 0 {
			p = Qual("fmt", "Sprintf").Call(append([]Code{Lit(ptr)}, args...)...)
		}
		variant := ""
		if g.Row.Variant != "" {
			variant = g.Row.Variant
		}
		d := Dict{Id("Method"): Id("method"), Id("Pointer"): p, Id("Variant"): Lit(variant), Id("Capability"): Lit(g.Cap.Dotted)}
		if g.Row.Require {
			d[Id("Required")] = True()
		}
		return Id("out").Op("=").Append(Id("out"), Qual(WirePath, "GateViolation").Values(d))
	}
	denied := Op("!").Id("n").Dot(capFn).Call()
	if i == len(g.Steps) {
		t := namedType(cur)
		switch {
		case g.Variant != nil:
			holder := expr.Clone()
			if t != nil && t.Kind == ir.Struct {
				holder = holder.Dot(t.Union.FieldName())
			}
			return []Code{If(holder.Dot(g.Variant.Name).Op("!=").Nil().Op("&&").Add(denied)).Block(record(ptr, args))}
		case g.EnumValue != nil:
			return []Code{If(expr.Clone().Op("==").Id(g.EnumValue.Name).Op("&&").Add(denied)).Block(record(ptr, args))}
		}
		return []Code{If(denied).Block(record(ptr, args))}
	}
	st := g.Steps[i]
	switch st.Kind {
	case ir.StepItems, ir.StepValues:
		elemPtr := cur.ElemNullable && pointerable(cur.Elem)
		if t := namedType(cur); t != nil && t.Kind == ir.Alias {
			elemPtr = t.Target.ElemNullable && pointerable(t.Target.Elem)
		}
		iv := Id(fmt.Sprintf("i%d", i))
		var elem *Statement
		var loop *Statement
		var nptr string
		var nargs []Code
		if st.Kind == ir.StepItems {
			elem = expr.Clone().Index(iv.Clone())
			loop = For(iv.Clone().Op(":=").Range().Add(expr.Clone()))
			nptr, nargs = ptr+"/%d", append(append([]Code{}, args...), iv.Clone())
		} else {
			kv := Id(fmt.Sprintf("k%d", i))
			elem = Id(fmt.Sprintf("v%d", i))
			loop = For(List(kv.Clone(), elem.Clone()).Op(":=").Range().Add(expr.Clone()))
			nptr, nargs = ptr+"/%s", append(append([]Code{}, args...), Qual(WirePath, "PointerToken").Call(kv.Clone()))
		}
		inner := e.gateWalk(g, capFn, elem.Clone(), st.Ref, i+1, nptr, nargs)
		if elemPtr {
			inner = []Code{If(elem.Clone().Op("!=").Nil()).Block(inner...)}
		}
		return []Code{loop.Block(inner...)}
	}
	// A member, maybe reached through union variants.
	bases := []*Statement{expr.Clone()}
	var guards []*Statement
	if st.Union != nil {
		bases, guards = nil, nil
		holder := expr.Clone()
		if t := namedType(cur); t != nil && t.Kind == ir.Struct {
			holder = holder.Dot(st.Union.FieldName())
		}
		for _, v := range st.Via {
			bases = append(bases, holder.Clone().Dot(v.Name))
			guards = append(guards, holder.Clone().Dot(v.Name).Op("!=").Nil())
		}
	}
	var out []Code
	for bi, base := range bases {
		val := base.Clone().Dot(st.Field.Name)
		nptr := ptr + "/" + jsonpointer.Escape(st.JSON)
		next := val.Clone()
		var guard *Statement
		switch {
		case fieldPtr(st.Field):
			guard = val.Clone().Op("!=").Nil()
			if namedType(st.Field.Ref) == nil || (g.EnumValue != nil && i == len(g.Steps)-1) {
				next = Op("*").Add(val.Clone())
			}
		case nilable(st.Field.Ref) && !st.Field.Required:
			guard = val.Clone().Op("!=").Nil()
		}
		var inner []Code
		if g.Row.Require && i == len(g.Steps)-1 {
			// Inverse rule: advertised capability, absent member.
			if guard == nil {
				continue // a value member is always present
			}
			inner = []Code{If(val.Clone().Op("==").Nil().Op("&&").Id("n").Dot(capFn).Call()).Block(record(nptr, args))}
		} else {
			inner = e.gateWalk(g, capFn, next, st.Ref, i+1, nptr, args)
			if guard != nil {
				inner = []Code{If(guard).Block(inner...)}
			}
		}
		if guards != nil {
			inner = []Code{If(guards[bi]).Block(inner...)}
		}
		out = append(out, inner...)
	}
	return out
}

// gatesTest emits one positive and one negative test per resolved gate: a
// typed message that uses the gated thing, built along the gate's path.
func (e *emitter) gatesTest(f *File) {
	caps, _ := e.capFuncs()
	var capRows []Code
	for _, c := range caps {
		capRows = append(capRows, Values(Dict{Id("Path"): Lit(c.Dotted), Id("Bool"): Lit(c.Bool), Id("InResult"): Lit(c.InResult)}))
	}
	var cases []Code
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
		d := Dict{
			Id("Gate"):       Lit(ir.GateString(g.Row)),
			Id("Capability"): Lit(g.Cap.Dotted),
			Id("Pointer"):    Lit(ptr),
			Id("Require"):    Lit(g.Row.Require),
			Id("Check"): Func().Params(Id("ng").Qual(TestPath, "Negotiation")).Params(Index().Qual(WirePath, "GateViolation"), Error()).Block(
				List(Id("n"), Err()).Op(":=").Id("negotiated").Call(Id("ng")),
				If(Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
				Id("v").Op(":=").Add(value),
				Return(Id("n").Dot(check).Call(Lit(g.Method.Wire), Op("&").Id("v")), Nil()),
			),
		}
		if len(g.Steps) == 0 && g.Variant == nil && g.EnumValue == nil {
			d[Id("Method")] = Lit(g.Method.Wire)
			d[Id("Allowed")] = Func().Params(Id("ng").Qual(TestPath, "Negotiation"), Id("method").String()).Params(Bool(), String(), Error()).Block(
				List(Id("n"), Err()).Op(":=").Id("negotiated").Call(Id("ng")),
				If(Err().Op("!=").Nil()).Block(Return(False(), Lit(""), Err())),
				List(Id("ok"), Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(Id("method")),
				Return(Id("ok"), Id("need"), Nil()),
			)
		}
		cases = append(cases, Values(d))
	}
	initReq, initResp := e.m.Initialize().Params.Name, e.m.Initialize().Result.Name
	// The base negotiation speaks this package's version, when initialize carries one.
	reqOver, respOver := map[string]any{}, map[string]any{}
	if v := e.m.Version; v.Negotiated() {
		reqOver[v.Params.JSON], respOver[v.Result.JSON] = e.o.ProtocolVersion, e.o.ProtocolVersion
	}
	f.Func().Id("negotiated").Params(Id("ng").Qual(TestPath, "Negotiation")).Params(Op("*").Id("Negotiated"), Error()).Block(
		Id("n").Op(":=").Op("&").Id("Negotiated").Values(Dict{Id("Request"): New(Id(initReq)), Id("Response"): New(Id(initResp))}),
		If(Err().Op(":=").Qual(WirePath, "Decode").Call(Id("ng").Dot("Request"), Id("n").Dot("Request"), Qual(WirePath, "Strict")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		Return(Id("n"), Qual(WirePath, "Decode").Call(Id("ng").Dot("Response"), Id("n").Dot("Response"), Qual(WirePath, "Strict"))),
	)
	f.Func().Id("TestGates").Params(Id("t").Op("*").Qual("testing", "T")).Block(
		Qual(TestPath, "Gates").Call(Id("t"), Qual(TestPath, "GateTable").Values(Dict{
			Id("Base"): Qual(TestPath, "Negotiation").Values(Dict{
				Id("Request"):  Index().Byte().Parens(Lit(string(minimalJSON(e.m.Initialize().Params, reqOver)))),
				Id("Response"): Index().Byte().Parens(Lit(string(minimalJSON(e.m.Initialize().Result, respOver)))),
			}),
			Id("Capabilities"): Index().Qual(TestPath, "Capability").Values(capRows...),
			Id("Cases"):        Index().Qual(TestPath, "GateCase").Values(cases...),
		})),
	)
	f.Comment("ptr returns a pointer to a copy of v.")
	f.Func().Id("ptr").Types(Id("T").Any()).Params(Id("v").Id("T")).Op("*").Id("T").Block(Return(Op("&").Id("v")))
}

// gateValue builds a Go expression of shape cur whose value reaches the gated
// thing from step i, and the JSON pointer the violation will carry.
func (e *emitter) gateValue(g *ir.Gate, cur *ir.Ref, i int) (*Statement, string) {
	t := namedType(cur)
	if i == len(g.Steps) {
		switch {
		case g.Variant != nil:
			v := Id(g.Union.Name).Values(Dict{Id(g.Variant.Name): Op("&").Id(g.Variant.Payload.Type.Name).Values()})
			if t.Kind == ir.Struct {
				return Id(t.Name).Values(Dict{Id(g.Union.FieldName()): v}), ""
			}
			return v, ""
		case g.EnumValue != nil:
			return Id(g.EnumValue.Name), ""
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
			inner = Id("ptr").Call(inner)
		}
		if st.Kind == ir.StepItems {
			return goType(cur).Values(inner), "/0" + rest
		}
		return goType(cur).Values(Dict{Lit("k"): inner}), "/k" + rest
	}
	if fieldPtr(st.Field) {
		inner = Id("ptr").Call(inner)
	}
	member := Dict{Id(st.Field.Name): inner}
	ptr := "/" + jsonpointer.Escape(st.JSON) + rest
	if st.Union == nil {
		return Id(t.Name).Values(member), ptr
	}
	v := st.Via[0]
	u := Id(st.Union.Name).Values(Dict{Id(v.Name): Op("&").Id(v.Payload.Type.Name).Values(member)})
	if t.Kind == ir.Struct {
		return Id(t.Name).Values(Dict{Id(st.Union.FieldName()): u}), ptr
	}
	return u, ptr
}

// zeroValue is a present value of shape r: non-nil for slices and maps, so
// presence gates see it.
func (e *emitter) zeroValue(r *ir.Ref) *Statement {
	switch r.Kind {
	case ir.Array, ir.Map:
		return goType(r).Values()
	case ir.String:
		return Lit("")
	case ir.Bool:
		return False()
	case ir.Int, ir.Float:
		return goType(r).Call(Lit(0))
	case ir.Raw, ir.Routed:
		return Qual(WirePath, "Raw").Call(Lit("{}"))
	}
	t := namedType(r)
	if t.Kind == ir.Alias && nilable(t.Target) {
		return Id(r.Type.Name).Values()
	}
	if t.Kind == ir.Alias || t.Kind == ir.Enum {
		return Op("*").New(Id(r.Type.Name))
	}
	return Id(r.Type.Name).Values()
}
