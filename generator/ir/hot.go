package ir

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
// out: a turn's messages mostly do without them. Hot code reaches a cold
// type through the cold type's methods, which use its table.

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
	var visit func(t *Type)
	visit = func(t *Type) {
		if t == nil || t.Hot {
			return
		}
		t.Hot = true
		t.eachRequiredRef(func(r *Ref) {
			if r.Kind == Named {
				visit(r.Type)
			}
		})
	}
	for _, t := range m.hotRoots() {
		visit(t)
	}
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
