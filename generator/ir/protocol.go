package ir

import (
	"slices"

	"github.com/acpgen/acpgen/generator/facts"
)

// The parts of ACP's session lifecycle the generated connection acts on,
// recognised here once by their wire and member names so that emit only
// reads them: the prompt turn and how session/cancel ends it, and the
// protocol version initialize negotiates.

// Turn is a prompt turn: the agent's session/prompt request and, when the
// schema has all of it, how a cancel ends the turn.
type Turn struct {
	Prompt     *Method // the agent's session/prompt request
	StopReason *Field  // its result's stopReason member when required and not null
	// Set together when the agent's session/cancel notification ends every
	// turn of a session: both params carry a required sessionId
	// (PromptSession and CancelSession).
	Cancel                       *Method
	PromptSession, CancelSession *Field
	// Set when, besides, the prompt's response ends the turn (v1): a
	// cancelled turn answers StopReason, of the StopReason enum, with the
	// Cancelled value ("cancelled").
	Cancelled *EnumValue
}

// Tracked reports whether session/cancel ends the session's turns, so the
// connection tracks them.
func (t *Turn) Tracked() bool { return t != nil && t.Cancel != nil }

// Cancellable reports whether session/cancel ends the turn and the prompt's
// response then says "cancelled" (v1).
func (t *Turn) Cancellable() bool { return t != nil && t.Cancelled != nil }

// Versioning is the protocol version a connection negotiates in initialize.
type Versioning struct {
	Type *Type // the ProtocolVersion def, the type of the version a package speaks
	// Params and Result are initialize's protocolVersion members, both set
	// or both nil.
	Params, Result *Field
}

// Negotiated reports whether initialize carries the version both ways.
func (v *Versioning) Negotiated() bool { return v != nil && v.Params != nil }

// lifecycle fills m.Turn and m.Version from the methods and defs.
func (m *Model) lifecycle() {
	if t := m.TypeByDef("ProtocolVersion"); t != nil {
		m.Version = &Versioning{Type: t}
		if in := m.Initialize(); in != nil {
			p, r := in.Params.Member("protocolVersion"), in.Result.Member("protocolVersion")
			if p != nil && r != nil {
				m.Version.Params, m.Version.Result = p, r
			}
		}
	}
	var prompt, cancel *Method
	for _, x := range m.Methods {
		switch {
		case x.Side != "agent":
		case x.Wire == "session/prompt" && !x.Notification:
			prompt = x
		case x.Wire == "session/cancel" && x.Notification:
			cancel = x
		}
	}
	if prompt == nil {
		return
	}
	m.Turn = &Turn{Prompt: prompt, StopReason: valueMember(prompt.Result, "stopReason")}
	if cancel == nil {
		return
	}
	ps, cs := valueMember(prompt.Params, "sessionId"), valueMember(cancel.Params, "sessionId")
	if ps == nil || cs == nil {
		return
	}
	t := m.Turn
	t.Cancel, t.PromptSession, t.CancelSession = cancel, ps, cs
	sr := m.TypeByDef("StopReason")
	if sr == nil || sr.Kind != Enum {
		return
	}
	var cancelled *EnumValue
	for _, v := range sr.EnumValues {
		if v.String == "cancelled" {
			cancelled = v
		}
	}
	if stop := m.Turn.StopReason; cancelled == nil || stop == nil || stop.Ref.NamedType() != sr {
		return
	}
	t.Cancelled = cancelled
}

// Member returns t's member with JSON name json; nil when t has none (or t
// is nil).
func (t *Type) Member(json string) *Field {
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if f.JSON == json {
			return f
		}
	}
	return nil
}

// valueMember returns t's member json when it is required and not null.
func valueMember(t *Type, json string) *Field {
	if f := t.Member(json); f != nil && f.Required && !f.Nullable {
		return f
	}
	return nil
}

// LifecycleGaps lists the lifecycle facts above that m lacks, for a schema of
// the given protocol: initialize negotiating the version, the prompt turn,
// and, in v1, where the prompt's response ends the turn, its stopReason and
// session/cancel ending it with "cancelled". Against the pinned schema a gap
// means upstream renamed something these facts name, and the generated
// connection would silently stop acting on it.
func (m *Model) LifecycleGaps(protocol int) []string {
	var gaps []string
	if !m.Version.Negotiated() {
		gaps = append(gaps, "initialize does not carry protocolVersion both ways (ProtocolVersion def)")
	}
	switch t := m.Turn; {
	case t == nil:
		gaps = append(gaps, "no agent request session/prompt")
	case protocol == 1 && t.StopReason == nil:
		gaps = append(gaps, "session/prompt's result has no required stopReason")
	case protocol == 1 && !t.Cancellable():
		gaps = append(gaps, `session/cancel cannot end the turn (a notification with sessionId, and StopReason's "cancelled")`)
	}
	return gaps
}

// SessionScoped reports whether m's params name the session the message
// belongs to: a required, non-null sessionId member.
func (m *Method) SessionScoped() bool { return valueMember(m.Params, "sessionId") != nil }

// sessionScopeOpen reports params with a sessionId member the schema does
// not require, or allows to be null: whether m is session-scoped is then a
// hand-kept decision (facts.SessionScope).
func (m *Method) sessionScopeOpen() bool {
	return m.Params.Member("sessionId") != nil && !m.SessionScoped()
}

// UndecidedSessionScope names, as "wire (side)", the methods of m whose
// session scope neither the schema nor a row of rows decides. Against
// every shipped channel it is empty (conform's
// TestEveryMethodHasItsFacts).
func (m *Model) UndecidedSessionScope(rows []facts.SessionScope) []string {
	var out []string
	for _, me := range m.Methods {
		if me.sessionScopeOpen() && !slices.ContainsFunc(rows, func(r facts.SessionScope) bool { return r.Method == me.Wire }) {
			out = append(out, me.Wire+" ("+me.Side+")")
		}
	}
	return out
}

// SessionScopeOpen reports whether a method of m named wire leaves its
// session scope open (see facts.SessionScope): a row for a method no
// channel leaves open decides nothing.
func (m *Model) SessionScopeOpen(wire string) bool {
	return slices.ContainsFunc(m.Methods, func(me *Method) bool { return me.Wire == wire && me.sessionScopeOpen() })
}
