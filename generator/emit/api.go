package emit

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// api emits api.go: what an agent or client needs beside the types, so it
// imports this package only: the runtime's error and option types under
// this package's names, a constructor per ACP error code, the handler
// check, and text shortcuts for the common union values.
func (e *emitter) api(f *jen.File) {
	alias := func(name, doc string, target jen.Code) {
		f.Comment(doc)
		f.Type().Id(name).Op("=").Add(target)
	}
	alias("RPCError", "RPCError is a JSON-RPC error object. A handler returns one to answer with its code, message and data.", jen.Qual(WirePath, "RPCError"))
	alias("Raw", "Raw is one JSON value kept as bytes: extension params and results, _meta values.", jen.Qual(WirePath, "Raw"))
	alias("ValidationError", "ValidationError lists every way a value breaks the schema (Validate's error); it answers -32602.", jen.Qual(WirePath, "ValidationError"))
	alias("GateError", "GateError lists the capabilities a message uses without the peer advertising them.", jen.Qual(WirePath, "GateError"))
	alias("LocalError", "LocalError is a message this side refused to send: a bug of this side, answered -32603, never blamed on the peer.", jen.Qual(WirePath, "LocalError"))
	alias("EncodeError", "EncodeError is MarshalJSON's error for a union with no variant or several set.", jen.Qual(WirePath, "EncodeError"))
	if e.hasDispatch() {
		alias("RPCOptions", "RPCOptions configures the JSON-RPC runtime of a connection (ConnOptions.RPC): logger, frame size, concurrency and flow-control bounds.", jen.Qual(JSONRPCPath, "Options"))
	}
	f.Line()
	e.errorConstructors(f)
	if e.hasDispatch() {
		e.handlerChecks(f)
	}
	e.shortcuts(f)
}

// lastWord is the last word of a Go name: "ContentBlock" -> "Block".
func lastWord(name string) string {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] >= 'A' && name[i] <= 'Z' && !(name[i-1] >= 'A' && name[i-1] <= 'Z') {
			return name[i:]
		}
	}
	return name
}

// errorCodeType is the schema's ErrorCode def when it is an integer enum.
func (e *emitter) errorCodeType() *ir.Type {
	t := e.m.TypeByDef("ErrorCode")
	if t == nil || t.Kind != ir.Enum || t.EnumBase.Kind != ir.Int {
		return nil
	}
	return t
}

// errorConstructors emits NewError and one constructor per value of the
// schema's ErrorCode, so the set tracks upstream.
func (e *emitter) errorConstructors(f *jen.File) {
	t := e.errorCodeType()
	if t == nil {
		return
	}
	f.Comment("NewError returns a JSON-RPC error object with code, message and data (nil for none).")
	f.Func().Id("NewError").Params(jen.Id("code").Id(t.Name), jen.Id("message").String(), jen.Id("data").Any()).Op("*").Id("RPCError").Block(
		jen.Return(jen.Op("&").Qual(WirePath, "RPCError").Values(jen.Dict{jen.Id("Code"): jen.Qual(WirePath, "ErrorCode").Call(jen.Id("code")), jen.Id("Message"): jen.Id("message"), jen.Id("Data"): jen.Id("data")})))
	d := e.declared()
	for _, v := range t.EnumValues {
		short := strings.TrimPrefix(v.Name, t.Name)
		if short == "" || v.Title == "" {
			continue
		}
		name := "New" + short
		if !strings.HasSuffix(short, "Error") {
			name += "Error"
		}
		if d[name] {
			continue
		}
		d[name] = true
		f.Comment(fmt.Sprintf("%s returns the error %d %q (%s) with data (nil for none).", name, v.Int, v.Title, v.Name))
		f.Func().Id(name).Params(jen.Id("data").Any()).Op("*").Id("RPCError").Block(
			jen.Return(jen.Id("NewError").Call(jen.Id(v.Name), jen.Lit(v.Title), jen.Id("data"))))
	}
	f.Line()
}

// handlerChecks emits Check<Side>Handler for tests to run. The connection
// does not run it: enumerating a type's methods through reflection makes the
// linker keep every exported method of every type stored in an interface,
// about a fifth of a minimal agent's binary.
func (e *emitter) handlerChecks(f *jen.File) {
	for _, sd := range e.sides() {
		h := sd.Name + "Handler"
		f.Comment(fmt.Sprintf("Check%s reports exported methods of h that look meant for %s but are not", h, h))
		f.Comment(fmt.Sprintf("in it: a method taking a context and a params type of %s, or named", h))
		f.Comment("within two edits of one of its methods (SessionPromt). Embedding Unimplemented" + h)
		f.Comment("would make such a method dead code answering method-not-found. Run it in a test:")
		f.Comment("New" + sd.Name + "Conn does not, since the reflection it uses keeps every exported method")
		f.Comment("of the program's interface-stored types in the binary.")
		f.Func().Id("Check" + h).Params(jen.Id("h").Id(h)).Error().Block(
			jen.Return(jen.Qual(WirePath, "CheckHandler").Call(jen.Id("h"), interfaceType(h), interfaceType("ExtHandler"))))
	}
	f.Line()
}

// shortcut is a short constructor: a function of a union variant's required
// members returning the union.
type shortcut struct {
	name string
	u    *ir.Union
	v    *ir.Variant
	// fields are the payload's required members, the function's parameters
	// in schema order; field is the one when there is one. inner, when set,
	// is the text shortcut building field's value from one string.
	fields []*ir.Field
	field  *ir.Field
	inner  *shortcut
	// text: the one parameter is a plain string (TextBlock, AgentMessageChunkText).
	text bool
}

// shortcuts emits the short constructors derived from the schema's shapes
// (see textShortcuts).
func (e *emitter) shortcuts(f *jen.File) {
	for _, s := range e.textShortcuts() {
		f.Comment(fmt.Sprintf("%s returns a %s holding the %s variant %s.", s.name, s.u.Name, s.v.Name, s.describe()))
		if s.inner != nil {
			f.Func().Id(s.name).Params(jen.Id("s").String()).Id(s.u.Name).Block(jen.Return(s.expr()))
			continue
		}
		var params []jen.Code
		for _, fl := range s.fields {
			params = append(params, jen.Id(paramName(fl)).Add(goType(fl.Ref)))
		}
		f.Func().Id(s.name).Params(params...).Id(s.u.Name).Block(jen.Return(s.expr()))
	}
}

// paramName is a parameter named after a member's Go name, its leading
// word in lower case: ToolCallID -> toolCallID, URI -> uri, HTTPHeaders ->
// httpHeaders.
func paramName(fl *ir.Field) string {
	n := fl.Name
	i := 0
	for i < len(n) && n[i] >= 'A' && n[i] <= 'Z' {
		i++
	}
	if i > 1 && i < len(n) {
		i-- // the last capital starts the next word
	}
	if i == 0 {
		i = 1
	}
	return strings.ToLower(n[:i]) + n[i:]
}

// shortParams are v's required members when every one can be a plain
// parameter (a string, a named string type, or a slice) and none is the
// discriminator; ok false otherwise.
func shortParams(u *ir.Union, v *ir.Variant) (fields []*ir.Field, ok bool) {
	if !v.Object || v.Payload == nil || v.Payload.Kind != ir.Named || v.Payload.Type.Union != nil || v.Payload.Type.Kind != ir.Struct {
		return nil, false
	}
	seen := map[string]bool{}
	for _, fl := range v.Payload.Type.Fields {
		if !fl.Required {
			continue
		}
		if fl.Nullable || fieldPtr(fl) || fl.JSON == u.Discriminator || fl.Name == "" {
			return nil, false
		}
		switch r := fl.Ref; {
		case r.Kind == ir.String, r.Kind == ir.Array:
		case r.Kind == ir.Named && r.Type.Kind == ir.Alias && r.Type.Target.Kind == ir.String:
		case r.Kind == ir.Named && r.Type.Kind == ir.Enum && r.Type.EnumBase.Kind == ir.String:
		default:
			return nil, false
		}
		p := paramName(fl)
		if token.IsKeyword(p) || seen[p] || p == "s" {
			return nil, false
		}
		seen[p] = true
		fields = append(fields, fl)
	}
	return fields, true
}

// textShortcuts derives the short constructors once (they claim their
// names). A tagged variant whose payload's required members are all
// strings, named string types or slices (maybe none) gets
// <Variant><Union's last word>(members...), the variant's name alone when it
// ends with that word (TextBlock(text),
// ImageBlock(data, mimeType), SelectedOutcome(optionID), CancelledOutcome()),
// or New<Variant> when that name is taken (NewToolCall(toolCallID, title) for
// SessionUpdate's tool_call, whose first name is the type ToolCallUpdate).
// A variant whose payload's one required member is a union with a
// one-string helper gets <Variant><Inner variant>(s)
// (AgentMessageChunkText for SessionUpdate's agent_message_chunk).
func (e *emitter) textShortcuts() []*shortcut {
	if e.shorts != nil {
		return e.shorts
	}
	d := e.declared()
	level1 := map[*ir.Type]*shortcut{} // union type -> its one-string helper
	var all []*shortcut
	for _, t := range e.m.Types {
		if t.Kind != ir.ObjectUnion || t.Union.Discriminator == "" {
			continue
		}
		for _, v := range t.Union.Variants {
			if v.Role != ir.Tagged {
				continue
			}
			fields, ok := shortParams(t.Union, v)
			if !ok {
				continue
			}
			s := &shortcut{name: v.Name + lastWord(t.Name), u: t.Union, v: v, fields: fields}
			if strings.HasSuffix(v.Name, lastWord(t.Name)) {
				s.name = v.Name // PlanUpdate, not PlanUpdateUpdate
			}
			if len(fields) == 1 {
				s.field = fields[0]
				s.text = fields[0].Ref.Kind == ir.String
			}
			if d[s.name] {
				s.name = "New" + v.Name
			}
			if d[s.name] {
				continue
			}
			d[s.name] = true
			all = append(all, s)
			if s.text && level1[t] == nil {
				level1[t] = s
			}
		}
	}
	for _, t := range e.m.Types {
		if t.Kind != ir.ObjectUnion || t.Union.Discriminator == "" {
			continue
		}
		for _, v := range t.Union.Variants {
			if v.Role != ir.Tagged || !v.Object || v.Payload == nil || v.Payload.Type.Union != nil {
				continue
			}
			var fl *ir.Field
			n := 0
			for _, x := range v.Payload.Type.Fields {
				if x.Required {
					fl, n = x, n+1
				}
			}
			if n != 1 || fl.Nullable || fl.Ref.Kind != ir.Named || fieldPtr(fl) {
				continue
			}
			in := level1[fl.Ref.Type]
			if in == nil {
				continue
			}
			s := &shortcut{name: v.Name + in.v.Name, u: t.Union, v: v, fields: []*ir.Field{fl}, field: fl, inner: in, text: true}
			if !d[s.name] {
				d[s.name] = true
				all = append(all, s)
			}
		}
	}
	e.shorts = append([]*shortcut{}, all...)
	return e.shorts
}

func (s *shortcut) describe() string {
	if s.inner != nil {
		return fmt.Sprintf("whose %s is %s(s)", s.field.Name, s.inner.name)
	}
	if len(s.fields) == 0 {
		return fmt.Sprintf("(an empty %s)", s.v.Payload.Type.Name)
	}
	var names []string
	for _, fl := range s.fields {
		names = append(names, fmt.Sprintf("%s %s", fl.Name, paramName(fl)))
	}
	return "with " + strings.Join(names, ", ")
}

func (s *shortcut) expr() jen.Code {
	d := jen.Dict{}
	for _, fl := range s.fields {
		if s.inner != nil {
			d[jen.Id(fl.Name)] = jen.Id(s.inner.name).Call(jen.Id("s"))
		} else {
			d[jen.Id(fl.Name)] = jen.Id(paramName(fl))
		}
	}
	return jen.Id("New" + s.u.Name + s.v.Name).Call(jen.Id(s.v.Payload.Type.Name).Values(d))
}

// interfaceType is the reflect.Type of the interface named name, through a
// nil pointer to it: reflect.TypeFor would compile an instance per
// interface in the generated package.
func interfaceType(name string) *jen.Statement {
	return jen.Qual("reflect", "TypeOf").Call(jen.Parens(jen.Op("*").Id(name)).Call(jen.Nil())).Dot("Elem").Call()
}
