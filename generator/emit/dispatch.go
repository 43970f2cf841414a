package emit

import (
	"fmt"

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

// turns returns the prompt turn when session/cancel can end it (see
// ir.Turn), else nil.
func (e *emitter) turns() *ir.Turn {
	if !e.m.Turn.Cancellable() {
		return nil
	}
	return e.m.Turn
}

func (e *emitter) dispatch(f *jen.File) {
	f.Comment("ExtHandler receives \"_\"-prefixed extension methods that the schema does not describe.")
	f.Comment("A handler that also implements it gets them; otherwise requests are answered")
	f.Comment("method-not-found and notifications are dropped.")
	f.Type().Id("ExtHandler").Interface(
		jen.Id("ExtRequest").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Params(jen.Qual(WirePath, "Raw"), jen.Error()),
		jen.Id("ExtNotification").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")),
	)
	f.Comment("ConnOptions configures a connection end.")
	f.Type().Id("ConnOptions").Struct(
		jen.Comment("RPC configures the JSON-RPC runtime (frame size, logger, concurrency, flow-control bounds)."),
		jen.Id("RPC").Qual(JSONRPCPath, "Options"),
		jen.Comment("Strict decodes inbound messages without the schema's leniency; the default is"),
		jen.Comment("lenient, accepting what the official SDKs accept."),
		jen.Id("Strict").Bool(),
		jen.Comment("OnDrop is told about inbound notifications that were dropped because they were"),
		jen.Comment("invalid or used a capability this side did not advertise (a notification cannot be"),
		jen.Comment("answered). Nil logs them with RPC.Logger, or to stderr."),
		jen.Id("OnDrop").Func().Params(jen.Id("method").String(), jen.Err().Error()),
	)
	f.Func().Id("errMethodNotFound").Params(jen.Id("method").String()).Error().Block(
		jen.Return(jen.Op("&").Qual(WirePath, "RPCError").Values(jen.Dict{jen.Id("Code"): jen.Qual(WirePath, "CodeMethodNotFound"), jen.Id("Message"): jen.Lit("Method not found: ").Op("+").Id("method")})))
	f.Comment("invalidParams converts a decode error to -32602 with the offending pointer as data.")
	f.Func().Id("invalidParams").Params(jen.Err().Error()).Error().Block(
		jen.Var().Id("we").Op("*").Qual(WirePath, "Error"),
		jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("we"))).Block(
			jen.Return(jen.Op("&").Qual(WirePath, "RPCError").Values(jen.Dict{jen.Id("Code"): jen.Qual(WirePath, "CodeInvalidParams"), jen.Id("Message"): jen.Lit("Invalid params: ").Op("+").Id("err").Dot("Error").Call(),
				jen.Id("Data"): jen.Map(jen.String()).Any().Values(jen.Dict{jen.Lit("violations"): jen.Index().Qual(WirePath, "Violation").Values(jen.Values(jen.Dict{jen.Id("Pointer"): jen.Id("we").Dot("Pointer"), jen.Id("Reason"): jen.Id("we").Dot("Msg")}))})}))),
		jen.Return(jen.Op("&").Qual(WirePath, "RPCError").Values(jen.Dict{jen.Id("Code"): jen.Qual(WirePath, "CodeInvalidParams"), jen.Id("Message"): jen.Lit("Invalid params: ").Op("+").Id("err").Dot("Error").Call()})),
	)
	local := func(what string, err jen.Code) jen.Code {
		return jen.Op("&").Qual(WirePath, "LocalError").Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("What"): jen.Lit(what), jen.Id("Err"): err})
	}
	f.Comment("outbound checks a message this side is about to send: valid, and within what the peer advertised.")
	f.Comment("A failure is this side's bug: a *wire.LocalError, which a handler returning it answers -32603.")
	f.Func().Id("outbound").Params(jen.Id("n").Op("*").Id("Negotiated"), jen.Id("method").String(), jen.Id("v").Interface(jen.Id("Validate").Params().Error())).Error().Block(
		jen.If(jen.Err().Op(":=").Id("v").Dot("Validate").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(local("params", jen.Err()))),
		jen.If(jen.Id("n").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.If(jen.List(jen.Id("ok"), jen.Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(jen.Id("method")), jen.Op("!").Id("ok")).Block(
			jen.Return(local("params", jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Index().Qual(WirePath, "GateViolation").Values(jen.Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("Capability"): jen.Id("need")}))})))),
		jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(jen.Id("method"), jen.Id("v")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(
			jen.Return(local("params", jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Id("vs")})))),
		jen.Return(jen.Nil()),
	)
	f.Comment("refused logs a message this side refused to send (see outbound) and returns the error.")
	f.Func().Id("refused").Params(jen.Id("log").Op("*").Qual("log/slog", "Logger"), jen.Err().Error()).Error().Block(
		jen.Id("log").Dot("Warn").Call(jen.Lit("message not sent: it fails this side's own checks"), jen.Lit("error"), jen.Err()),
		jen.Return(jen.Err()),
	)
	e.serveHelpers(f)
	f.Comment("errNotInitialized answers a request that arrives before initialize.")
	f.Var().Id("errNotInitialized").Op("=").Op("&").Qual(WirePath, "RPCError").Values(jen.Dict{jen.Id("Code"): jen.Qual(WirePath, "CodeInvalidRequest"), jen.Id("Message"): jen.Lit("Invalid request: initialize first")})
	f.Line()
	for _, sd := range e.sides() {
		e.sideDispatch(f, sd)
	}
}

func (e *emitter) sideDispatch(f *jen.File, sd *side) {
	var turns *ir.Turn // the agent tracks turns; the client cancels its own
	if sd.name == "agent" {
		turns = e.turns()
	}
	e.handlerInterface(f, sd)
	cname := e.connType(f, sd, turns)
	e.connMethods(f, sd, cname)
	// Outbound typed calls. A client's session/prompt whose context ends sends
	// session/cancel for its session (agents may ignore $/cancel_request).
	for _, m := range sd.calls {
		var endTurn *ir.Turn
		if t := e.turns(); sd.name == "client" && t != nil && m == t.Prompt {
			endTurn = t
		}
		e.outboundCall(f, sd, cname, m, endTurn)
	}

	e.inboundRouting(f, sd, cname, turns)
	if turns != nil {
		e.turnHelpers(f, cname, turns)
	}
	f.Line()
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
				jen.Return(jen.Nil(), jen.Id("errMethodNotFound").Call(jen.Id(MethodConst(m.Wire)))))
		}
	}
	f.Var().Id("_").Id(hname).Op("=").Id(un).Values()
	f.Line()
}

// connType emits the side's connection struct and its constructor; turns
// set adds the in-flight turn table.
func (e *emitter) connType(f *jen.File, sd *side, turns *ir.Turn) (cname string) {
	cname, hname := sd.Name+"Conn", sd.Name+"Handler"
	fields := []jen.Code{
		jen.Id("h").Id(hname),
		jen.Id("ext").Id("ExtHandler"),
		jen.Id("conn").Op("*").Qual(JSONRPCPath, "Conn"),
		jen.Id("mode").Qual(WirePath, "Mode"),
		jen.Id("onDrop").Func().Params(jen.String(), jen.Error()),
		jen.Id("log").Op("*").Qual("log/slog", "Logger"),
		jen.Comment("herr is Check" + hname + "'s verdict, returned by Run."),
		jen.Id("herr").Error(),
		jen.Id("mu").Qual("sync", "Mutex"),
		jen.Id("neg").Id("Negotiated"),
		jen.Id("ready").Bool(),
	}
	if turns != nil {
		// Every in-flight prompt turn, by session: a session may run several at
		// once, and session/cancel ends all of them.
		fields = append(fields, jen.Id("turns").Map(goType(turns.PromptSession.Ref)).Map(jen.Op("*").Id("turn")).Struct())
	}
	f.Comment(fmt.Sprintf("%s is the %s's end of a connection: it routes inbound messages to a %s", cname, sd.name, hname))
	f.Comment(fmt.Sprintf("(decoding, validating and gate-checking them first) and sends typed calls to the %s,", sd.peer))
	f.Comment("checked against what the peer advertised. Concurrency is the runtime's: requests run")
	f.Comment("concurrently, notifications in order; see package runtime/jsonrpc.")
	f.Type().Id(cname).Struct(fields...)
	body := []jen.Code{
		jen.Id("c").Op(":=").Op("&").Id(cname).Values(jen.Dict{jen.Id("h"): jen.Id("h"), jen.Id("onDrop"): jen.Id("o").Dot("OnDrop")}),
		jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Id("h").Assert(jen.Id("ExtHandler")), jen.Id("ok")).Block(jen.Id("c").Dot("ext").Op("=").Id("x")),
		jen.If(jen.Id("o").Dot("Strict")).Block(jen.Id("c").Dot("mode").Op("=").Qual(WirePath, "Strict")),
		jen.Id("c").Dot("herr").Op("=").Id("Check" + hname).Call(jen.Id("h")),
	}
	if turns != nil {
		body = append(body, jen.Id("c").Dot("turns").Op("=").Map(goType(turns.PromptSession.Ref)).Map(jen.Op("*").Id("turn")).Struct().Values())
	}
	body = append(body,
		jen.Id("c").Dot("log").Op("=").Id("o").Dot("RPC").Dot("Logger"),
		jen.If(jen.Id("c").Dot("log").Op("==").Nil()).Block(jen.Id("c").Dot("log").Op("=").Qual("log/slog", "New").Call(jen.Qual("log/slog", "NewTextHandler").Call(jen.Qual("os", "Stderr"), jen.Nil()))),
		jen.If(jen.Id("c").Dot("onDrop").Op("==").Nil()).Block(
			jen.Id("log").Op(":=").Id("c").Dot("log"),
			jen.Id("c").Dot("onDrop").Op("=").Func().Params(jen.Id("method").String(), jen.Err().Error()).Block(
				jen.Id("log").Dot("Warn").Call(jen.Lit("dropped inbound notification"), jen.Lit("method"), jen.Id("method"), jen.Lit("error"), jen.Err())),
		),
		jen.Id("c").Dot("conn").Op("=").Qual(JSONRPCPath, "NewConn").Call(jen.Id("r"), jen.Id("w"), jen.Id(lower(sd.Name)+"Inbound").Values(jen.Id("c")), jen.Id("o").Dot("RPC")),
		jen.Return(jen.Id("c")),
	)
	f.Comment(fmt.Sprintf("New%s connects h to a peer over r (its output) and w (its input), e.g. os.Stdin and os.Stdout.", cname))
	f.Func().Id("New"+cname).Params(jen.Id("h").Id(hname), jen.Id("r").Qual("io", "Reader"), jen.Id("w").Qual("io", "Writer"), jen.Id("o").Id("ConnOptions")).Op("*").Id(cname).Block(body...)
	return cname
}

// connMethods emits Run, Close, Negotiated and the unchecked senders.
func (e *emitter) connMethods(f *jen.File, sd *side, cname string) {
	hname := sd.Name + "Handler"
	f.Comment("Run serves the connection until EOF, Close or ctx ends; it returns nil on EOF.")
	f.Comment(fmt.Sprintf("When the handler has a method that looks meant for %s but is not in it (see", hname))
	f.Comment(fmt.Sprintf("Check%s), Run returns that error at once and serves nothing.", hname))
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Run").Params(ctxParam()).Error().Block(
		jen.If(jen.Id("c").Dot("herr").Op("!=").Nil()).Block(jen.Return(jen.Id("c").Dot("herr"))),
		jen.Return(jen.Id("c").Dot("conn").Dot("Run").Call(jen.Id("ctx"))))
	f.Comment("Close stops the connection.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Close").Params().Error().Block(jen.Return(jen.Id("c").Dot("conn").Dot("Close").Call()))
	f.Comment("Negotiated returns what both sides advertised in initialize (nil messages before it).")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Negotiated").Params().Id("Negotiated").Block(
		jen.Id("c").Dot("mu").Dot("Lock").Call(), jen.Defer().Id("c").Dot("mu").Dot("Unlock").Call(), jen.Return(jen.Id("c").Dot("neg")))
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("state").Params().Params(jen.Op("*").Id("Negotiated"), jen.Bool()).Block(
		jen.Id("c").Dot("mu").Dot("Lock").Call(), jen.Defer().Id("c").Dot("mu").Dot("Unlock").Call(),
		jen.Id("n").Op(":=").Id("c").Dot("neg"), jen.Return(jen.Op("&").Id("n"), jen.Id("c").Dot("ready")))
	f.Comment("Send sends a request as is (no checks): for tests, proxies and methods the schema does not describe.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("Send").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Params(jen.Qual(WirePath, "Raw"), jen.Error()).Block(
		jen.Return(jen.Id("c").Dot("conn").Dot("Call").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params"))))
	f.Comment("SendNotification sends a notification as is (no checks).")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("SendNotification").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Error().Block(
		jen.Return(jen.Id("c").Dot("conn").Dot("Notify").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params"))))
}

// inboundRouting emits the adapter to the runtime's Handler: one switch
// case per handled method.
func (e *emitter) inboundRouting(f *jen.File, sd *side, cname string, turns *ir.Turn) {
	in := lower(sd.Name) + "Inbound"
	f.Comment(fmt.Sprintf("%s adapts %s to the runtime's Handler.", in, cname))
	f.Type().Id(in).Struct(jen.Id("c").Op("*").Id(cname))
	// Each method is served in a function of its own (serve's instantiation,
	// or serveX), so the switch's stack frame holds no params type.
	var reqCases, noteCases []jen.Code
	for _, m := range sd.handles {
		fn := "serve" + methodGo(m)
		args := []jen.Code{jen.Id("ctx"), jen.Id("n"), jen.Id("method"), jen.Id("params")}
		sig := []jen.Code{ctxParam(), jen.Id("n").Op("*").Id("Negotiated"), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")}
		handler := jen.Id("c").Dot("h").Dot(methodGo(m))
		switch {
		case m.Notification && !(turns != nil && m == turns.Cancel):
			noteCases = append(noteCases, jen.Case(jen.Id(MethodConst(m.Wire))).Block(
				jen.Id("notify").Call(jen.Id("ctx"), jen.Id("n"), jen.Id("c").Dot("mode"), jen.Id("method"), jen.Id("params"), jen.Id("c").Dot("onDrop"), handler)))
		case m.Notification:
			noteCases = append(noteCases, jen.Case(jen.Id(MethodConst(m.Wire))).Block(jen.Id("c").Dot(fn).Call(args...)))
			f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id(fn).Params(sig...).Block(e.inboundNotification(sd, m, turns)...)
		case m != e.m.Initialize() && !(turns != nil && m == turns.Prompt):
			reqCases = append(reqCases, jen.Case(jen.Id(MethodConst(m.Wire))).Block(
				jen.Return(jen.Id("serve").Call(jen.Id("ctx"), jen.Id("n"), jen.Id("c").Dot("mode"), jen.Id("c").Dot("log"), jen.Id("method"), jen.Id("params"), handler))))
		default:
			reqCases = append(reqCases, jen.Case(jen.Id(MethodConst(m.Wire))).Block(jen.Return(jen.Id("c").Dot(fn).Call(args...))))
			f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id(fn).Params(sig...).Params(jen.Qual(WirePath, "Raw"), jen.Error()).Block(e.inboundRequest(sd, m, turns)...)
		}
	}
	reqCases = append(reqCases, jen.Default().Block(
		jen.If(jen.Qual("strings", "HasPrefix").Call(jen.Id("method"), jen.Lit("_")).Op("&&").Id("c").Dot("ext").Op("!=").Nil()).Block(
			jen.Return(jen.Id("c").Dot("ext").Dot("ExtRequest").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params")))),
		jen.Return(jen.Nil(), jen.Id("errMethodNotFound").Call(jen.Id("method")))))
	noteCases = append(noteCases, jen.Default().Block(
		jen.If(jen.Qual("strings", "HasPrefix").Call(jen.Id("method"), jen.Lit("_")).Op("&&").Id("c").Dot("ext").Op("!=").Nil()).Block(
			jen.Id("c").Dot("ext").Dot("ExtNotification").Call(jen.Id("ctx"), jen.Id("method"), jen.Id("params")))))
	f.Func().Params(jen.Id("a").Id(in)).Id("HandleRequest").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Params(jen.Qual(WirePath, "Raw"), jen.Error()).Block(
		jen.Id("c").Op(":=").Id("a").Dot("c"),
		jen.List(jen.Id("n"), jen.Id("ready")).Op(":=").Id("c").Dot("state").Call(),
		jen.Id("_").Op("=").Id("n"),
		jen.If(jen.Op("!").Id("ready").Op("&&").Id("method").Op("!=").Lit(e.m.Initialize().Wire)).Block(jen.Return(jen.Nil(), jen.Id("errNotInitialized"))),
		jen.Switch(jen.Id("method")).Block(reqCases...),
	)
	f.Func().Params(jen.Id("a").Id(in)).Id("HandleNotification").Params(ctxParam(), jen.Id("method").String(), jen.Id("params").Qual(WirePath, "Raw")).Block(
		jen.Id("c").Op(":=").Id("a").Dot("c"),
		jen.List(jen.Id("n"), jen.Id("ready")).Op(":=").Id("c").Dot("state").Call(),
		jen.If(jen.Op("!").Id("ready")).Block(jen.Id("c").Dot("onDrop").Call(jen.Id("method"), jen.Qual("errors", "New").Call(jen.Lit("received before initialize"))), jen.Return()),
		jen.Id("_").Op("=").Id("n"),
		jen.Switch(jen.Id("method")).Block(noteCases...),
	)
}

// serveHelpers emits serve and notify, which every inbound method without
// a side effect of its own (initialize, turns) goes through: one generic body
// instead of one function per method.
func (e *emitter) serveHelpers(f *jen.File) {
	w := func(n string) *jen.Statement { return jen.Qual(WirePath, n) }
	f.Comment("request is what serve and notify need of a params type.")
	f.Type().Id("request").Types(jen.Id("P").Any()).Interface(jen.Op("*").Id("P"), w("Decodable"), jen.Id("validate").Params(jen.Op("*").Add(w("Validator"))))
	f.Comment("response is what serve needs of a result type.")
	f.Type().Id("response").Types(jen.Id("R").Any()).Interface(jen.Op("*").Id("R"), jen.Id("Validate").Params().Error(), jen.Id("AppendJSON").Params(jen.Index().Byte()).Index().Byte())
	gate := func(onFail ...jen.Code) jen.Code {
		return jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(jen.Id("method"), jen.Id("p")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(onFail...)
	}
	decode := func(onErr ...jen.Code) []jen.Code {
		return []jen.Code{
			jen.Id("p").Op(":=").Id("PP").Call(jen.New(jen.Id("P"))),
			jen.If(jen.Err().Op(":=").Add(w("Decode")).Call(jen.Id("params"), jen.Id("p"), jen.Id("mode")), jen.Err().Op("!=").Nil()).Block(onErr...),
		}
	}
	local := func(err jen.Code) jen.Code {
		return jen.Id("refused").Call(jen.Id("log"), jen.Op("&").Add(w("LocalError")).Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("What"): jen.Lit("result"), jen.Id("Err"): err}))
	}
	gateErr := func(vs jen.Code) jen.Code {
		return jen.Op("&").Add(w("GateError")).Values(jen.Dict{jen.Id("Violations"): vs})
	}
	body := decode(jen.Return(jen.Nil(), jen.Id("invalidParams").Call(jen.Err())))
	body = append(body,
		jen.If(jen.Err().Op(":=").Add(w("Check")).Call(jen.Id("mode").Op("==").Add(w("Lenient")), jen.Id("p").Dot("validate")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.List(jen.Id("ok"), jen.Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(jen.Id("method")), jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Nil(), gateErr(jen.Index().Add(w("GateViolation")).Values(jen.Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("Capability"): jen.Id("need")}))))),
		gate(jen.Return(jen.Nil(), gateErr(jen.Id("vs")))),
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("handle").Call(jen.Id("ctx"), jen.Id("p")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s handler returned no result"), jen.Id("method")))),
		jen.If(jen.Err().Op(":=").Id("res").Dot("Validate").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), local(jen.Err()))),
		jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(jen.Id("method"), jen.Id("res")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(jen.Return(jen.Nil(), local(gateErr(jen.Id("vs"))))),
		jen.Return(jen.Id("res").Dot("AppendJSON").Call(jen.Nil()), jen.Nil()),
	)
	common := []jen.Code{ctxParam(), jen.Id("n").Op("*").Id("Negotiated"), jen.Id("mode").Add(w("Mode"))}
	f.Comment("serve decodes, validates and gate-checks a request's params, calls handle, and checks and encodes its result.")
	f.Func().Id("serve").Types(jen.List(jen.Id("P"), jen.Id("R")).Any(), jen.Id("PP").Id("request").Index(jen.Id("P")), jen.Id("RP").Id("response").Index(jen.Id("R"))).Params(
		append(common, jen.Id("log").Op("*").Qual("log/slog", "Logger"), jen.Id("method").String(), jen.Id("params").Add(w("Raw")),
			jen.Id("handle").Func().Params(jen.Qual("context", "Context"), jen.Id("PP")).Params(jen.Id("RP"), jen.Error()))...,
	).Params(w("Raw"), jen.Error()).Block(body...)
	drop := func(err jen.Code) []jen.Code {
		return []jen.Code{jen.Id("drop").Call(jen.Id("method"), err), jen.Return()}
	}
	body = decode(drop(jen.Err())...)
	body = append(body,
		jen.If(jen.Err().Op(":=").Add(w("Check")).Call(jen.Id("mode").Op("==").Add(w("Lenient")), jen.Id("p").Dot("validate")), jen.Err().Op("!=").Nil()).Block(drop(jen.Err())...),
		gate(drop(gateErr(jen.Id("vs")))...),
		jen.Id("handle").Call(jen.Id("ctx"), jen.Id("p")),
	)
	f.Comment("notify decodes, validates and gate-checks a notification's params and calls handle; drop is told")
	f.Comment("about one that fails (a notification cannot be answered).")
	f.Func().Id("notify").Types(jen.Id("P").Any(), jen.Id("PP").Id("request").Index(jen.Id("P"))).Params(
		append(common, jen.Id("method").String(), jen.Id("params").Add(w("Raw")),
			jen.Id("drop").Func().Params(jen.String(), jen.Error()), jen.Id("handle").Func().Params(jen.Qual("context", "Context"), jen.Id("PP")))...,
	).Block(body...)
}

func lower(s string) string { return string(s[0]+32) + s[1:] }

// inboundRequest decodes, validates and gate-checks params, calls the handler,
// and checks and encodes its result.
func (e *emitter) inboundRequest(sd *side, m *ir.Method, turns *ir.Turn) []jen.Code {
	out := []jen.Code{
		jen.Var().Id("p").Id(m.Params.Name),
		jen.If(jen.Err().Op(":=").Qual(WirePath, "Decode").Call(jen.Id("params"), jen.Op("&").Id("p"), jen.Id("c").Dot("mode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("invalidParams").Call(jen.Err()))),
	}
	out = append(out, inboundValidate(jen.Id("p"), jen.Return(jen.Nil(), jen.Err()))...)
	initialize := m == e.m.Initialize()
	if !initialize {
		out = append(out,
			jen.If(jen.List(jen.Id("ok"), jen.Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(jen.Id("method")), jen.Op("!").Id("ok")).Block(
				jen.Return(jen.Nil(), jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Index().Qual(WirePath, "GateViolation").Values(jen.Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("Capability"): jen.Id("need")}))}))),
			jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(jen.Id("method"), jen.Op("&").Id("p")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Id("vs")}))),
		)
	}
	call := jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot("h").Dot(methodGo(m)).Call(jen.Id("ctx"), jen.Op("&").Id("p"))
	if turns != nil && m == turns.Prompt {
		session := jen.Id("p").Dot(turns.PromptSession.Name)
		out = append(out,
			jen.List(jen.Id("ctx"), jen.Id("t")).Op(":=").Id("c").Dot("startTurn").Call(jen.Id("ctx"), session.Clone()),
			jen.Defer().Id("c").Dot("endTurn").Call(session.Clone(), jen.Id("t")),
			call,
			jen.Comment(fmt.Sprintf("A turn ended by %s, or by the end of a drain of the connection (see", turns.Cancel.Wire)),
			jen.Comment(fmt.Sprintf("jsonrpc.Drain), answers %s %q, not an error.", turns.StopReason.JSON, turns.Cancelled.String)),
			jen.If(jen.Parens(jen.Id("t").Dot("cancelled").Dot("Load").Call().Op("||").Qual(JSONRPCPath, "Drained").Call(jen.Id("ctx"))).Op("&&").Parens(jen.Err().Op("!=").Nil().Op("||").Id("res").Op("==").Nil())).Block(
				jen.List(jen.Id("res"), jen.Err()).Op("=").List(jen.Op("&").Id(m.Result.Name).Values(jen.Dict{jen.Id(turns.StopReason.Name): jen.Id(turns.Cancelled.Name)}), jen.Nil())),
		)
	} else {
		out = append(out, call)
	}
	out = append(out,
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s handler returned no result"), jen.Id("method")))),
	)
	if initialize && e.versioned() {
		v := jen.Id("res").Dot(e.m.Version.Result.Name)
		out = append(out,
			jen.Comment("Version negotiation: an agent that does not say answers with the version this package speaks."),
			jen.If(v.Clone().Op("==").Lit(0)).Block(v.Clone().Op("=").Id("CurrentProtocolVersion")),
		)
	}
	out = append(out,
		jen.If(jen.Err().Op(":=").Id("res").Dot("Validate").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("refused").Call(jen.Id("c").Dot("log"), jen.Op("&").Qual(WirePath, "LocalError").Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("What"): jen.Lit("result"), jen.Id("Err"): jen.Err()})))),
	)
	if initialize {
		out = append(out,
			jen.Id("n").Op("=").Op("&").Id("Negotiated").Values(jen.Dict{jen.Id("Request"): jen.Op("&").Id("p"), jen.Id("Response"): jen.Id("res")}),
			jen.Id("c").Dot("mu").Dot("Lock").Call(),
			jen.Id("c").Dot("neg").Op(",").Id("c").Dot("ready").Op("=").Op("*").Id("n").Op(",").True(),
			jen.Id("c").Dot("mu").Dot("Unlock").Call(),
		)
	}
	out = append(out,
		jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(jen.Id("method"), jen.Id("res")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(
			jen.Return(jen.Nil(), jen.Id("refused").Call(jen.Id("c").Dot("log"), jen.Op("&").Qual(WirePath, "LocalError").Values(jen.Dict{jen.Id("Method"): jen.Id("method"), jen.Id("What"): jen.Lit("result"), jen.Id("Err"): jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Id("vs")})})))),
		jen.Return(jen.Id("res").Dot("AppendJSON").Call(jen.Nil()), jen.Nil()),
	)
	return out
}

func (e *emitter) inboundNotification(sd *side, m *ir.Method, turns *ir.Turn) []jen.Code {
	out := []jen.Code{
		jen.Var().Id("p").Id(m.Params.Name),
		jen.If(jen.Err().Op(":=").Qual(WirePath, "Decode").Call(jen.Id("params"), jen.Op("&").Id("p"), jen.Id("c").Dot("mode")), jen.Err().Op("!=").Nil()).Block(jen.Id("c").Dot("onDrop").Call(jen.Id("method"), jen.Err()), jen.Return()),
	}
	out = append(out, inboundValidate(jen.Id("p"), jen.Id("c").Dot("onDrop").Call(jen.Id("method"), jen.Err()), jen.Return())...)
	out = append(out,
		jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(jen.Id("method"), jen.Op("&").Id("p")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(
			jen.Id("c").Dot("onDrop").Call(jen.Id("method"), jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Id("vs")})), jen.Return()),
	)
	if turns != nil && m == turns.Cancel {
		out = append(out, jen.Id("c").Dot("cancelTurn").Call(jen.Id("p").Dot(turns.CancelSession.Name)))
	}
	return append(out, jen.Id("c").Dot("h").Dot(methodGo(m)).Call(jen.Id("ctx"), jen.Op("&").Id("p")))
}

// turnHelpers tracks in-flight prompt turns so session/cancel can end them.
func (e *emitter) turnHelpers(f *jen.File, cname string, turns *ir.Turn) {
	session := goType(turns.PromptSession.Ref)
	f.Comment("turn is one in-flight session/prompt.")
	f.Type().Id("turn").Struct(
		jen.Id("cancel").Qual("context", "CancelFunc"),
		jen.Id("cancelled").Qual("sync/atomic", "Bool"),
		jen.Comment("awaiting ends the turn's runtime mark: it may wait for session/cancel."),
		jen.Id("awaiting").Func().Params(),
	)
	f.Comment("startTurn registers a prompt turn of session s beside the session's other turns. A turn")
	f.Comment("may run until session/cancel, so the runtime is told it awaits input: past its bounds")
	f.Comment("it refuses requests rather than stop reading (see runtime/jsonrpc, Flow control).")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("startTurn").Params(ctxParam(), jen.Id("s").Add(session.Clone())).Params(jen.Qual("context", "Context"), jen.Op("*").Id("turn")).Block(
		jen.List(jen.Id("ctx"), jen.Id("cancel")).Op(":=").Qual("context", "WithCancel").Call(jen.Id("ctx")),
		jen.Id("t").Op(":=").Op("&").Id("turn").Values(jen.Dict{jen.Id("cancel"): jen.Id("cancel"), jen.Id("awaiting"): jen.Id("c").Dot("conn").Dot("AwaitingInput").Call()}),
		jen.Id("c").Dot("mu").Dot("Lock").Call(),
		jen.Id("ts").Op(":=").Id("c").Dot("turns").Index(jen.Id("s")),
		jen.If(jen.Id("ts").Op("==").Nil()).Block(
			jen.Id("ts").Op("=").Map(jen.Op("*").Id("turn")).Struct().Values(),
			jen.Id("c").Dot("turns").Index(jen.Id("s")).Op("=").Id("ts")),
		jen.Id("ts").Index(jen.Id("t")).Op("=").Struct().Values(),
		jen.Id("c").Dot("mu").Dot("Unlock").Call(),
		jen.Return(jen.Id("ctx"), jen.Id("t")))
	f.Comment("endTurn unregisters a turn started by startTurn.")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("endTurn").Params(jen.Id("s").Add(session.Clone()), jen.Id("t").Op("*").Id("turn")).Block(
		jen.Id("t").Dot("cancel").Call(),
		jen.Id("t").Dot("awaiting").Call(),
		jen.Id("c").Dot("mu").Dot("Lock").Call(),
		jen.Delete(jen.Id("c").Dot("turns").Index(jen.Id("s")), jen.Id("t")),
		jen.If(jen.Len(jen.Id("c").Dot("turns").Index(jen.Id("s"))).Op("==").Lit(0)).Block(jen.Delete(jen.Id("c").Dot("turns"), jen.Id("s"))),
		jen.Id("c").Dot("mu").Dot("Unlock").Call())
	f.Comment("cancelTurn ends every in-flight prompt turn of the session: each turn's context is")
	f.Comment("cancelled and each answers \"cancelled\".")
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id("cancelTurn").Params(jen.Id("s").Add(session.Clone())).Block(
		jen.Id("c").Dot("mu").Dot("Lock").Call(),
		jen.Defer().Id("c").Dot("mu").Dot("Unlock").Call(),
		jen.For(jen.Id("t").Op(":=").Range().Id("c").Dot("turns").Index(jen.Id("s"))).Block(
			jen.Id("t").Dot("cancelled").Dot("Store").Call(jen.True()),
			jen.Id("t").Dot("cancel").Call()))
}

// outboundCall emits a typed call to the peer, checked before sending. With
// endTurn set (m is the client's prompt), a call whose context ends also
// sends endTurn's cancel (session/cancel) for the prompt's session.
func (e *emitter) outboundCall(f *jen.File, sd *side, cname string, m *ir.Method, endTurn *ir.Turn) {
	name := methodGo(m)
	initialize := m == e.m.Initialize()
	pre := e.outboundChecks(m, initialize)
	if m.Notification {
		f.Comment(fmt.Sprintf("%s sends the notification %s to the %s, after checking it is valid and allowed.", name, m.Wire, sd.peer))
		f.Comment("It returns once the frame is written, so notifications precede a later response.")
		f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id(name).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)).Error().Block(
			append(pre, jen.Return(jen.Id("c").Dot("conn").Dot("Notify").Call(jen.Id("ctx"), jen.Id(MethodConst(m.Wire)), jen.Id("params").Dot("AppendJSON").Call(jen.Nil()))))...)
		return
	}
	body := pre
	callErr := []jen.Code{jen.Return(jen.Nil(), jen.Err())}
	if endTurn != nil {
		body = append(body,
			jen.Comment("An ended context sends nothing: there is no turn to cancel."),
			jen.If(jen.Err().Op(":=").Id("ctx").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		callErr = []jen.Code{
			jen.If(jen.Id("ctx").Dot("Err").Call().Op("!=").Nil()).Block(
				jen.Comment("The runtime has sent $/cancel_request, which agents may ignore; session/cancel"),
				jen.Comment("is ACP's way to end the turn (it ends every turn of the session)."),
				jen.Id("cancel").Op(":=").Id(endTurn.Cancel.Params.Name).Values(jen.Dict{jen.Id(endTurn.CancelSession.Name): jen.Id("params").Dot(endTurn.PromptSession.Name)}),
				jen.Comment("A failed write is logged by the runtime and fails every later call."),
				jen.Id("_").Op("=").Id("c").Dot("conn").Dot("Notify").Call(jen.Qual("context", "WithoutCancel").Call(jen.Id("ctx")), jen.Id(MethodConst(endTurn.Cancel.Wire)), jen.Id("cancel").Dot("AppendJSON").Call(jen.Nil()))),
			jen.Return(jen.Nil(), jen.Err()),
		}
	}
	body = append(body,
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("c").Dot("conn").Dot("Call").Call(jen.Id("ctx"), jen.Id(MethodConst(m.Wire)), jen.Id("params").Dot("AppendJSON").Call(jen.Nil())),
		jen.If(jen.Err().Op("!=").Nil()).Block(callErr...),
	)
	body = append(body, e.outboundResult(m, initialize)...)
	body = append(body, jen.Return(jen.Id("res"), jen.Nil()))
	f.Comment(fmt.Sprintf("%s calls %s on the %s, after checking the params are valid and allowed; the result is", name, m.Wire, sd.peer))
	f.Comment("decoded, validated and checked against what this side advertised.")
	if endTurn != nil {
		f.Comment(fmt.Sprintf("When ctx ends first, it sends %s for params' session as well as the runtime's", endTurn.Cancel.Wire))
		f.Comment("$/cancel_request (which agents may ignore), and returns ctx's error.")
	}
	f.Func().Params(jen.Id("c").Op("*").Id(cname)).Id(name).Params(ctxParam(), jen.Id("params").Op("*").Id(m.Params.Name)).Params(jen.Op("*").Id(m.Result.Name), jen.Error()).Block(body...)
}

// outboundChecks are the statements before m's params are sent: the
// connection's state (initialize's protocol version defaulted to this
// package's), and the params checked valid and (after initialize) allowed
// by what the peer advertised.
func (e *emitter) outboundChecks(m *ir.Method, initialize bool) []jen.Code {
	pre := []jen.Code{
		jen.List(jen.Id("n"), jen.Id("ready")).Op(":=").Id("c").Dot("state").Call(),
	}
	if initialize {
		pre = append(pre, jen.Id("_").Op(",").Id("_").Op("=").Id("n").Op(",").Id("ready"))
		if e.versioned() {
			v := jen.Id("params").Dot(e.m.Version.Params.Name)
			pre = append(pre, jen.If(v.Clone().Op("==").Lit(0)).Block(v.Clone().Op("=").Id("CurrentProtocolVersion")))
		}
		pre = append(pre, jen.If(jen.Err().Op(":=").Id("outbound").Call(jen.Nil(), jen.Id(MethodConst(m.Wire)), jen.Id("params")), jen.Err().Op("!=").Nil()).Block(jen.Return(zeroRet(m), jen.Id("refused").Call(jen.Id("c").Dot("log"), jen.Err()))))
	} else {
		pre = append(pre,
			jen.If(jen.Op("!").Id("ready")).Block(jen.Return(zeroRet(m), jen.Qual("errors", "New").Call(jen.Lit(m.Wire+": initialize first")))),
			jen.If(jen.Err().Op(":=").Id("outbound").Call(jen.Id("n"), jen.Id(MethodConst(m.Wire)), jen.Id("params")), jen.Err().Op("!=").Nil()).Block(jen.Return(zeroRet(m), jen.Id("refused").Call(jen.Id("c").Dot("log"), jen.Err()))),
		)
	}
	return pre
}

// outboundResult are the statements once m's result arrived in raw: decoded,
// validated, and either negotiated (initialize, whose protocol version must
// be this package's) or checked against what this side advertised.
func (e *emitter) outboundResult(m *ir.Method, initialize bool) []jen.Code {
	body := []jen.Code{
		jen.Id("res").Op(":=").New(jen.Id(m.Result.Name)),
		jen.If(jen.Err().Op(":=").Qual(WirePath, "Decode").Call(jen.Id("raw"), jen.Id("res"), jen.Id("c").Dot("mode")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Wire+": invalid result: %w"), jen.Err()))),
	}
	body = append(body, inboundValidate(jen.Id("res"), jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Wire+": invalid result: %w"), jen.Err())))...)
	if initialize {
		if e.versioned() {
			body = append(body,
				jen.If(jen.Id("res").Dot(e.m.Version.Result.Name).Op("!=").Id("CurrentProtocolVersion")).Block(
					jen.Return(jen.Id("res"), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Wire+": the agent speaks protocol version %d, this package %d"), jen.Id("res").Dot(e.m.Version.Result.Name), jen.Id("CurrentProtocolVersion")))))
		}
		body = append(body,
			jen.Id("c").Dot("mu").Dot("Lock").Call(),
			jen.Id("c").Dot("neg").Op(",").Id("c").Dot("ready").Op("=").Id("Negotiated").Values(jen.Dict{jen.Id("Request"): jen.Id("params"), jen.Id("Response"): jen.Id("res")}).Op(",").True(),
			jen.Id("c").Dot("mu").Dot("Unlock").Call(),
		)
	} else {
		body = append(body,
			jen.If(jen.Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(jen.Id(MethodConst(m.Wire)), jen.Id("res")), jen.Len(jen.Id("vs")).Op(">").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Op("&").Qual(WirePath, "GateError").Values(jen.Dict{jen.Id("Violations"): jen.Id("vs")}))))
	}
	return body
}

func zeroRet(m *ir.Method) jen.Code {
	if m.Notification {
		return jen.Null()
	}
	return jen.Nil()
}

// inboundValidate validates a received message x: in lenient mode a variant
// this version does not know (a closed union's Unknown) is accepted, so a
// newer peer's additions reach the handler. onErr runs with err set.
func inboundValidate(x *jen.Statement, onErr ...jen.Code) []jen.Code {
	return []jen.Code{
		jen.Id("vd").Op(":=").Qual(WirePath, "Validator").Values(jen.Dict{jen.Id("AcceptUnknown"): jen.Id("c").Dot("mode").Op("==").Qual(WirePath, "Lenient")}),
		x.Clone().Dot("validate").Call(jen.Op("&").Id("vd")),
		jen.If(jen.Err().Op(":=").Id("vd").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(onErr...),
	}
}
