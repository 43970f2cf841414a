package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
)

// api emits api.go: what an agent or client needs beside the types, so it
// imports this package only: the runtime's error and option types under
// this package's names, a constructor per ACP error code, the handler
// check, and text shortcuts for the common union values.
func (e *emitter) api(f *File) {
	alias := func(name, doc string, target Code) {
		f.Comment(doc)
		f.Type().Id(name).Op("=").Add(target)
	}
	alias("RPCError", "RPCError is a JSON-RPC error object. A handler returns one to answer with its code, message and data.", Qual(WirePath, "RPCError"))
	alias("Raw", "Raw is one JSON value kept as bytes: extension params and results, _meta values.", Qual(WirePath, "Raw"))
	alias("ValidationError", "ValidationError lists every way a value breaks the schema (Validate's error); it answers -32602.", Qual(WirePath, "ValidationError"))
	alias("GateError", "GateError lists the capabilities a message uses without the peer advertising them.", Qual(WirePath, "GateError"))
	alias("LocalError", "LocalError is a message this side refused to send: a bug of this side, answered -32603, never blamed on the peer.", Qual(WirePath, "LocalError"))
	alias("EncodeError", "EncodeError is MarshalJSON's error for a union with no variant or several set.", Qual(WirePath, "EncodeError"))
	if e.hasDispatch() {
		alias("RPCOptions", "RPCOptions configures the JSON-RPC runtime of a connection (ConnOptions.RPC): logger, frame size, concurrency and flow-control bounds.", Qual(JSONRPCPath, "Options"))
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
func (e *emitter) errorConstructors(f *File) {
	t := e.errorCodeType()
	if t == nil {
		return
	}
	f.Comment("NewError returns a JSON-RPC error object with code, message and data (nil for none).")
	f.Func().Id("NewError").Params(Id("code").Id(t.Name), Id("message").String(), Id("data").Any()).Op("*").Id("RPCError").Block(
		Return(Op("&").Qual(WirePath, "RPCError").Values(Dict{Id("Code"): Qual(WirePath, "ErrorCode").Call(Id("code")), Id("Message"): Id("message"), Id("Data"): Id("data")})))
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
		f.Func().Id(name).Params(Id("data").Any()).Op("*").Id("RPCError").Block(
			Return(Id("NewError").Call(Id(v.Name), Lit(v.Title), Id("data"))))
	}
	f.Line()
}

// handlerChecks emits Check<Side>Handler, which New<Side>Conn runs.
func (e *emitter) handlerChecks(f *File) {
	for _, sd := range e.sides() {
		h := sd.Name + "Handler"
		f.Comment(fmt.Sprintf("Check%s reports exported methods of h that look meant for %s but are not", h, h))
		f.Comment(fmt.Sprintf("in it: a method taking a context and a params type of %s, or named", h))
		f.Comment("within two edits of one of its methods (SessionPromt). Embedding Unimplemented" + h)
		f.Comment("would make such a method dead code answering method-not-found; New" + sd.Name + "Conn runs")
		f.Comment("this check and Run returns its error before serving.")
		f.Func().Id("Check" + h).Params(Id("h").Id(h)).Error().Block(
			Return(Qual(WirePath, "CheckHandler").Call(Id("h"), Qual("reflect", "TypeFor").Types(Id(h)).Call(), Qual("reflect", "TypeFor").Types(Id("ExtHandler")).Call())))
	}
	f.Line()
}

// shortcut is a text helper: a function of one string returning a union.
type shortcut struct {
	name string
	u    *ir.Union
	v    *ir.Variant
	// field is the payload's one required member; inner, when set, is the
	// shortcut building that member's value.
	field *ir.Field
	inner *shortcut
}

// shortcuts emits text helpers derived from the schema's shapes. A variant
// whose payload has exactly one required member, a string, gets
// <Variant><Union's last word>(s) (TextBlock for ContentBlock's text);
// a variant whose payload's one required member is a union with such a
// helper gets <Variant><Inner variant>(s) (AgentMessageChunkText for
// SessionUpdate's agent_message_chunk).
func (e *emitter) shortcuts(f *File) {
	d := e.declared()
	level1 := map[*ir.Type]*shortcut{} // union type -> its text helper
	var all []*shortcut
	sole := func(v *ir.Variant) *ir.Field {
		if !v.Object || v.Payload == nil || v.Payload.Type.Union != nil {
			return nil
		}
		var req *ir.Field
		for _, fl := range v.Payload.Type.Fields {
			if fl.Required {
				if req != nil {
					return nil
				}
				req = fl
			}
		}
		if req == nil || req.Nullable {
			return nil
		}
		return req
	}
	for _, t := range e.m.Types {
		if t.Kind != ir.ObjectUnion || t.Union.Discriminator == "" {
			continue
		}
		for _, v := range t.Union.Variants {
			if v.Role != ir.Tagged {
				continue
			}
			if fl := sole(v); fl != nil && fl.Ref.Kind == ir.String {
				s := &shortcut{name: v.Name + lastWord(t.Name), u: t.Union, v: v, field: fl}
				if !d[s.name] && level1[t] == nil {
					level1[t] = s
					d[s.name] = true
					all = append(all, s)
				}
			}
		}
	}
	for _, t := range e.m.Types {
		if t.Kind != ir.ObjectUnion || t.Union.Discriminator == "" {
			continue
		}
		for _, v := range t.Union.Variants {
			if v.Role != ir.Tagged {
				continue
			}
			fl := sole(v)
			if fl == nil || fl.Ref.Kind != ir.Named || fieldPtr(fl) {
				continue
			}
			in := level1[fl.Ref.Type]
			if in == nil {
				continue
			}
			s := &shortcut{name: v.Name + in.v.Name, u: t.Union, v: v, field: fl, inner: in}
			if !d[s.name] {
				d[s.name] = true
				all = append(all, s)
			}
		}
	}
	for _, s := range all {
		f.Comment(fmt.Sprintf("%s returns a %s holding the %s variant %s.", s.name, s.u.Name, s.v.Name, s.describe()))
		f.Func().Id(s.name).Params(Id("s").String()).Id(s.u.Name).Block(Return(s.expr()))
	}
}

func (s *shortcut) describe() string {
	if s.inner == nil {
		return fmt.Sprintf("with %s s", s.field.Name)
	}
	return fmt.Sprintf("whose %s is %s(s)", s.field.Name, s.inner.name)
}

func (s *shortcut) expr() Code {
	var val Code = Id("s")
	if s.inner != nil {
		val = Id(s.inner.name).Call(Id("s"))
	}
	return Id("New" + s.u.Name + s.v.Name).Call(Id(s.v.Payload.Type.Name).Values(Dict{Id(s.field.Name): val}))
}
