package conform

import (
	"encoding/json"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/anyjson"
)

// What a passive checker (acpgen inspect) reuses of conform: the rules'
// levels and sources, and the gate logic applied to one message at a time.

// Rule is one rule as conform and a passive checker both name it: the
// name a finding or a case carries, its level and its source.
type Rule struct {
	Name   string
	Level  Level
	Source string
}

// passiveRules are the rules a passive checker reports besides the MUST
// and SHOULD kinds: what one message shows of a SHOULD conform judges on
// a whole turn or run, and what it records without judging.
var passiveRules = map[string]Rule{
	"methods: invalid params answered -32602": {Level: Should, Source: srcRPCParams},
	"frames: negotiated protocolVersion":      {Level: Info, Source: srcVersion},
	"frames: line too long to judge":          {Level: Info, Source: srcStdio},
}

// RuleNamed returns the rule called name: one of the agent checker's MUST
// kinds ("frames: lines", "cancel: session/cancel ends the turn"), one of
// its SHOULD kinds, or one of passiveRules. It is the one table of rule
// names: conform's cases carry these names as their kinds, and acpgen
// inspect names its findings with them. False for a name it does not know.
func RuleNamed(name string) (Rule, bool) {
	if k, ok := mustKinds[name]; ok {
		return Rule{name, Must, k.Source}, true
	}
	if k, ok := shouldKinds[name]; ok {
		return Rule{name, Should, k.Source}, true
	}
	r, ok := passiveRules[name]
	r.Name = name
	return r, ok
}

// GateUse is one place a message uses a gated method, member, variant or
// value its receiver did not grant, or lacks a member a require rule asks
// for once its sender advertised the rule's capability.
type GateUse struct {
	Capability string // the capability's path
	Pointer    string // where in the params or result; "" for the method itself
	Require    bool   // a require rule: the member named by Member is missing at Pointer
	Member     string
	// Overlay is the overlay the gate comes from, "" for the gate tables.
	Overlay string
}

// GateUses applies gates (Model.ResolveGates of a profile's Gates) to one
// payload of m: its params (inResult false) or its result, sent by the agent
// when fromAgent. senderInit and receiverInit are the two sides' initialize
// messages (the agent's is initialize's result, the client's its params).
func GateUses(gates []*ir.Gate, m *ir.Method, inResult, fromAgent bool, payload, senderInit, receiverInit json.RawMessage) []GateUse {
	// The payload is decoded when a row first needs it: most messages
	// meet no row that walks them.
	var doc any
	decoded, bad := false, false
	decode := func() bool {
		if !decoded {
			var err error
			doc, err = anyjson.Unmarshal(payload)
			decoded, bad = true, err != nil
		}
		return !bad
	}
	var out []GateUse
	for _, g := range gates {
		if g.Method.Wire != m.Wire || g.Row.Result != inResult {
			continue
		}
		origin := ""
		if g.Row.Source != "" && g.Row.Source != "table" {
			origin = g.Row.Source
		}
		if g.Row.Require {
			if g.Cap.InResult == fromAgent && capGranted(senderInit, g.Cap.Tokens) && decode() {
				out = append(out, requireUses(g, doc, fromAgent, senderInit, origin)...)
			}
			continue
		}
		// The capability lies in the receiver's initialize message.
		if g.Cap.InResult == fromAgent || capGranted(receiverInit, g.Cap.Tokens) {
			continue
		}
		if g.Row.Path == "" {
			out = append(out, GateUse{Capability: g.Cap.Path, Overlay: origin})
			continue
		}
		if !decode() {
			continue
		}
		walkPath(doc, g.Row.Path, func(v any, at string) {
			if hit(g, v) {
				out = append(out, GateUse{Capability: g.Cap.Path, Pointer: at, Overlay: origin})
			}
		})
	}
	if len(out) > 0 && !decode() {
		return nil // a payload that is not JSON uses nothing
	}
	return out
}

// requireUses lists where a require rule's member is missing, once the
// sender advertised its capability.
func requireUses(g *ir.Gate, doc any, fromAgent bool, senderInit json.RawMessage, origin string) []GateUse {
	if g.Cap.InResult != fromAgent || !capGranted(senderInit, g.Cap.Tokens) {
		return nil
	}
	parent, member := splitLast(g.Row.Path)
	var out []GateUse
	walkPath(doc, parent, func(v any, at string) {
		obj, ok := v.(map[string]any)
		if _, has := obj[member]; ok && !has {
			out = append(out, GateUse{Capability: g.Cap.Path, Pointer: at, Require: true, Member: member, Overlay: origin})
		}
	})
	return out
}

func splitLast(path string) (string, string) {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i], path[i+1:]
		}
	}
	return "", path
}

// TurnOutput reports whether a session/update kind is a prompt turn's own
// output (message, thought, tool call, plan), as conform's order cases
// count it; session-level updates may come at any time.
func TurnOutput(kind string) bool { return turnKinds[kind] }

// HistoryKind reports whether a session/update kind replays a turn's
// history in session/load (the turn's output and the user's messages).
func HistoryKind(kind string) bool { return historyKind(kind) }
