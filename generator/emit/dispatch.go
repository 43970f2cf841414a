package emit

import (
	"fmt"
	"slices"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// JSONRPCPath is the connection runtime the dispatcher runs on.
const JSONRPCPath = "github.com/acpgen/acpgen/runtime/jsonrpc"

// side is one end of a connection: the methods it handles and those it calls.
type side struct {
	name    string // "agent" or "client"
	peer    string
	Name    string // Go prefix: Agent, Client
	handles []*ir.Method
	calls   []*ir.Method
}

func (e *emitter) sides() []*side {
	var out []*side
	for _, s := range []string{"agent", "client"} {
		peer := map[string]string{"agent": "client", "client": "agent"}[s]
		sd := &side{name: s, peer: peer, Name: ir.GoName(s)}
		for _, m := range e.m.Methods {
			switch m.Side {
			case s:
				sd.handles = append(sd.handles, m)
			case peer:
				sd.calls = append(sd.calls, m)
			}
		}
		if len(sd.handles) > 0 {
			out = append(out, sd)
		}
	}
	return out
}

func (e *emitter) hasDispatch() bool {
	if !e.hasGates() {
		return false
	}
	s := e.sides()
	return len(s) == 2
}

func methodGo(m *ir.Method) string { return m.Name } // the IR names methods (see ir.Method.Name)

func ctxParam() jen.Code { return jen.Id("ctx").Qual("context", "Context") }

// versioned reports whether the dispatcher negotiates the protocol version
// (see ir.Versioning).
func (e *emitter) versioned() bool { return e.m.Version.Negotiated() }

// turns returns the prompt turn when session/cancel can end it and the
// prompt then answers "cancelled" (see ir.Turn), else nil.
func (e *emitter) turns() *ir.Turn {
	if !e.m.Turn.Cancellable() {
		return nil
	}
	return e.m.Turn
}

// tracked returns the prompt turn when session/cancel ends a session's
// turns, so the agent's connection tracks them (see dispatch.TurnMethods),
// else nil.
func (e *emitter) tracked() *ir.Turn {
	if !e.m.Turn.Tracked() {
		return nil
	}
	return e.m.Turn
}

// DispatchPath is the runtime package that owns the per-method table's
// mechanics: inbound routing, outbound calls, gate evaluation.
const DispatchPath = "github.com/acpgen/acpgen/runtime/dispatch"

func (e *emitter) dispatch(f *jen.File) {
	f.Comment("ExtHandler receives \"_\"-prefixed extension methods that the schema does not describe.")
	f.Comment("A handler that also implements it gets them; otherwise requests are answered")
	f.Comment("method-not-found and notifications are dropped.")
	f.Type().Id("ExtHandler").Op("=").Qual(DispatchPath, "ExtHandler")
	f.Comment("ConnOptions configures a connection end: the JSON-RPC runtime (RPC), strict decoding")
	f.Comment("(Strict; the default is lenient, accepting what the official SDKs accept) and what")
	f.Comment("happens to an inbound notification that is dropped (OnDrop).")
	f.Type().Id("ConnOptions").Op("=").Qual(DispatchPath, "Options")
	f.Line()
	for _, sd := range e.sides() {
		e.methodTable(f, sd)
	}
	e.opening(f)
	for _, sd := range e.sides() {
		e.sideDispatch(f, sd)
	}
}

// opening emits the descriptor of initialize's negotiation, which both
// sides' routes share and runtime/dispatch carries out (dispatch.Opening):
// the gate table, the package's record of it and, as ir.Model.Version
// says, where the protocol version is and which one the package speaks.
func (e *emitter) opening(f *jen.File) {
	o := jen.Dict{
		jen.Id("Method"):     jen.Id(MethodConst(e.m.Initialize().Wire)),
		jen.Id("Gates"):      jen.Op("&").Id("gates"),
		jen.Id("Negotiated"): jen.Id("newNegotiated"),
	}
	if v := e.m.Version; v.Negotiated() {
		o[jen.Id("Version")] = jen.Op("&").Qual(DispatchPath, "Version").Values(jen.Dict{
			jen.Id("Current"): jen.Lit(e.o.ProtocolVersion), // as CurrentProtocolVersion
			jen.Id("Params"):  jen.Lit(v.Params.Name),
			jen.Id("Result"):  jen.Lit(v.Result.Name),
		})
	}
	f.Comment("opening is how initialize negotiates (see dispatch.Opening).")
	f.Var().Id("opening").Op("=").Qual(DispatchPath, "Opening").Values(o)
	f.Line()
}

// tableName is the exported table of the methods sd handles.
func tableName(sd *side) string { return sd.Name + "Methods" }

// tableType is the named struct type of tableName: named, so that a method
// a later schema adds is a field added (a compatible change), not a new
// type of the variable.
func tableType(sd *side) string { return sd.Name + "MethodTable" }

// descriptorVar is the package-level variable holding m's descriptor.
func descriptorVar(m *ir.Method) string {
	return unexported(ir.GoName(m.Side)) + methodGo(m) + "Desc"
}

// descriptor is a pointer to m's descriptor. Calls and routes take it
// from its own variable, not the side's table, so a program keeps only the
// descriptors it uses.
func descriptor(m *ir.Method) *jen.Statement {
	return jen.Op("&").Id(descriptorVar(m))
}

// methodRef is a pointer to the dispatch.Method of m's descriptor: what the
// connection's calls and routes take, so that no generic function or method
// is instantiated per method (see runtime/dispatch's Method).
func methodRef(m *ir.Method) *jen.Statement {
	return jen.Op("&").Id(descriptorVar(m)).Dot("Method")
}

// methodTable emits the descriptors of the methods sd handles: one
// runtime/dispatch descriptor each, typed with the params and result.
func (e *emitter) methodTable(f *jen.File, sd *side) {
	var fields, values []jen.Code
	gated := e.gatedMethods()
	for _, m := range sd.handles {
		kv := func(k string, v jen.Code) jen.Code { return jen.Id(k).Op(":").Add(v) }
		info := []jen.Code{kv("Wire", jen.Id(MethodConst(m.Wire))), kv("Side", jen.Lit(m.Side))}
		if m.Notification {
			info = append(info, kv("Notification", jen.True()))
		}
		if m.SessionScoped() {
			info = append(info, kv("SessionScoped", jen.True()))
		}
		if e.hasGates() && slices.Contains(gated, m) {
			info = append(info, kv("Gates", jen.Op("&").Id(gatesVar(m))))
		}
		info = append(info, kv("Params", e.tableExpr(m.Params)))
		if !m.Notification {
			info = append(info, kv("Result", e.tableExpr(m.Result)))
		}
		var typ *jen.Statement
		lit := jen.Dict{jen.Id("Method"): jen.Qual(DispatchPath, "Method").Values(info...)}
		if m.Notification {
			typ = jen.Qual(DispatchPath, "Notification").Types(jen.Op("*").Id(m.Params.Name))
			fields = append(fields, jen.Comment(fmt.Sprintf("%s is the notification %s.", methodGo(m), m.Wire)))
		} else {
			typ = jen.Qual(DispatchPath, "Request").Types(jen.Op("*").Id(m.Params.Name), jen.Op("*").Id(m.Result.Name))
			fields = append(fields, jen.Comment(fmt.Sprintf("%s is the request %s.", methodGo(m), m.Wire)))
		}
		fields = append(fields, jen.Id(methodGo(m)).Op("*").Add(typ.Clone()))
		values = append(values, jen.Line().Add(kv(methodGo(m), descriptor(m))))
		f.Var().Id(descriptorVar(m)).Op("=").Add(typ).Values(lit)
	}
	f.Line()
	f.Comment(fmt.Sprintf("%s is the type of %s: one descriptor per method the %s handles.", tableType(sd), tableName(sd), sd.name))
	f.Type().Id(tableType(sd)).Struct(fields...)
	f.Line()
	f.Comment(fmt.Sprintf("%s describes each method the %s handles (see package runtime/dispatch): its", tableName(sd), sd.name))
	f.Comment("wire name, its params and result types and how they are decoded and checked. The")
	f.Comment("connections route and call through it; a proxy can intercept any method with it.")
	f.Var().Id(tableName(sd)).Op("=").Id(tableType(sd)).Values(append(values, jen.Line())...)
	f.Line()
}

func (e *emitter) sideDispatch(f *jen.File, sd *side) {
	var turns *ir.Turn // the agent tracks turns; the client cancels its own
	if sd.name == "agent" {
		turns = e.turns()
	}
	e.handlerInterface(f, sd)
	wrapped := e.wrappedMethods(sd, turns)
	cname := e.connType(f, sd)
	e.connMethods(f, sd, cname)
	for _, m := range sd.calls {
		e.outboundCall(f, sd, cname, m)
	}
	e.inboundRouting(f, sd, cname, turns, wrapped)
	f.Line()
}

// wrappedMethods are the methods sd's connection handles itself after
// the handler: with turns the prompt (its answer when cancelled). Each is
// a method of the connection route calls (handleSessionPrompt), so the
// handler needs no wrapper type, whose method set Go would compile twice
// (value and pointer) for the interface.
func (e *emitter) wrappedMethods(sd *side, turns *ir.Turn) map[*ir.Method]bool {
	if turns == nil || !e.handles(sd, turns.Prompt) {
		return nil
	}
	return map[*ir.Method]bool{turns.Prompt: true}
}

// wrapperName is the connection's method that handles m around the handler.
func wrapperName(m *ir.Method) string { return "handle" + methodGo(m) }

// handles reports whether sd handles m.
func (e *emitter) handles(sd *side, m *ir.Method) bool {
	for _, h := range sd.handles {
		if h == m {
			return true
		}
	}
	return false
}

// handlerInterface emits the side's handler interface and its
// Unimplemented embeddable.
func (e *emitter) handlerInterface(f *jen.File, sd *side) {
	hname := sd.Name + "Handler"
	var methods []jen.Code
	for _, m := range sd.handles {
		kind := "request"
		if m.Notification {
			kind = "notification"
		}
		methods = append(methods, jen.Comment(fmt.Sprintf("%s handles the %s %s.", methodGo(m), kind, m.Wire)))
		if m.Notification {
			methods = append(methods, jen.Id(methodGo(m)).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)))
		} else {
			methods = append(methods, jen.Id(methodGo(m)).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)).Params(jen.Op("*").Id(m.Result.Name), jen.Error()))
		}
	}
	f.Comment(fmt.Sprintf("%s is implemented by the %s side: one method per method the %s handles. Embed", hname, sd.name, sd.name))
	f.Comment(fmt.Sprintf("Unimplemented%s so an implementation compiles unchanged when upstream adds methods.", hname))
	f.Type().Id(hname).Interface(methods...)
	un := "Unimplemented" + hname
	f.Comment(fmt.Sprintf("%s answers every request method-not-found and ignores notifications.", un))
	f.Type().Id(un).Struct()
	for _, m := range sd.handles {
		if m.Notification {
			f.Comment(fmt.Sprintf("%s ignores the notification.", methodGo(m)))
			f.Func().Params(jen.Id(un)).Id(methodGo(m)).Params(jen.Qual("context", "Context"), jen.Op("*").Id(m.Params.Name)).Block()
		} else {
			f.Comment(fmt.Sprintf("%s answers method-not-found.", methodGo(m)))
			f.Func().Params(jen.Id(un)).Id(methodGo(m)).Params(jen.Qual("context", "Context"), jen.Op("*").Id(m.Params.Name)).Params(jen.Op("*").Id(m.Result.Name), jen.Error()).Block(
				jen.Return(jen.Nil(), jen.Qual(DispatchPath, "MethodNotFound").Call(jen.Id(MethodConst(m.Wire)))))
		}
	}
	f.Var().Id("_").Id(hname).Op("=").Id(un).Values()
	f.Line()
}

// connType emits the side's connection struct and its constructor.
func (e *emitter) connType(f *jen.File, sd *side) (cname string) {
	cname, hname := sd.Name+"Conn", sd.Name+"Handler"
	fields := []jen.Code{
		jen.Id("end").Qual(DispatchPath, "End"),
		jen.Id("h").Id(hname),
	}
	f.Comment(fmt.Sprintf("%s is the %s's end of a connection: it routes inbound messages to a %s", cname, sd.name, hname))
	f.Comment(fmt.Sprintf("(decoding, validating and gate-checking them first) and sends typed calls to the %s,", sd.peer))
	f.Comment("checked against what the peer advertised. Concurrency is the runtime's: requests run")
	f.Comment("concurrently, notifications in order; see package runtime/jsonrpc.")
	f.Type().Id(cname).Struct(fields...)
	init := jen.Dict{jen.Id("h"): jen.Id("h")}
	body := []jen.Code{
		jen.Id("c").Op(":=").Op("&").Id(cname).Values(init),
		jen.Qual(DispatchPath, "Connect").Call(jen.Op("&").Id("c").Dot("end"), jen.Op("&").Id(routesVar(sd)), jen.Id("c").Dot("route"), jen.Id("h"), jen.Id("r"), jen.Id("w"), jen.Id("o")),
		jen.Return(jen.Id("c")),
	}
	f.Comment(fmt.Sprintf("New%s connects h to a peer over r (its output) and w (its input), e.g. os.Stdin and os.Stdout.", cname))
	f.Func().Id("New"+cname).Params(jen.Id("h").Id(hname), jen.Id("r").Qual("io", "Reader"), jen.Id("w").Qual("io", "Writer"), jen.Id("o").Id("ConnOptions")).Op("*").Id(cname).Block(body...)
	return cname
}

// connMethods emits Run, Close, Negotiated and the unchecked senders.
func (e *emitter) connMethods(f *jen.File, sd *side, cname string) {
	rpc := func() *jen.Statement { return jen.Id("c").Dot("end").Dot("Conn") }
	f.Comment("Run serves the connection until EOF, Close or ctx ends; it returns nil on EOF.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Run").Params(ctxParam()).Error().Block(
		jen.Return(rpc().Dot("Run").Call(jen.Id("ctx"))))
	f.Comment("Close stops the connection.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Close").Params().Error().Block(jen.Return(rpc().Dot("Close").Call()))
	f.Comment("Negotiated returns what both sides advertised in initialize (nil messages before it).")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Negotiated").Params().Id("Negotiated").Block(
		jen.If(jen.List(jen.Id("n"), jen.Id("ok")).Op(":=").Id("c").Dot("end").Dot("Negotiated").Call().Assert(jen.Op("*").Id("Negotiated")), jen.Id("ok")).Block(jen.Return(jen.Op("*").Id("n"))),
		jen.Return(jen.Id("Negotiated").Values()))
	f.Comment("Send sends a request as is (no checks): for tests, proxies and methods the schema does not describe.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Send").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Params(jen.Qual(WirePath, "Raw"), jen.Error()).Block(
		jen.Return(rpc().Dot("Call").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params"))))
	f.Comment("SendNotification sends a notification as is (no checks).")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("SendNotification").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Error().Block(
		jen.Return(rpc().Dot("Notify").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params"))))
}

// routesVar is the package-level dispatch.Routes of the methods sd handles.
func routesVar(sd *side) string { return unexported(sd.Name) + "Routes" }

// inboundRouting emits the side's routing: a static dispatch.Routes of the
// methods it handles with their params types, and the connection's route,
// which calls the handler method: one switch over the method's number, so
// the package compiles no function per method.
// The wrapped methods go through the connection's own handling (see
// wrappedMethods).
func (e *emitter) inboundRouting(f *jen.File, sd *side, cname string, turns *ir.Turn, wrapped map[*ir.Method]bool) {
	var methods, routes []jen.Code
	for i, m := range sd.handles {
		methods = append(methods, jen.Line().Values(
			jen.Id("Method").Op(":").Add(methodRef(m)),
			jen.Id("Params").Op(":").Parens(jen.Op("*").Id(m.Params.Name)).Call(jen.Nil())))
		handler := jen.Id("c").Dot("h").Dot(methodGo(m))
		if wrapped[m] {
			handler = jen.Id("c").Dot(wrapperName(m))
		}
		call := handler.Call(jen.Id("ctx"), jen.Id("p").Assert(jen.Op("*").Id(m.Params.Name)))
		if m.Notification {
			routes = append(routes, jen.Case(jen.Lit(i)).Block(call))
			continue
		}
		routes = append(routes, jen.Case(jen.Lit(i)).Block(
			jen.If(jen.List(jen.Id("res"), jen.Err()).Op(":=").Add(call), jen.Id("res").Op("!=").Nil().Op("||").Err().Op("!=").Nil()).Block(
				jen.Return(jen.Id("res"), jen.Err()))))
	}
	f.Comment(fmt.Sprintf("%s are the methods a %s routes to its handler and their params types,", routesVar(sd), cname))
	f.Comment("numbered as its route numbers them. It is static data: a program that never serves this")
	f.Comment("side links none of it.")
	routesLit := jen.Dict{
		jen.Id("Open"):    jen.Op("&").Id("opening"),
		jen.Id("Methods"): jen.Index().Qual(DispatchPath, "Handled").Values(append(methods, jen.Line())...),
	}
	if t := e.tracked(); t != nil && sd.name == t.Prompt.Side {
		// The runtime registers turns and applies cancels in wire order.
		routesLit[jen.Id("Turn")] = jen.Op("&").Qual(DispatchPath, "TurnMethods").Values(jen.Dict{
			jen.Id("Prompt"): jen.Id(MethodConst(t.Prompt.Wire)),
			jen.Id("Cancel"): jen.Id(MethodConst(t.Cancel.Wire)),
		})
	}
	f.Var().Id(routesVar(sd)).Op("=").Qual(DispatchPath, "Routes").Values(routesLit)
	f.Comment(fmt.Sprintf("route calls the handler of %s' method i with its params p, decoded and checked", routesVar(sd)))
	f.Comment("(see dispatch.Route): a result the handler returned nil is no result.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("route").Params(ctxParam(), jen.Id("i").Int(), jen.Id("p").Any()).Params(jen.Any(), jen.Error()).Block(
		jen.Switch(jen.Id("i")).Block(routes...),
		jen.Return(jen.Nil(), jen.Nil()))
	if wrapped != nil {
		e.sideWrapper(f, sd, cname, turns)
	}
}

// sideWrapper emits the connection's handling of its wrapped methods
// around the handler's (see wrappedMethods): the prompt of a turn that
// session/cancel ended answers "cancelled".
func (e *emitter) sideWrapper(f *jen.File, sd *side, cname string, turns *ir.Turn) {
	inner := func(m *ir.Method) *jen.Statement { return jen.Id("c").Dot("h").Dot(methodGo(m)) }
	recv := jen.Id("c").Op("*").Id(cname)
	f.Comment(fmt.Sprintf("%s calls the handler's %s: the runtime ended its context when %s for", wrapperName(turns.Prompt), methodGo(turns.Prompt), turns.Cancel.Wire))
	f.Comment("its session was read after it (see dispatch.Turn).")
	f.Func().Params(recv.Clone()).Id(wrapperName(turns.Prompt)).Params(ctxParam(), jen.Id("p").Op("*").Id(turns.Prompt.Params.Name)).Params(jen.Op("*").Id(turns.Prompt.Result.Name), jen.Error()).Block(
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Add(inner(turns.Prompt)).Call(jen.Id("ctx"), jen.Id("p")),
		jen.Comment(fmt.Sprintf("A turn ended by %s, or by the end of a drain of the connection (see", turns.Cancel.Wire)),
		jen.Comment(fmt.Sprintf("jsonrpc.Drain), answers %s %q, not an error.", turns.StopReason.JSON, turns.Cancelled.String)),
		jen.If(jen.Parens(jen.Qual(DispatchPath, "TurnCancelled").Call(jen.Id("ctx")).Op("||").Qual(JSONRPCPath, "Drained").Call(jen.Id("ctx"))).Op("&&").Parens(jen.Err().Op("!=").Nil().Op("||").Id("res").Op("==").Nil())).Block(
			jen.Return(jen.Op("&").Id(turns.Prompt.Result.Name).Values(jen.Dict{jen.Id(turns.StopReason.Name): jen.Id(turns.Cancelled.Name)}), jen.Nil())),
		jen.Return(jen.Id("res"), jen.Err()),
	)
}

// unexported is the exported Go name s with its first letter in lower case.
func unexported(s string) string { return string(s[0]+32) + s[1:] }

// outboundCall emits a typed call to the peer: one call into
// runtime/dispatch. initialize opens the connection (End.Open negotiates);
// the client's prompt also sends the turn's cancel when its context ends.
func (e *emitter) outboundCall(f *jen.File, sd *side, cname string, m *ir.Method) {
	name := methodGo(m)
	recv := jen.Id("c").Op("*").Id(cname)
	end := func() *jen.Statement { return jen.Id("c").Dot("end") }
	if m.Notification {
		f.Comment(fmt.Sprintf("%s sends the notification %s to the %s, after checking it is valid and allowed.", name, m.Wire, sd.peer))
		f.Comment("It returns once the frame is written, so notifications precede a later response.")
		if t := e.tracked(); t != nil && sd.name == t.Prompt.Side {
			f.Comment(fmt.Sprintf("On the context of a %s turn that %s or a drain ended, it still writes until", t.Prompt.Wire, t.Cancel.Wire))
			f.Comment("the prompt is answered (each write within dispatch.FinalWriteTimeout), so the turn's last")
			f.Comment(fmt.Sprintf("updates reach the %s; otherwise a ctx that has ended writes nothing.", sd.peer))
		}
		f.Func().Params(recv).Id(name).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)).Error().Block(
			jen.Return(end().Dot("Notify").Call(jen.Id("ctx"), methodRef(m), jen.Id("params"))))
		return
	}
	args := []jen.Code{jen.Id("ctx"), methodRef(m), jen.Id("params"), jen.Id("res")}
	f.Comment(fmt.Sprintf("%s calls %s on the %s, after checking the params are valid and allowed; the result is", name, m.Wire, sd.peer))
	f.Comment("decoded, validated and checked against what this side advertised.")
	call := end().Dot("Call").Call(args...)
	if t := e.turns(); sd.name == "client" && t != nil && m == t.Prompt {
		f.Comment(fmt.Sprintf("When ctx ends first, it sends %s for params' session as well as the runtime's", t.Cancel.Wire))
		f.Comment("$/cancel_request (which agents may ignore), and returns ctx's error.")
		cancel := jen.Op("&").Id(t.Cancel.Params.Name).Values(jen.Dict{jen.Id(t.CancelSession.Name): jen.Id("params").Dot(t.PromptSession.Name)})
		call = end().Dot("CallTurn").Call(append(args, jen.Id(MethodConst(t.Cancel.Wire)), cancel)...)
	}
	sig := f.Func().Params(recv).Id(name).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)).Params(jen.Op("*").Id(m.Result.Name), jen.Error())
	if m == e.m.Initialize() {
		call = end().Dot("Open").Call(args...) // negotiates (see dispatch.Opening)
	}
	sig.Block(typedCall(m, call)...)
}

// typedCall is the body of a typed outbound call: the result allocated for
// call to decode into, nil on failure.
func typedCall(m *ir.Method, call *jen.Statement) []jen.Code {
	return []jen.Code{
		jen.Id("res").Op(":=").New(jen.Id(m.Result.Name)),
		jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("res"), jen.Nil()),
	}
}
