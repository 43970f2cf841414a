package ir

import "slices"

// The hot set: the types whose decoding, encoding and validation run once or
// more per streamed message, so their speed is worth specialised code. Every
// other type is cold: emit may describe it by a table runtime/wire
// interprets, trading speed for far less code.
//
// The rule: a type is hot when it is the params or result of the prompt
// request (Model.Turn.Prompt), the params of the session/update
// notification the client handles, or the params of the session/new
// request (decoded once per session, and one of the benchmarked messages),
// or when a hot type reaches it through a required member, a union variant,
// an array item, a map value or an alias target. Optional members are left
// out: a turn's messages mostly do without them. Of the session/update
// union's variants only the streamed ones (StreamedUpdates) are followed:
// the others arrive once per session or per turn. Hot code reaches a cold
// type through the cold type's methods, which use its table.

// StreamedUpdates are the session/update variants, by discriminator and by
// the protocol whose schemas must have them, that an agent sends many times
// in a turn: message and thought chunks, tool calls and their updates, plans
// (v1), tool-call content and terminal output chunks and plan updates (v2).
// Marking goes by tag alone, so a channel with a later protocol's streamed
// variant (v1 unstable's plan_update) keeps it hot too. An entry its
// protocol's channels all lack is stale (Model.Streamed; generate reports it).
var StreamedUpdates = map[int][]string{
	1: {"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"},
	2: {"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call_content_chunk", "tool_call_update", "terminal_output_chunk", "plan_update"},
}

// isStreamed reports whether tag is in any protocol's StreamedUpdates.
func isStreamed(tag string) bool {
	for _, tags := range StreamedUpdates {
		if slices.Contains(tags, tag) {
			return true
		}
	}
	return false
}

// hotRoots are the messages the rule starts from.
func (m *Model) hotRoots() []*Type {
	var out []*Type
	if m.Turn != nil {
		out = append(out, m.Turn.Prompt.Params, m.Turn.Prompt.Result)
	}
	for _, x := range m.Methods {
		switch {
		case x.Wire == "session/update" && x.Notification && x.Side == "client":
			out = append(out, x.Params)
		case x.Wire == "session/new" && !x.Notification && x.Side == "agent":
			out = append(out, x.Params)
		}
	}
	return out
}

// markHot sets Hot on the hot set.
func (m *Model) markHot() {
	updates := m.updateUnion()
	var visit func(t *Type)
	visit = func(t *Type) {
		if t == nil || t.Hot {
			return
		}
		t.Hot = true
		t.eachRequiredRef(func(r *Ref) {
			if r.Kind == Named && followed(t, updates, r) {
				visit(r.Type)
			}
		})
	}
	for _, t := range m.hotRoots() {
		visit(t)
	}
}

// updateUnion is the union the session/update notification the client
// handles carries as its required update member; nil without one.
func (m *Model) updateUnion() *Type {
	for _, x := range m.Methods {
		if x.Wire == "session/update" && x.Notification && x.Side == "client" {
			if f := valueMember(x.Params, "update"); f != nil {
				if t := f.Ref.NamedType(); t != nil && t.Union != nil {
					return t
				}
			}
		}
	}
	return nil
}

// followed reports whether markHot follows ref r of type t: every ref but
// the payload of a variant of the session/update union (updates) that
// StreamedUpdates leaves out.
func followed(t, updates *Type, r *Ref) bool {
	if t != updates {
		return true
	}
	for _, v := range t.Union.Variants {
		if v.Payload == r {
			return isStreamed(v.Tag)
		}
	}
	return true
}

// Streamed lists the tags of m's session/update variants that
// StreamedUpdates names; ok is false when m has no session/update union, to
// which the table does not apply.
func (m *Model) Streamed() (tags []string, ok bool) {
	u := m.updateUnion()
	if u == nil {
		return nil, false
	}
	for _, v := range u.Union.Variants {
		if isStreamed(v.Tag) {
			tags = append(tags, v.Tag)
		}
	}
	return tags, true
}

// EachRef calls f with every value shape t refers to: its members', its
// union variants' payloads and its alias target, and inside each, the items
// of arrays and the values of maps.
func (t *Type) EachRef(f func(*Ref)) { t.eachRef(f, false) }

// eachRequiredRef is EachRef leaving out optional members.
func (t *Type) eachRequiredRef(f func(*Ref)) { t.eachRef(f, true) }

func (t *Type) eachRef(f func(*Ref), requiredOnly bool) {
	var each func(r *Ref)
	each = func(r *Ref) {
		if r == nil {
			return
		}
		f(r)
		if r.Kind == Array || r.Kind == Map {
			each(r.Elem)
		}
	}
	for _, fl := range t.Fields {
		if fl.Required || !requiredOnly {
			each(fl.Ref)
		}
	}
	if t.Union != nil {
		for _, v := range t.Union.Variants {
			each(v.Payload)
		}
	}
	each(t.Target)
}
