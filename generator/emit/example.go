package emit

import (
	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
)

// The runnable example (example_test.go, package <pkg>_test): an agent and
// a client of the generated package talking over pipes, one prompt turn.
// Every name in it comes from the model: initialize, the prompt turn and the
// protocol version as the IR recognised them (ir.Model.Turn, Version),
// session/new and session/update by wire name (in every v1 channel), the
// members by JSON name, the text helpers from api.go. When one is missing
// the package gets no example.

// exampleText is the prompt the example sends and the agent echoes.
const exampleText = "hello"

// exampleParts are the model's pieces the example is built from.
type exampleParts struct {
	init, newSession, prompt, update *ir.Method
	text, chunk                      *shortcut // TextBlock, AgentMessageChunkText
	item                             string    // a prompt item's type: ContentBlock
	endTurn                          *ir.EnumValue
}

// exampleFile returns the emitter of example_test.go, nil when the model
// lacks a piece of it.
func (e *emitter) exampleFile() func(*File) {
	if !e.hasDispatch() || !e.versioned() {
		return nil
	}
	var p exampleParts
	if in := e.m.Initialize(); in.Side == "agent" {
		p.init = in
	}
	if e.m.Turn != nil {
		p.prompt = e.m.Turn.Prompt
	}
	for _, m := range e.m.Methods {
		switch {
		case m.Wire == "session/new" && m.Side == "agent" && !m.Notification:
			p.newSession = m
		case m.Wire == "session/update" && m.Side == "client" && m.Notification:
			p.update = m
		}
	}
	if p.init == nil || p.newSession == nil || p.prompt == nil || p.update == nil || p.init.Result == nil || p.newSession.Result == nil || p.prompt.Result == nil {
		return nil
	}
	promptField := member(p.prompt.Params, "prompt")
	updateField := member(p.update.Params, "update")
	if promptField == nil || promptField.Ref.Kind != ir.Array || promptField.Ref.Elem.Kind != ir.Named || updateField == nil || updateField.Ref.Kind != ir.Named {
		return nil
	}
	p.item = promptField.Ref.Elem.Type.Name
	for _, s := range e.textShortcuts() {
		if s.inner == nil && s.text && s.u == promptField.Ref.Elem.Type.Union {
			p.text = s
		}
	}
	for _, s := range e.textShortcuts() {
		if p.text != nil && s.inner == p.text && s.u == updateField.Ref.Type.Union && s.v.Tag == "agent_message_chunk" {
			p.chunk = s
		}
	}
	if stop := e.m.Turn.StopReason; stop != nil && stop.Ref.Kind == ir.Named && stop.Ref.Type.Kind == ir.Enum && stop.Ref.Type.EnumBase.Kind == ir.String {
		for _, v := range stop.Ref.Type.EnumValues {
			if v.String == "end_turn" {
				p.endTurn = v
			}
		}
	}
	if p.text == nil || p.chunk == nil || p.endTurn == nil {
		return nil
	}
	var body func(*File) bool
	body = func(f *File) bool { return e.example(f, &p) }
	// Build once to see that every literal can be formed.
	if !body(NewFile(e.o.Package + "_test")) {
		return nil
	}
	return func(f *File) { body(f) }
}

// member is t's member with JSON name name, nil when none.
func member(t *ir.Type, name string) *ir.Field {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if f.JSON == name {
			return f
		}
	}
	return nil
}

// example writes the example into f; false when a literal cannot be formed
// (a required member the example does not know, or a pointer member).
func (e *emitter) example(f *File, p *exampleParts) bool {
	ip := e.o.ImportPath
	q := func(name string) *Statement { return Qual(ip, name) }
	ok := true
	// lit is &T{...} with the given members by JSON name; other required
	// members must be arrays of a named type (an empty, non-nil slice).
	lit := func(t *ir.Type, vals map[string]Code) Code {
		d := Dict{}
		found := 0
		for _, fl := range t.Fields {
			v, given := vals[fl.JSON]
			switch {
			case given && !fieldPtr(fl):
				d[Id(fl.Name)] = v
				found++
			case given:
				ok = false
			case fl.Required && fl.Ref.Kind == ir.Array && fl.Ref.Elem.Kind == ir.Named && !fieldPtr(fl):
				d[Id(fl.Name)] = Index().Add(q(fl.Ref.Elem.Type.Name)).Values()
			case fl.Required:
				ok = false
			}
		}
		if found != len(vals) {
			ok = false
		}
		return Op("&").Add(q(t.Name)).Values(d)
	}
	goName := func(t *ir.Type, json string) string {
		if fl := member(t, json); fl != nil {
			return fl.Name
		}
		ok = false
		return "X"
	}
	pkg := e.o.Package
	text := p.text.v.Payload.Type.Name // TextContent
	ctx := Id("ctx").Qual("context", "Context")

	f.Comment("exampleAgent answers initialize, session/new and session/prompt; a prompt's")
	f.Comment("text comes back as agent_message_chunk updates.")
	f.Type().Id("exampleAgent").Struct(
		q("Unimplemented"+"AgentHandler"),
		Id("conn").Op("*").Add(q("AgentConn")),
	)
	f.Func().Params(Id("a").Op("*").Id("exampleAgent")).Id(p.init.Name).Params(ctx, Id("p").Op("*").Add(q(p.init.Params.Name))).Params(Op("*").Add(q(p.init.Result.Name)), Error()).Block(
		Return(lit(p.init.Result, map[string]Code{e.m.Version.Result.JSON: q("CurrentProtocolVersion")}), Nil()))
	f.Line()
	f.Func().Params(Id("a").Op("*").Id("exampleAgent")).Id(p.newSession.Name).Params(ctx.Clone(), Id("p").Op("*").Add(q(p.newSession.Params.Name))).Params(Op("*").Add(q(p.newSession.Result.Name)), Error()).Block(
		Return(lit(p.newSession.Result, map[string]Code{"sessionId": Lit("session-1")}), Nil()))
	f.Line()
	sid := goName(p.prompt.Params, "sessionId")
	f.Func().Params(Id("a").Op("*").Id("exampleAgent")).Id(p.prompt.Name).Params(ctx.Clone(), Id("p").Op("*").Add(q(p.prompt.Params.Name))).Params(Op("*").Add(q(p.prompt.Result.Name)), Error()).Block(
		For(List(Id("_"), Id("b")).Op(":=").Range().Id("p").Dot(goName(p.prompt.Params, "prompt"))).Block(
			If(List(Id("t"), Id("isText")).Op(":=").Id("b").Dot("Value").Call().Assert(Op("*").Add(q(text))), Id("isText")).Block(
				Id("update").Op(":=").Add(lit(p.update.Params, map[string]Code{"sessionId": Id("p").Dot(sid), "update": q(p.chunk.name).Call(Id("t").Dot(p.text.field.Name))})),
				If(Err().Op(":=").Id("a").Dot("conn").Dot(p.update.Name).Call(Id("ctx"), Id("update")), Err().Op("!=").Nil()).Block(Return(Nil(), Err())),
			),
		),
		Return(lit(p.prompt.Result, map[string]Code{e.m.Turn.StopReason.JSON: q(p.endTurn.Name)}), Nil()))
	f.Line()

	f.Comment("exampleClient prints the agent's message chunks.")
	f.Type().Id("exampleClient").Struct(q("Unimplemented" + "ClientHandler"))
	content := Id("c").Dot(p.chunk.field.Name).Dot(p.text.v.Name)
	f.Func().Params(Id("exampleClient")).Id(p.update.Name).Params(ctx.Clone(), Id("n").Op("*").Add(q(p.update.Params.Name))).Block(
		If(Id("c").Op(":=").Id("n").Dot(goName(p.update.Params, "update")).Dot(p.chunk.v.Name), Id("c").Op("!=").Nil().Op("&&").Add(content.Clone()).Op("!=").Nil()).Block(
			Qual("fmt", "Println").Call(Lit("agent:"), content.Clone().Dot(p.text.field.Name))))
	f.Line()

	newSID := goName(p.newSession.Result, "sessionId")
	stop := e.m.Turn.StopReason.Name
	fail := If(Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err()))
	f.Comment("An agent and a client in one process, over pipes; a real agent serves")
	f.Comment("os.Stdin and os.Stdout:")
	f.Comment("")
	f.Comment("\terr := " + pkg + ".NewAgentConn(agent, os.Stdin, os.Stdout, " + pkg + ".ConnOptions{}).Run(ctx)")
	f.Func().Id("Example").Params().Block(
		Id("ctx").Op(",").Id("cancel").Op(":=").Qual("context", "WithCancel").Call(Qual("context", "Background").Call()),
		Defer().Id("cancel").Call(),
		List(Id("agentIn"), Id("clientOut")).Op(":=").Qual("io", "Pipe").Call(),
		List(Id("clientIn"), Id("agentOut")).Op(":=").Qual("io", "Pipe").Call(),
		Id("agent").Op(":=").Op("&").Id("exampleAgent").Values(),
		Id("agent").Dot("conn").Op("=").Add(q("NewAgentConn")).Call(Id("agent"), Id("agentIn"), Id("agentOut"), q("ConnOptions").Values()),
		Go().Id("agent").Dot("conn").Dot("Run").Call(Id("ctx")),
		Id("client").Op(":=").Add(q("NewClientConn")).Call(Id("exampleClient").Values(), Id("clientIn"), Id("clientOut"), q("ConnOptions").Values()),
		Go().Id("client").Dot("Run").Call(Id("ctx")),
		Line(),
		If(List(Id("_"), Err()).Op(":=").Id("client").Dot(p.init.Name).Call(Id("ctx"), lit(p.init.Params, map[string]Code{e.m.Version.Params.JSON: q("CurrentProtocolVersion")})), Err().Op("!=").Nil()).Block(Qual("log", "Fatal").Call(Err())),
		List(Id("session"), Err()).Op(":=").Id("client").Dot(p.newSession.Name).Call(Id("ctx"), lit(p.newSession.Params, map[string]Code{"cwd": Lit("/")})),
		fail.Clone(),
		List(Id("turn"), Err()).Op(":=").Id("client").Dot(p.prompt.Name).Call(Id("ctx"), lit(p.prompt.Params, map[string]Code{
			"sessionId": Id("session").Dot(newSID),
			"prompt":    Index().Add(q(p.item)).Values(q(p.text.name).Call(Lit(exampleText))),
		})),
		fail.Clone(),
		Qual("fmt", "Println").Call(Lit("stop reason:"), Id("turn").Dot(stop)),
		Comment("Output:"),
		Comment("agent: "+exampleText),
		Comment("stop reason: "+p.endTurn.String),
	)
	return ok
}
