package emit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
// MethodCapability, AllowsMethod, CheckParams and CheckResult over the
// resolved gates, which runtime/dispatch evaluates. They are data: each
// capability's path (gates, which Grant reads), and each gated method's
// rows with the pattern of Go fields where a message uses the gated thing
// (gatedMethods); the method descriptors point to their method's rows
// (gatesVar). The rows stay out of gates because every program grants:
// a row's message type would be linked into every binary.
func (e *emitter) gates(f *jen.File) {
	init, initResult := e.m.Initialize().Params, e.m.Initialize().Result
	f.Comment("Negotiated holds what both sides advertised in initialize. Gates consult it: a")
	f.Comment("capability is granted by true, or by the presence of its (non-null) object.")
	f.Type().Id("Negotiated").Struct(
		jen.Comment("Request is the client's initialize params (its clientCapabilities)."),
		jen.Id("Request").Op("*").Id(init.Name),
		jen.Comment("Response is the agent's initialize result (its agentCapabilities)."),
		jen.Id("Response").Op("*").Id(initResult.Name),
		jen.Comment("granted is what they grant, evaluated once by newNegotiated; nil in a Negotiated"),
		jen.Comment("built otherwise, which is evaluated at each call."),
		jen.Id("granted").Op("*").Qual(DispatchPath, "Grants"),
	)
	f.Comment("newNegotiated records what initialize settled, with the capabilities it grants (see dispatch.Opening).")
	f.Func().Id("newNegotiated").Params(jen.List(jen.Id("req"), jen.Id("res")).Any(), jen.Id("g").Op("*").Qual(DispatchPath, "Grants")).Any().Block(
		jen.Return(jen.Op("&").Id("Negotiated").Values(jen.Dict{
			jen.Id("Request"):  jen.Id("req").Assert(jen.Op("*").Id(init.Name)),
			jen.Id("Response"): jen.Id("res").Assert(jen.Op("*").Id(initResult.Name)),
			jen.Id("granted"):  jen.Id("g")})),
	)
	f.Comment("grants returns what n grants; a nil n grants nothing.")
	f.Func().Params(jen.Id("n").Op("*").Id("Negotiated")).Id("grants").Params().Qual(DispatchPath, "Grants").Block(
		jen.Switch().Block(
			jen.Case(jen.Id("n").Op("==").Nil()).Block(jen.Return(jen.Qual(DispatchPath, "Grants").Values())),
			jen.Case(jen.Id("n").Dot("granted").Op("!=").Nil()).Block(jen.Return(jen.Op("*").Id("n").Dot("granted"))),
		),
		jen.Return(jen.Qual(DispatchPath, "Grant").Call(jen.Op("&").Id("gates"), jen.Id("n").Dot("Request"), jen.Id("n").Dot("Response"))),
	)
	var caps []jen.Code
	for _, c := range e.capabilities() {
		caps = append(caps, capabilityRow(c))
	}
	var methods []jen.Code
	for _, m := range e.gatedMethods() {
		f.Var().Id(gatesVar(m)).Op("=").Add(e.methodGates(m))
		methods = append(methods, jen.Op("&").Id(gatesVar(m)))
	}
	f.Comment("gates are the capabilities this package's gates need, which Grant evaluates at")
	f.Comment("initialize. The rows are apart, in gatedMethods and the method descriptors, so a")
	f.Comment("program links only the rows, and message types, of the methods it reaches.")
	f.Var().Id("gates").Op("=").Qual(DispatchPath, "GateTable").Values(lines([]jen.Code{
		field("Capabilities", jen.Index().Qual(DispatchPath, "Capability").Values(lines(caps)...)),
	})...)
	f.Comment("gatedMethods are the gated methods' rows, by method name (see runtime/dispatch).")
	f.Var().Id("gatedMethods").Op("=").Qual(DispatchPath, "GatedMethods").Values(lines([]jen.Code{
		field("Table", jen.Op("&").Id("gates")),
		field("Methods", jen.Index().Op("*").Qual(DispatchPath, "MethodGates").Values(lines(methods)...)),
	})...)
	n := func() *jen.Statement { return jen.Id("n").Op("*").Id("Negotiated") }
	grants := func() *jen.Statement { return jen.Id("n").Dot("grants").Call() }
	f.Comment("Allows reports whether the capability at the path was advertised. The path is dotted")
	f.Comment("(\"agentCapabilities.loadSession\"), or the JSON pointer when a member name holds a dot.")
	f.Func().Params(n()).Id("Allows").Params(jen.Id("capability").String()).Bool().Block(
		jen.Return(jen.Id("gates").Dot("Allows").Call(grants(), jen.Id("capability"))))
	f.Comment("MethodCapability returns the capability a peer must have advertised before it may be sent method.")
	f.Func().Id("MethodCapability").Params(jen.Id("method").String()).Params(jen.String(), jen.Bool()).Block(
		jen.Return(jen.Id("gatedMethods").Dot("MethodCapability").Call(jen.Id("method"))))
	f.Comment("AllowsMethod reports whether method may be sent, and the capability it needs when it may not.")
	f.Func().Params(n()).Id("AllowsMethod").Params(jen.Id("method").String()).Params(jen.Bool(), jen.String()).Block(
		jen.Return(jen.Id("gatedMethods").Dot("AllowsMethod").Call(grants(), jen.Id("method"))))
	for _, what := range []string{"params", "result"} {
		name := "Check" + ir.GoName(what)
		f.Comment(fmt.Sprintf("%s returns every gated method, member or variant that the %s of method (a pointer to", name, what))
		f.Comment("its generated type) uses without the capability that allows it; nil when all are allowed.")
		f.Func().Params(n()).Id(name).Params(jen.Id("method").String(), jen.Id("v").Any()).Index().Qual(WirePath, "GateViolation").Block(
			jen.Return(jen.Id("gatedMethods").Dot(name).Call(grants(), jen.Id("method"), jen.Id("v"))))
	}
}

// capabilityRow is c's row of the table: its path and the message holding
// it; a typed _meta namespace on the way is decoded to tell whether it
// grants (runtime/dispatch.Decodes).
func capabilityRow(c *ir.CapabilityPath) jen.Code {
	row := []jen.Code{field("Path", jen.Lit(c.Path))}
	if c.InResult {
		row = append(row, field("InResult", jen.True()))
	}
	toks := 0
	for _, st := range c.Steps {
		if st.Namespace == nil {
			toks++
			continue
		}
		toks += 2 // _meta and the namespace's key
		row = append(row, field("NamespaceAt", jen.Lit(toks)),
			field("Namespace", jen.Qual(DispatchPath, "Decodes").Types(jen.Id(st.Namespace.Ref.Type.Name))))
		break // past the namespace, the JSON decides
	}
	return jen.Values(row...)
}

// field is the key: value element of a composite literal.
func field(name string, v jen.Code) jen.Code { return jen.Id(name).Op(":").Add(v) }

// lines puts each element of a composite literal on a line of its own.
func lines(elems []jen.Code) []jen.Code {
	var out []jen.Code
	for _, e := range elems {
		out = append(out, jen.Line().Add(e))
	}
	return append(out, jen.Line())
}

// gatedMethods lists the methods with gates, in first-row order.
func (e *emitter) gatedMethods() []*ir.Method {
	var ms []*ir.Method
	for _, g := range e.o.Gates {
		if !slices.Contains(ms, g.Method) {
			ms = append(ms, g.Method)
		}
	}
	return ms
}

// gatesVar is the package-level variable holding m's gate rows.
func gatesVar(m *ir.Method) string {
	return strings.TrimSuffix(descriptorVar(m), "Desc") + "Gates"
}

// methodGates is the runtime/dispatch.MethodGates literal of m's rows, on
// its params and its result, in table order.
func (e *emitter) methodGates(m *ir.Method) jen.Code {
	d := []jen.Code{field("Method", jen.Id(MethodConst(m.Wire)))}
	for _, result := range []bool{false, true} {
		var rows []jen.Code
		var side []jen.Code
		for _, g := range e.o.Gates {
			if g.Method != m || g.Row.Result != result {
				continue
			}
			rows = append(rows, gateRow(g))
			if !methodGate(g) && side == nil {
				side = []jen.Code{field("Type", jen.Parens(jen.Op("*").Id(g.Root.Name)).Call(jen.Nil()))}
			}
		}
		if rows == nil {
			continue
		}
		side = append(side, field("Gates", jen.Index().Qual(DispatchPath, "Gate").Values(lines(rows)...)))
		name := "Params"
		if result {
			name = "Result"
		}
		d = append(d, field(name, jen.Qual(DispatchPath, "GateRows").Values(side...)))
	}
	return jen.Qual(DispatchPath, "MethodGates").Values(lines(d)...)
}

// gateRow is g's runtime/dispatch.Gate: its capability and, unless it
// gates the method itself, the Go field pattern of its use.
func gateRow(g *ir.Gate) jen.Code {
	row := []jen.Code{field("Capability", jen.Lit(g.Cap.Path))}
	if !methodGate(g) {
		row = append(row, field("Use", jen.Lit(gateUse(g))))
	}
	if g.Row.Variant != "" {
		row = append(row, field("Variant", jen.Lit(g.Row.Variant)))
	}
	if g.EnumValue != nil {
		row = append(row, field("Enum", jen.True()))
	}
	if g.Row.Require {
		row = append(row, field("Required", jen.True()))
	}
	return jen.Values(row...)
}

// gateUse is g's pattern: the Go field names from its root to the gated
// thing, "*" into every item or map value, "A|B" through whichever of a
// union's variants declaring the next member is set; a variant at the end
// is its field (set: used). The pointer's tokens come from the fields'
// JSON tags at run time.
func gateUse(g *ir.Gate) string {
	var segs []string
	cur := namedRef(g.Root)
	inline := func(u *ir.Union) {
		if t := cur.NamedType(); t != nil && t.Kind == ir.Struct {
			segs = append(segs, u.FieldName()) // the union inline in its object
		}
	}
	for _, st := range g.Steps {
		switch {
		case st.Kind == ir.StepItems || st.Kind == ir.StepValues:
			segs = append(segs, "*")
		case st.Union != nil:
			inline(st.Union)
			var via []string
			for _, v := range st.Via {
				via = append(via, v.Name)
			}
			segs = append(segs, strings.Join(via, "|"), st.Field.Name)
		default:
			segs = append(segs, st.Field.Name)
		}
		cur = st.Ref
	}
	if g.Variant != nil {
		inline(g.Union)
		segs = append(segs, g.Variant.Name)
	}
	return strings.Join(segs, ".")
}

func namedRef(t *ir.Type) *ir.Ref { return &ir.Ref{Kind: ir.Named, Type: t} }

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
		jen.If(jen.Err().Op(":=").Qual(WirePath, "DecodeWith").Call(jen.Id("ng").Dot("Request"), jen.Id("n").Dot("Request"), e.tableExpr(e.m.Initialize().Params), jen.Qual(WirePath, "Strict")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("n"), jen.Qual(WirePath, "DecodeWith").Call(jen.Id("ng").Dot("Response"), jen.Id("n").Dot("Response"), e.tableExpr(e.m.Initialize().Result), jen.Qual(WirePath, "Strict"))),
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
