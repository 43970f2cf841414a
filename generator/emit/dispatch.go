package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
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

func ctxParam() Code { return Id("ctx").Qual("context", "Context") }

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

func (e *emitter) dispatch(f *File) {
	f.Comment("ExtHandler receives \"_\"-prefixed extension methods that the schema does not describe.")
	f.Comment("A handler that also implements it gets them; otherwise requests are answered")
	f.Comment("method-not-found and notifications are dropped.")
	f.Type().Id("ExtHandler").Interface(
		Id("ExtRequest").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")).Params(Qual(WirePath, "Raw"), Error()),
		Id("ExtNotification").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")),
	)
	f.Comment("ConnOptions configures a connection end.")
	f.Type().Id("ConnOptions").Struct(
		Comment("RPC configures the JSON-RPC runtime (frame size, logger, concurrency, flow-control bounds)."),
		Id("RPC").Qual(JSONRPCPath, "Options"),
		Comment("Strict decodes inbound messages without the schema's leniency; the default is"),
		Comment("lenient, accepting what the official SDKs accept."),
		Id("Strict").Bool(),
		Comment("OnDrop is told about inbound notifications that were dropped because they were"),
		Comment("invalid or used a capability this side did not advertise (a notification cannot be"),
		Comment("answered). Nil logs them with RPC.Logger, or to stderr."),
		Id("OnDrop").Func().Params(Id("method").String(), Err().Error()),
	)
	f.Func().Id("errMethodNotFound").Params(Id("method").String()).Error().Block(
		Return(Op("&").Qual(WirePath, "RPCError").Values(Dict{Id("Code"): Qual(WirePath, "CodeMethodNotFound"), Id("Message"): Lit("Method not found: ").Op("+").Id("method")})))
	f.Comment("invalidParams converts a decode error to -32602 with the offending pointer as data.")
	f.Func().Id("invalidParams").Params(Err().Error()).Error().Block(
		Var().Id("we").Op("*").Qual(WirePath, "Error"),
		If(Qual("errors", "As").Call(Err(), Op("&").Id("we"))).Block(
			Return(Op("&").Qual(WirePath, "RPCError").Values(Dict{Id("Code"): Qual(WirePath, "CodeInvalidParams"), Id("Message"): Lit("Invalid params: ").Op("+").Id("err").Dot("Error").Call(),
				Id("Data"): Map(String()).Any().Values(Dict{Lit("violations"): Index().Qual(WirePath, "Violation").Values(Values(Dict{Id("Pointer"): Id("we").Dot("Pointer"), Id("Reason"): Id("we").Dot("Msg")}))})}))),
		Return(Op("&").Qual(WirePath, "RPCError").Values(Dict{Id("Code"): Qual(WirePath, "CodeInvalidParams"), Id("Message"): Lit("Invalid params: ").Op("+").Id("err").Dot("Error").Call()})),
	)
	local := func(what string, err Code) Code {
		return Op("&").Qual(WirePath, "LocalError").Values(Dict{Id("Method"): Id("method"), Id("What"): Lit(what), Id("Err"): err})
	}
	f.Comment("outbound checks a message this side is about to send: valid, and within what the peer advertised.")
	f.Comment("A failure is this side's bug: a *wire.LocalError, which a handler returning it answers -32603.")
	f.Func().Id("outbound").Params(Id("n").Op("*").Id("Negotiated"), Id("method").String(), Id("v").Interface(Id("Validate").Params().Error())).Error().Block(
		If(Err().Op(":=").Id("v").Dot("Validate").Call(), Err().Op("!=").Nil()).Block(Return(local("params", Err()))),
		If(Id("n").Op("==").Nil()).Block(Return(Nil())),
		If(List(Id("ok"), Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(Id("method")), Op("!").Id("ok")).Block(
			Return(local("params", Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Index().Qual(WirePath, "GateViolation").Values(Values(Dict{Id("Method"): Id("method"), Id("Capability"): Id("need")}))})))),
		If(Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(Id("method"), Id("v")), Len(Id("vs")).Op(">").Lit(0)).Block(
			Return(local("params", Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Id("vs")})))),
		Return(Nil()),
	)
	f.Comment("refused logs a message this side refused to send (see outbound) and returns the error.")
	f.Func().Id("refused").Params(Id("log").Op("*").Qual("log/slog", "Logger"), Err().Error()).Error().Block(
		Id("log").Dot("Warn").Call(Lit("message not sent: it fails this side's own checks"), Lit("error"), Err()),
		Return(Err()),
	)
	e.serveHelpers(f)
	f.Comment("errNotInitialized answers a request that arrives before initialize.")
	f.Var().Id("errNotInitialized").Op("=").Op("&").Qual(WirePath, "RPCError").Values(Dict{Id("Code"): Qual(WirePath, "CodeInvalidRequest"), Id("Message"): Lit("Invalid request: initialize first")})
	f.Line()
	for _, sd := range e.sides() {
		e.sideDispatch(f, sd)
	}
}

func (e *emitter) sideDispatch(f *File, sd *side) {
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
func (e *emitter) handlerInterface(f *File, sd *side) {
	hname := sd.Name + "Handler"
	var methods []Code
	for _, m := range sd.handles {
		kind := "request"
		if m.Notification {
			kind = "notification"
		}
		methods = append(methods, Comment(fmt.Sprintf("%s handles the %s %s.", methodGo(m), kind, m.Wire)))
		if m.Notification {
			methods = append(methods, Id(methodGo(m)).Params(ctxParam(), Id("params").Op("*").Id(m.Params.Name)))
		} else {
			methods = append(methods, Id(methodGo(m)).Params(ctxParam(), Id("params").Op("*").Id(m.Params.Name)).Params(Op("*").Id(m.Result.Name), Error()))
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
			f.Func().Params(Id(un)).Id(methodGo(m)).Params(Qual("context", "Context"), Op("*").Id(m.Params.Name)).Block()
		} else {
			f.Comment(fmt.Sprintf("%s answers method-not-found.", methodGo(m)))
			f.Func().Params(Id(un)).Id(methodGo(m)).Params(Qual("context", "Context"), Op("*").Id(m.Params.Name)).Params(Op("*").Id(m.Result.Name), Error()).Block(
				Return(Nil(), Id("errMethodNotFound").Call(Id(MethodConst(m.Wire)))))
		}
	}
	f.Var().Id("_").Id(hname).Op("=").Id(un).Values()
	f.Line()
}

// connType emits the side's connection struct and its constructor; turns
// set adds the in-flight turn table.
func (e *emitter) connType(f *File, sd *side, turns *ir.Turn) (cname string) {
	cname, hname := sd.Name+"Conn", sd.Name+"Handler"
	fields := []Code{
		Id("h").Id(hname),
		Id("ext").Id("ExtHandler"),
		Id("conn").Op("*").Qual(JSONRPCPath, "Conn"),
		Id("mode").Qual(WirePath, "Mode"),
		Id("onDrop").Func().Params(String(), Error()),
		Id("log").Op("*").Qual("log/slog", "Logger"),
		Comment("herr is Check" + hname + "'s verdict, returned by Run."),
		Id("herr").Error(),
		Id("mu").Qual("sync", "Mutex"),
		Id("neg").Id("Negotiated"),
		Id("ready").Bool(),
	}
	if turns != nil {
		// Every in-flight prompt turn, by session: a session may run several at
		// once, and session/cancel ends all of them.
		fields = append(fields, Id("turns").Map(goType(turns.PromptSession.Ref)).Map(Op("*").Id("turn")).Struct())
	}
	f.Comment(fmt.Sprintf("%s is the %s's end of a connection: it routes inbound messages to a %s", cname, sd.name, hname))
	f.Comment(fmt.Sprintf("(decoding, validating and gate-checking them first) and sends typed calls to the %s,", sd.peer))
	f.Comment("checked against what the peer advertised. Concurrency is the runtime's: requests run")
	f.Comment("concurrently, notifications in order; see package runtime/jsonrpc.")
	f.Type().Id(cname).Struct(fields...)
	body := []Code{
		Id("c").Op(":=").Op("&").Id(cname).Values(Dict{Id("h"): Id("h"), Id("onDrop"): Id("o").Dot("OnDrop")}),
		If(List(Id("x"), Id("ok")).Op(":=").Id("h").Assert(Id("ExtHandler")), Id("ok")).Block(Id("c").Dot("ext").Op("=").Id("x")),
		If(Id("o").Dot("Strict")).Block(Id("c").Dot("mode").Op("=").Qual(WirePath, "Strict")),
		Id("c").Dot("herr").Op("=").Id("Check" + hname).Call(Id("h")),
	}
	if turns != nil {
		body = append(body, Id("c").Dot("turns").Op("=").Map(goType(turns.PromptSession.Ref)).Map(Op("*").Id("turn")).Struct().Values())
	}
	body = append(body,
		Id("c").Dot("log").Op("=").Id("o").Dot("RPC").Dot("Logger"),
		If(Id("c").Dot("log").Op("==").Nil()).Block(Id("c").Dot("log").Op("=").Qual("log/slog", "New").Call(Qual("log/slog", "NewTextHandler").Call(Qual("os", "Stderr"), Nil()))),
		If(Id("c").Dot("onDrop").Op("==").Nil()).Block(
			Id("log").Op(":=").Id("c").Dot("log"),
			Id("c").Dot("onDrop").Op("=").Func().Params(Id("method").String(), Err().Error()).Block(
				Id("log").Dot("Warn").Call(Lit("dropped inbound notification"), Lit("method"), Id("method"), Lit("error"), Err())),
		),
		Id("c").Dot("conn").Op("=").Qual(JSONRPCPath, "NewConn").Call(Id("r"), Id("w"), Id(lower(sd.Name)+"Inbound").Values(Id("c")), Id("o").Dot("RPC")),
		Return(Id("c")),
	)
	f.Comment(fmt.Sprintf("New%s connects h to a peer over r (its output) and w (its input), e.g. os.Stdin and os.Stdout.", cname))
	f.Func().Id("New"+cname).Params(Id("h").Id(hname), Id("r").Qual("io", "Reader"), Id("w").Qual("io", "Writer"), Id("o").Id("ConnOptions")).Op("*").Id(cname).Block(body...)
	return cname
}

// connMethods emits Run, Close, Negotiated and the unchecked senders.
func (e *emitter) connMethods(f *File, sd *side, cname string) {
	hname := sd.Name + "Handler"
	f.Comment("Run serves the connection until EOF, Close or ctx ends; it returns nil on EOF.")
	f.Comment(fmt.Sprintf("When the handler has a method that looks meant for %s but is not in it (see", hname))
	f.Comment(fmt.Sprintf("Check%s), Run returns that error at once and serves nothing.", hname))
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("Run").Params(ctxParam()).Error().Block(
		If(Id("c").Dot("herr").Op("!=").Nil()).Block(Return(Id("c").Dot("herr"))),
		Return(Id("c").Dot("conn").Dot("Run").Call(Id("ctx"))))
	f.Comment("Close stops the connection.")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("Close").Params().Error().Block(Return(Id("c").Dot("conn").Dot("Close").Call()))
	f.Comment("Negotiated returns what both sides advertised in initialize (nil messages before it).")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("Negotiated").Params().Id("Negotiated").Block(
		Id("c").Dot("mu").Dot("Lock").Call(), Defer().Id("c").Dot("mu").Dot("Unlock").Call(), Return(Id("c").Dot("neg")))
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("state").Params().Params(Op("*").Id("Negotiated"), Bool()).Block(
		Id("c").Dot("mu").Dot("Lock").Call(), Defer().Id("c").Dot("mu").Dot("Unlock").Call(),
		Id("n").Op(":=").Id("c").Dot("neg"), Return(Op("&").Id("n"), Id("c").Dot("ready")))
	f.Comment("Send sends a request as is (no checks): for tests, proxies and methods the schema does not describe.")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("Send").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")).Params(Qual(WirePath, "Raw"), Error()).Block(
		Return(Id("c").Dot("conn").Dot("Call").Call(Id("ctx"), Id("method"), Id("params"))))
	f.Comment("SendNotification sends a notification as is (no checks).")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("SendNotification").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")).Error().Block(
		Return(Id("c").Dot("conn").Dot("Notify").Call(Id("ctx"), Id("method"), Id("params"))))
}

// inboundRouting emits the adapter to the runtime's Handler: one switch
// case per handled method.
func (e *emitter) inboundRouting(f *File, sd *side, cname string, turns *ir.Turn) {
	in := lower(sd.Name) + "Inbound"
	f.Comment(fmt.Sprintf("%s adapts %s to the runtime's Handler.", in, cname))
	f.Type().Id(in).Struct(Id("c").Op("*").Id(cname))
	// Each method is served in a function of its own (serve's instantiation,
	// or serveX), so the switch's stack frame holds no params type.
	var reqCases, noteCases []Code
	for _, m := range sd.handles {
		fn := "serve" + methodGo(m)
		args := []Code{Id("ctx"), Id("n"), Id("method"), Id("params")}
		sig := []Code{ctxParam(), Id("n").Op("*").Id("Negotiated"), Id("method").String(), Id("params").Qual(WirePath, "Raw")}
		handler := Id("c").Dot("h").Dot(methodGo(m))
		switch {
		case m.Notification && !(turns != nil && m == turns.Cancel):
			noteCases = append(noteCases, Case(Id(MethodConst(m.Wire))).Block(
				Id("notify").Call(Id("ctx"), Id("n"), Id("c").Dot("mode"), Id("method"), Id("params"), Id("c").Dot("onDrop"), handler)))
		case m.Notification:
			noteCases = append(noteCases, Case(Id(MethodConst(m.Wire))).Block(Id("c").Dot(fn).Call(args...)))
			f.Func().Params(Id("c").Op("*").Id(cname)).Id(fn).Params(sig...).Block(e.inboundNotification(sd, m, turns)...)
		case m != e.m.Initialize() && !(turns != nil && m == turns.Prompt):
			reqCases = append(reqCases, Case(Id(MethodConst(m.Wire))).Block(
				Return(Id("serve").Call(Id("ctx"), Id("n"), Id("c").Dot("mode"), Id("c").Dot("log"), Id("method"), Id("params"), handler))))
		default:
			reqCases = append(reqCases, Case(Id(MethodConst(m.Wire))).Block(Return(Id("c").Dot(fn).Call(args...))))
			f.Func().Params(Id("c").Op("*").Id(cname)).Id(fn).Params(sig...).Params(Qual(WirePath, "Raw"), Error()).Block(e.inboundRequest(sd, m, turns)...)
		}
	}
	reqCases = append(reqCases, Default().Block(
		If(Qual("strings", "HasPrefix").Call(Id("method"), Lit("_")).Op("&&").Id("c").Dot("ext").Op("!=").Nil()).Block(
			Return(Id("c").Dot("ext").Dot("ExtRequest").Call(Id("ctx"), Id("method"), Id("params")))),
		Return(Nil(), Id("errMethodNotFound").Call(Id("method")))))
	noteCases = append(noteCases, Default().Block(
		If(Qual("strings", "HasPrefix").Call(Id("method"), Lit("_")).Op("&&").Id("c").Dot("ext").Op("!=").Nil()).Block(
			Id("c").Dot("ext").Dot("ExtNotification").Call(Id("ctx"), Id("method"), Id("params")))))
	f.Func().Params(Id("a").Id(in)).Id("HandleRequest").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")).Params(Qual(WirePath, "Raw"), Error()).Block(
		Id("c").Op(":=").Id("a").Dot("c"),
		List(Id("n"), Id("ready")).Op(":=").Id("c").Dot("state").Call(),
		Id("_").Op("=").Id("n"),
		If(Op("!").Id("ready").Op("&&").Id("method").Op("!=").Lit(e.m.Initialize().Wire)).Block(Return(Nil(), Id("errNotInitialized"))),
		Switch(Id("method")).Block(reqCases...),
	)
	f.Func().Params(Id("a").Id(in)).Id("HandleNotification").Params(ctxParam(), Id("method").String(), Id("params").Qual(WirePath, "Raw")).Block(
		Id("c").Op(":=").Id("a").Dot("c"),
		List(Id("n"), Id("ready")).Op(":=").Id("c").Dot("state").Call(),
		If(Op("!").Id("ready")).Block(Id("c").Dot("onDrop").Call(Id("method"), Qual("errors", "New").Call(Lit("received before initialize"))), Return()),
		Id("_").Op("=").Id("n"),
		Switch(Id("method")).Block(noteCases...),
	)
}

// serveHelpers emits serve and notify, which every inbound method without
// a side effect of its own (initialize, turns) goes through: one generic body
// instead of one function per method.
func (e *emitter) serveHelpers(f *File) {
	w := func(n string) *Statement { return Qual(WirePath, n) }
	f.Comment("request is what serve and notify need of a params type.")
	f.Type().Id("request").Types(Id("P").Any()).Interface(Op("*").Id("P"), w("Decodable"), Id("validate").Params(Op("*").Add(w("Validator"))))
	f.Comment("response is what serve needs of a result type.")
	f.Type().Id("response").Types(Id("R").Any()).Interface(Op("*").Id("R"), Id("Validate").Params().Error(), Id("AppendJSON").Params(Index().Byte()).Index().Byte())
	gate := func(onFail ...Code) Code {
		return If(Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(Id("method"), Id("p")), Len(Id("vs")).Op(">").Lit(0)).Block(onFail...)
	}
	decode := func(onErr ...Code) []Code {
		return []Code{
			Id("p").Op(":=").Id("PP").Call(New(Id("P"))),
			If(Err().Op(":=").Add(w("Decode")).Call(Id("params"), Id("p"), Id("mode")), Err().Op("!=").Nil()).Block(onErr...),
		}
	}
	local := func(err Code) Code {
		return Id("refused").Call(Id("log"), Op("&").Add(w("LocalError")).Values(Dict{Id("Method"): Id("method"), Id("What"): Lit("result"), Id("Err"): err}))
	}
	gateErr := func(vs Code) Code { return Op("&").Add(w("GateError")).Values(Dict{Id("Violations"): vs}) }
	body := decode(Return(Nil(), Id("invalidParams").Call(Err())))
	body = append(body,
		If(Err().Op(":=").Add(w("Check")).Call(Id("mode").Op("==").Add(w("Lenient")), Id("p").Dot("validate")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		If(List(Id("ok"), Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(Id("method")), Op("!").Id("ok")).Block(
			Return(Nil(), gateErr(Index().Add(w("GateViolation")).Values(Values(Dict{Id("Method"): Id("method"), Id("Capability"): Id("need")}))))),
		gate(Return(Nil(), gateErr(Id("vs")))),
		List(Id("res"), Err()).Op(":=").Id("handle").Call(Id("ctx"), Id("p")),
		If(Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		If(Id("res").Op("==").Nil()).Block(Return(Nil(), Qual("fmt", "Errorf").Call(Lit("%s handler returned no result"), Id("method")))),
		If(Err().Op(":=").Id("res").Dot("Validate").Call(), Err().Op("!=").Nil()).Block(Return(Nil(), local(Err()))),
		If(Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(Id("method"), Id("res")), Len(Id("vs")).Op(">").Lit(0)).Block(Return(Nil(), local(gateErr(Id("vs"))))),
		Return(Id("res").Dot("AppendJSON").Call(Nil()), Nil()),
	)
	common := []Code{ctxParam(), Id("n").Op("*").Id("Negotiated"), Id("mode").Add(w("Mode"))}
	f.Comment("serve decodes, validates and gate-checks a request's params, calls handle, and checks and encodes its result.")
	f.Func().Id("serve").Types(List(Id("P"), Id("R")).Any(), Id("PP").Id("request").Index(Id("P")), Id("RP").Id("response").Index(Id("R"))).Params(
		append(common, Id("log").Op("*").Qual("log/slog", "Logger"), Id("method").String(), Id("params").Add(w("Raw")),
			Id("handle").Func().Params(Qual("context", "Context"), Id("PP")).Params(Id("RP"), Error()))...,
	).Params(w("Raw"), Error()).Block(body...)
	drop := func(err Code) []Code { return []Code{Id("drop").Call(Id("method"), err), Return()} }
	body = decode(drop(Err())...)
	body = append(body,
		If(Err().Op(":=").Add(w("Check")).Call(Id("mode").Op("==").Add(w("Lenient")), Id("p").Dot("validate")), Err().Op("!=").Nil()).Block(drop(Err())...),
		gate(drop(gateErr(Id("vs")))...),
		Id("handle").Call(Id("ctx"), Id("p")),
	)
	f.Comment("notify decodes, validates and gate-checks a notification's params and calls handle; drop is told")
	f.Comment("about one that fails (a notification cannot be answered).")
	f.Func().Id("notify").Types(Id("P").Any(), Id("PP").Id("request").Index(Id("P"))).Params(
		append(common, Id("method").String(), Id("params").Add(w("Raw")),
			Id("drop").Func().Params(String(), Error()), Id("handle").Func().Params(Qual("context", "Context"), Id("PP")))...,
	).Block(body...)
}

func lower(s string) string { return string(s[0]+32) + s[1:] }

// inboundRequest decodes, validates and gate-checks params, calls the handler,
// and checks and encodes its result.
func (e *emitter) inboundRequest(sd *side, m *ir.Method, turns *ir.Turn) []Code {
	out := []Code{
		Var().Id("p").Id(m.Params.Name),
		If(Err().Op(":=").Qual(WirePath, "Decode").Call(Id("params"), Op("&").Id("p"), Id("c").Dot("mode")), Err().Op("!=").Nil()).Block(Return(Nil(), Id("invalidParams").Call(Err()))),
	}
	out = append(out, inboundValidate(Id("p"), Return(Nil(), Err()))...)
	initialize := m == e.m.Initialize()
	if !initialize {
		out = append(out,
			If(List(Id("ok"), Id("need")).Op(":=").Id("n").Dot("AllowsMethod").Call(Id("method")), Op("!").Id("ok")).Block(
				Return(Nil(), Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Index().Qual(WirePath, "GateViolation").Values(Values(Dict{Id("Method"): Id("method"), Id("Capability"): Id("need")}))}))),
			If(Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(Id("method"), Op("&").Id("p")), Len(Id("vs")).Op(">").Lit(0)).Block(
				Return(Nil(), Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Id("vs")}))),
		)
	}
	call := List(Id("res"), Err()).Op(":=").Id("c").Dot("h").Dot(methodGo(m)).Call(Id("ctx"), Op("&").Id("p"))
	if turns != nil && m == turns.Prompt {
		session := Id("p").Dot(turns.PromptSession.Name)
		out = append(out,
			List(Id("ctx"), Id("t")).Op(":=").Id("c").Dot("startTurn").Call(Id("ctx"), session.Clone()),
			Defer().Id("c").Dot("endTurn").Call(session.Clone(), Id("t")),
			call,
			Comment(fmt.Sprintf("A turn ended by %s answers %s %q, not an error.", turns.Cancel.Wire, turns.StopReason.JSON, turns.Cancelled.String)),
			If(Id("t").Dot("cancelled").Dot("Load").Call().Op("&&").Parens(Err().Op("!=").Nil().Op("||").Id("res").Op("==").Nil())).Block(
				List(Id("res"), Err()).Op("=").List(Op("&").Id(m.Result.Name).Values(Dict{Id(turns.StopReason.Name): Id(turns.Cancelled.Name)}), Nil())),
		)
	} else {
		out = append(out, call)
	}
	out = append(out,
		If(Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
		If(Id("res").Op("==").Nil()).Block(Return(Nil(), Qual("fmt", "Errorf").Call(Lit("%s handler returned no result"), Id("method")))),
	)
	if initialize && e.versioned() {
		v := Id("res").Dot(e.m.Version.Result.Name)
		out = append(out,
			Comment("Version negotiation: an agent that does not say answers with the version this package speaks."),
			If(v.Clone().Op("==").Lit(0)).Block(v.Clone().Op("=").Id("CurrentProtocolVersion")),
		)
	}
	out = append(out,
		If(Err().Op(":=").Id("res").Dot("Validate").Call(), Err().Op("!=").Nil()).Block(Return(Nil(), Id("refused").Call(Id("c").Dot("log"), Op("&").Qual(WirePath, "LocalError").Values(Dict{Id("Method"): Id("method"), Id("What"): Lit("result"), Id("Err"): Err()})))),
	)
	if initialize {
		out = append(out,
			Id("n").Op("=").Op("&").Id("Negotiated").Values(Dict{Id("Request"): Op("&").Id("p"), Id("Response"): Id("res")}),
			Id("c").Dot("mu").Dot("Lock").Call(),
			Id("c").Dot("neg").Op(",").Id("c").Dot("ready").Op("=").Op("*").Id("n").Op(",").True(),
			Id("c").Dot("mu").Dot("Unlock").Call(),
		)
	}
	out = append(out,
		If(Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(Id("method"), Id("res")), Len(Id("vs")).Op(">").Lit(0)).Block(
			Return(Nil(), Id("refused").Call(Id("c").Dot("log"), Op("&").Qual(WirePath, "LocalError").Values(Dict{Id("Method"): Id("method"), Id("What"): Lit("result"), Id("Err"): Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Id("vs")})})))),
		Return(Id("res").Dot("AppendJSON").Call(Nil()), Nil()),
	)
	return out
}

func (e *emitter) inboundNotification(sd *side, m *ir.Method, turns *ir.Turn) []Code {
	out := []Code{
		Var().Id("p").Id(m.Params.Name),
		If(Err().Op(":=").Qual(WirePath, "Decode").Call(Id("params"), Op("&").Id("p"), Id("c").Dot("mode")), Err().Op("!=").Nil()).Block(Id("c").Dot("onDrop").Call(Id("method"), Err()), Return()),
	}
	out = append(out, inboundValidate(Id("p"), Id("c").Dot("onDrop").Call(Id("method"), Err()), Return())...)
	out = append(out,
		If(Id("vs").Op(":=").Id("n").Dot("CheckParams").Call(Id("method"), Op("&").Id("p")), Len(Id("vs")).Op(">").Lit(0)).Block(
			Id("c").Dot("onDrop").Call(Id("method"), Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Id("vs")})), Return()),
	)
	if turns != nil && m == turns.Cancel {
		out = append(out, Id("c").Dot("cancelTurn").Call(Id("p").Dot(turns.CancelSession.Name)))
	}
	return append(out, Id("c").Dot("h").Dot(methodGo(m)).Call(Id("ctx"), Op("&").Id("p")))
}

// turnHelpers tracks in-flight prompt turns so session/cancel can end them.
func (e *emitter) turnHelpers(f *File, cname string, turns *ir.Turn) {
	session := goType(turns.PromptSession.Ref)
	f.Comment("turn is one in-flight session/prompt.")
	f.Type().Id("turn").Struct(
		Id("cancel").Qual("context", "CancelFunc"),
		Id("cancelled").Qual("sync/atomic", "Bool"),
		Comment("awaiting ends the turn's runtime mark: it may wait for session/cancel."),
		Id("awaiting").Func().Params(),
	)
	f.Comment("startTurn registers a prompt turn of session s beside the session's other turns. A turn")
	f.Comment("may run until session/cancel, so the runtime is told it awaits input: past its bounds")
	f.Comment("it refuses requests rather than stop reading (see runtime/jsonrpc, Flow control).")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("startTurn").Params(ctxParam(), Id("s").Add(session.Clone())).Params(Qual("context", "Context"), Op("*").Id("turn")).Block(
		List(Id("ctx"), Id("cancel")).Op(":=").Qual("context", "WithCancel").Call(Id("ctx")),
		Id("t").Op(":=").Op("&").Id("turn").Values(Dict{Id("cancel"): Id("cancel"), Id("awaiting"): Id("c").Dot("conn").Dot("AwaitingInput").Call()}),
		Id("c").Dot("mu").Dot("Lock").Call(),
		Id("ts").Op(":=").Id("c").Dot("turns").Index(Id("s")),
		If(Id("ts").Op("==").Nil()).Block(
			Id("ts").Op("=").Map(Op("*").Id("turn")).Struct().Values(),
			Id("c").Dot("turns").Index(Id("s")).Op("=").Id("ts")),
		Id("ts").Index(Id("t")).Op("=").Struct().Values(),
		Id("c").Dot("mu").Dot("Unlock").Call(),
		Return(Id("ctx"), Id("t")))
	f.Comment("endTurn unregisters a turn started by startTurn.")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("endTurn").Params(Id("s").Add(session.Clone()), Id("t").Op("*").Id("turn")).Block(
		Id("t").Dot("cancel").Call(),
		Id("t").Dot("awaiting").Call(),
		Id("c").Dot("mu").Dot("Lock").Call(),
		Delete(Id("c").Dot("turns").Index(Id("s")), Id("t")),
		If(Len(Id("c").Dot("turns").Index(Id("s"))).Op("==").Lit(0)).Block(Delete(Id("c").Dot("turns"), Id("s"))),
		Id("c").Dot("mu").Dot("Unlock").Call())
	f.Comment("cancelTurn ends every in-flight prompt turn of the session: each turn's context is")
	f.Comment("cancelled and each answers \"cancelled\".")
	f.Func().Params(Id("c").Op("*").Id(cname)).Id("cancelTurn").Params(Id("s").Add(session.Clone())).Block(
		Id("c").Dot("mu").Dot("Lock").Call(),
		Defer().Id("c").Dot("mu").Dot("Unlock").Call(),
		For(Id("t").Op(":=").Range().Id("c").Dot("turns").Index(Id("s"))).Block(
			Id("t").Dot("cancelled").Dot("Store").Call(True()),
			Id("t").Dot("cancel").Call()))
}

// outboundCall emits a typed call to the peer, checked before sending. With
// endTurn set (m is the client's prompt), a call whose context ends also
// sends endTurn's cancel (session/cancel) for the prompt's session.
func (e *emitter) outboundCall(f *File, sd *side, cname string, m *ir.Method, endTurn *ir.Turn) {
	name := methodGo(m)
	pre := []Code{
		List(Id("n"), Id("ready")).Op(":=").Id("c").Dot("state").Call(),
	}
	initialize := m == e.m.Initialize()
	if initialize {
		pre = append(pre, Id("_").Op(",").Id("_").Op("=").Id("n").Op(",").Id("ready"))
		if e.versioned() {
			v := Id("params").Dot(e.m.Version.Params.Name)
			pre = append(pre, If(v.Clone().Op("==").Lit(0)).Block(v.Clone().Op("=").Id("CurrentProtocolVersion")))
		}
		pre = append(pre, If(Err().Op(":=").Id("outbound").Call(Nil(), Id(MethodConst(m.Wire)), Id("params")), Err().Op("!=").Nil()).Block(Return(zeroRet(m), Id("refused").Call(Id("c").Dot("log"), Err()))))
	} else {
		pre = append(pre,
			If(Op("!").Id("ready")).Block(Return(zeroRet(m), Qual("errors", "New").Call(Lit(m.Wire+": initialize first")))),
			If(Err().Op(":=").Id("outbound").Call(Id("n"), Id(MethodConst(m.Wire)), Id("params")), Err().Op("!=").Nil()).Block(Return(zeroRet(m), Id("refused").Call(Id("c").Dot("log"), Err()))),
		)
	}
	if m.Notification {
		f.Comment(fmt.Sprintf("%s sends the notification %s to the %s, after checking it is valid and allowed.", name, m.Wire, sd.peer))
		f.Comment("It returns once the frame is written, so notifications precede a later response.")
		f.Func().Params(Id("c").Op("*").Id(cname)).Id(name).Params(ctxParam(), Id("params").Op("*").Id(m.Params.Name)).Error().Block(
			append(pre, Return(Id("c").Dot("conn").Dot("Notify").Call(Id("ctx"), Id(MethodConst(m.Wire)), Id("params").Dot("AppendJSON").Call(Nil()))))...)
		return
	}
	body := pre
	callErr := []Code{Return(Nil(), Err())}
	if endTurn != nil {
		body = append(body,
			Comment("An ended context sends nothing: there is no turn to cancel."),
			If(Err().Op(":=").Id("ctx").Dot("Err").Call(), Err().Op("!=").Nil()).Block(Return(Nil(), Err())))
		callErr = []Code{
			If(Id("ctx").Dot("Err").Call().Op("!=").Nil()).Block(
				Comment("The runtime has sent $/cancel_request, which agents may ignore; session/cancel"),
				Comment("is ACP's way to end the turn (it ends every turn of the session)."),
				Id("cancel").Op(":=").Id(endTurn.Cancel.Params.Name).Values(Dict{Id(endTurn.CancelSession.Name): Id("params").Dot(endTurn.PromptSession.Name)}),
				Comment("A failed write is logged by the runtime and fails every later call."),
				Id("_").Op("=").Id("c").Dot("conn").Dot("Notify").Call(Qual("context", "WithoutCancel").Call(Id("ctx")), Id(MethodConst(endTurn.Cancel.Wire)), Id("cancel").Dot("AppendJSON").Call(Nil()))),
			Return(Nil(), Err()),
		}
	}
	body = append(body,
		List(Id("raw"), Err()).Op(":=").Id("c").Dot("conn").Dot("Call").Call(Id("ctx"), Id(MethodConst(m.Wire)), Id("params").Dot("AppendJSON").Call(Nil())),
		If(Err().Op("!=").Nil()).Block(callErr...),
		Id("res").Op(":=").New(Id(m.Result.Name)),
		If(Err().Op(":=").Qual(WirePath, "Decode").Call(Id("raw"), Id("res"), Id("c").Dot("mode")), Err().Op("!=").Nil()).Block(Return(Nil(), Qual("fmt", "Errorf").Call(Lit(m.Wire+": invalid result: %w"), Err()))),
	)
	body = append(body, inboundValidate(Id("res"), Return(Nil(), Qual("fmt", "Errorf").Call(Lit(m.Wire+": invalid result: %w"), Err())))...)
	if initialize {
		if e.versioned() {
			body = append(body,
				If(Id("res").Dot(e.m.Version.Result.Name).Op("!=").Id("CurrentProtocolVersion")).Block(
					Return(Id("res"), Qual("fmt", "Errorf").Call(Lit(m.Wire+": the agent speaks protocol version %d, this package %d"), Id("res").Dot(e.m.Version.Result.Name), Id("CurrentProtocolVersion")))))
		}
		body = append(body,
			Id("c").Dot("mu").Dot("Lock").Call(),
			Id("c").Dot("neg").Op(",").Id("c").Dot("ready").Op("=").Id("Negotiated").Values(Dict{Id("Request"): Id("params"), Id("Response"): Id("res")}).Op(",").True(),
			Id("c").Dot("mu").Dot("Unlock").Call(),
		)
	} else {
		body = append(body,
			If(Id("vs").Op(":=").Id("n").Dot("CheckResult").Call(Id(MethodConst(m.Wire)), Id("res")), Len(Id("vs")).Op(">").Lit(0)).Block(
				Return(Nil(), Op("&").Qual(WirePath, "GateError").Values(Dict{Id("Violations"): Id("vs")}))))
	}
	body = append(body, Return(Id("res"), Nil()))
	f.Comment(fmt.Sprintf("%s calls %s on the %s, after checking the params are valid and allowed; the result is", name, m.Wire, sd.peer))
	f.Comment("decoded, validated and checked against what this side advertised.")
	if endTurn != nil {
		f.Comment(fmt.Sprintf("When ctx ends first, it sends %s for params' session as well as the runtime's", endTurn.Cancel.Wire))
		f.Comment("$/cancel_request (which agents may ignore), and returns ctx's error.")
	}
	f.Func().Params(Id("c").Op("*").Id(cname)).Id(name).Params(ctxParam(), Id("params").Op("*").Id(m.Params.Name)).Params(Op("*").Id(m.Result.Name), Error()).Block(body...)
}

func zeroRet(m *ir.Method) Code {
	if m.Notification {
		return Null()
	}
	return Nil()
}

// inboundValidate validates a received message x: in lenient mode a variant
// this version does not know (a closed union's Unknown) is accepted, so a
// newer peer's additions reach the handler. onErr runs with err set.
func inboundValidate(x *Statement, onErr ...Code) []Code {
	return []Code{
		Id("vd").Op(":=").Qual(WirePath, "Validator").Values(Dict{Id("AcceptUnknown"): Id("c").Dot("mode").Op("==").Qual(WirePath, "Lenient")}),
		x.Clone().Dot("validate").Call(Op("&").Id("vd")),
		If(Err().Op(":=").Id("vd").Dot("Err").Call(), Err().Op("!=").Nil()).Block(onErr...),
	}
}
