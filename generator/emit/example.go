package emit

import (
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
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
func (e *emitter) exampleFile() func(*jen.File) {
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
	promptField := p.prompt.Params.Member("prompt")
	updateField := p.update.Params.Member("update")
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
	var body func(*jen.File) bool
	body = func(f *jen.File) bool { return e.example(f, &p) }
	// Build once to see that every literal can be formed.
	if !body(jen.NewFile(e.o.Package + "_test")) {
		return nil
	}
	return func(f *jen.File) { body(f) }
}

// example writes the example into f; false when a literal cannot be formed
// (a required member the example does not know, or a pointer member).
func (e *emitter) example(f *jen.File, p *exampleParts) bool {
	x := &exampleLits{ip: e.o.ImportPath, ok: true}
	e.exampleAgent(f, p, x)
	e.exampleClient(f, p, x)
	e.exampleFunc(f, p, x)
	return x.ok
}

// exampleLits forms the example's references and literals; ok turns false
// when one cannot be formed.
type exampleLits struct {
	ip string // the generated package's import path
	ok bool
}

func (x *exampleLits) q(name string) *jen.Statement { return jen.Qual(x.ip, name) }

// lit is &T{...} with the given members by JSON name; other required
// members must be arrays of a named type (an empty, non-nil slice).
func (x *exampleLits) lit(t *ir.Type, vals map[string]jen.Code) jen.Code {
	d := jen.Dict{}
	found := 0
	for _, fl := range t.Fields {
		v, given := vals[fl.JSON]
		switch {
		case given && !fieldPtr(fl):
			d[jen.Id(fl.Name)] = v
			found++
		case given:
			x.ok = false
		case fl.Required && fl.Ref.Kind == ir.Array && fl.Ref.Elem.Kind == ir.Named && !fieldPtr(fl):
			d[jen.Id(fl.Name)] = jen.Index().Add(x.q(fl.Ref.Elem.Type.Name)).Values()
		case fl.Required:
			x.ok = false
		}
	}
	if found != len(vals) {
		x.ok = false
	}
	return jen.Op("&").Add(x.q(t.Name)).Values(d)
}

// goName is the Go name of t's member with JSON name json.
func (x *exampleLits) goName(t *ir.Type, json string) string {
	if fl := t.Member(json); fl != nil {
		return fl.Name
	}
	x.ok = false
	return "X"
}

// exampleAgent writes the agent: initialize, session/new, and a prompt
// handler that sends each text block back as a message chunk.
func (e *emitter) exampleAgent(f *jen.File, p *exampleParts, x *exampleLits) {
	text := p.text.v.Payload.Type.Name // TextContent
	ctx := jen.Id("ctx").Qual("context", "Context")

	f.Comment("exampleAgent answers initialize, session/new and session/prompt; a prompt's")
	f.Comment("text comes back as agent_message_chunk updates.")
	f.Type().Id("exampleAgent").Struct(
		x.q("Unimplemented"+"AgentHandler"),
		jen.Id("conn").Op("*").Add(x.q("AgentConn")),
	)
	f.Func().Params(jen.Id("a").Op("*").Id("exampleAgent")).Id(p.init.Name).Params(ctx, jen.Id("p").Op("*").Add(x.q(p.init.Params.Name))).Params(jen.Op("*").Add(x.q(p.init.Result.Name)), jen.Error()).Block(
		jen.Return(x.lit(p.init.Result, map[string]jen.Code{e.m.Version.Result.JSON: x.q("CurrentProtocolVersion")}), jen.Nil()))
	f.Line()
	f.Func().Params(jen.Id("a").Op("*").Id("exampleAgent")).Id(p.newSession.Name).Params(ctx.Clone(), jen.Id("p").Op("*").Add(x.q(p.newSession.Params.Name))).Params(jen.Op("*").Add(x.q(p.newSession.Result.Name)), jen.Error()).Block(
		jen.Return(x.lit(p.newSession.Result, map[string]jen.Code{"sessionId": jen.Lit("session-1")}), jen.Nil()))
	f.Line()
	sid := x.goName(p.prompt.Params, "sessionId")
	f.Func().Params(jen.Id("a").Op("*").Id("exampleAgent")).Id(p.prompt.Name).Params(ctx.Clone(), jen.Id("p").Op("*").Add(x.q(p.prompt.Params.Name))).Params(jen.Op("*").Add(x.q(p.prompt.Result.Name)), jen.Error()).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("p").Dot(x.goName(p.prompt.Params, "prompt"))).Block(
			jen.If(jen.List(jen.Id("t"), jen.Id("isText")).Op(":=").Id("b").Dot("Value").Call().Assert(jen.Op("*").Add(x.q(text))), jen.Id("isText")).Block(
				jen.Id("update").Op(":=").Add(x.lit(p.update.Params, map[string]jen.Code{"sessionId": jen.Id("p").Dot(sid), "update": x.q(p.chunk.name).Call(jen.Id("t").Dot(p.text.field.Name))})),
				jen.If(jen.Err().Op(":=").Id("a").Dot("conn").Dot(p.update.Name).Call(jen.Id("ctx"), jen.Id("update")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			),
		),
		jen.Return(x.lit(p.prompt.Result, map[string]jen.Code{e.m.Turn.StopReason.JSON: x.q(p.endTurn.Name)}), jen.Nil()))
	f.Line()
}

// exampleClient writes the client, which prints the agent's message chunks.
func (e *emitter) exampleClient(f *jen.File, p *exampleParts, x *exampleLits) {
	ctx := jen.Id("ctx").Qual("context", "Context")
	f.Comment("exampleClient prints the agent's message chunks.")
	f.Type().Id("exampleClient").Struct(x.q("Unimplemented" + "ClientHandler"))
	content := jen.Id("c").Dot(p.chunk.field.Name).Dot(p.text.v.Name)
	f.Func().Params(jen.Id("exampleClient")).Id(p.update.Name).Params(ctx.Clone(), jen.Id("n").Op("*").Add(x.q(p.update.Params.Name))).Block(
		jen.If(jen.Id("c").Op(":=").Id("n").Dot(x.goName(p.update.Params, "update")).Dot(p.chunk.v.Name), jen.Id("c").Op("!=").Nil().Op("&&").Add(content.Clone()).Op("!=").Nil()).Block(
			jen.Qual("fmt", "Println").Call(jen.Lit("agent:"), content.Clone().Dot(p.text.field.Name))))
	f.Line()
}

// exampleFunc writes Example: the agent and the client over pipes, one
// turn, and its output.
func (e *emitter) exampleFunc(f *jen.File, p *exampleParts, x *exampleLits) {
	pkg := e.o.Package
	newSID := x.goName(p.newSession.Result, "sessionId")
	stop := e.m.Turn.StopReason.Name
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Qual("log", "Fatal").Call(jen.Err()))
	f.Comment("An agent and a client in one process, over pipes; a real agent serves")
	f.Comment("os.Stdin and os.Stdout:")
	f.Comment("")
	f.Comment("\terr := " + pkg + ".NewAgentConn(agent, os.Stdin, os.Stdout, " + pkg + ".ConnOptions{}).Run(ctx)")
	f.Func().Id("Example").Params().Block(
		jen.Id("ctx").Op(",").Id("cancel").Op(":=").Qual("context", "WithCancel").Call(jen.Qual("context", "Background").Call()),
		jen.Defer().Id("cancel").Call(),
		jen.List(jen.Id("agentIn"), jen.Id("clientOut")).Op(":=").Qual("io", "Pipe").Call(),
		jen.List(jen.Id("clientIn"), jen.Id("agentOut")).Op(":=").Qual("io", "Pipe").Call(),
		jen.Id("agent").Op(":=").Op("&").Id("exampleAgent").Values(),
		jen.Id("agent").Dot("conn").Op("=").Add(x.q("NewAgentConn")).Call(jen.Id("agent"), jen.Id("agentIn"), jen.Id("agentOut"), x.q("ConnOptions").Values()),
		jen.Go().Id("agent").Dot("conn").Dot("Run").Call(jen.Id("ctx")),
		jen.Id("client").Op(":=").Add(x.q("NewClientConn")).Call(jen.Id("exampleClient").Values(), jen.Id("clientIn"), jen.Id("clientOut"), x.q("ConnOptions").Values()),
		jen.Go().Id("client").Dot("Run").Call(jen.Id("ctx")),
		jen.Line(),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("client").Dot(p.init.Name).Call(jen.Id("ctx"), x.lit(p.init.Params, map[string]jen.Code{e.m.Version.Params.JSON: x.q("CurrentProtocolVersion")})), jen.Err().Op("!=").Nil()).Block(jen.Qual("log", "Fatal").Call(jen.Err())),
		jen.List(jen.Id("session"), jen.Err()).Op(":=").Id("client").Dot(p.newSession.Name).Call(jen.Id("ctx"), x.lit(p.newSession.Params, map[string]jen.Code{"cwd": jen.Lit("/")})),
		fail.Clone(),
		jen.List(jen.Id("turn"), jen.Err()).Op(":=").Id("client").Dot(p.prompt.Name).Call(jen.Id("ctx"), x.lit(p.prompt.Params, map[string]jen.Code{
			"sessionId": jen.Id("session").Dot(newSID),
			"prompt":    jen.Index().Add(x.q(p.item)).Values(x.q(p.text.name).Call(jen.Lit(exampleText))),
		})),
		fail.Clone(),
		jen.Qual("fmt", "Println").Call(jen.Lit("stop reason:"), jen.Id("turn").Dot(stop)),
		jen.Comment("Output:"),
		jen.Comment("agent: "+exampleText),
		jen.Comment("stop reason: "+p.endTurn.String),
	)
}
