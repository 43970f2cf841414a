package conform

import (
	"encoding/json"
)

// cancelTarget names a v2 method the client may send only for one object
// that currently advertises capabilities.cancel: the params member holding
// its id and the session/update kind that advertises it.
type cancelTarget struct {
	member, kind, source string
}

var cancelTargets = map[string]cancelTarget{
	"tool_call/cancel": {"toolCallId", "tool_call_update", "schema v2: CancelToolCallRequest (only for a tool call advertising capabilities.cancel)"},
	"terminal/cancel":  {"terminalId", "terminal_update", "schema v2: CancelTerminalRequest (only for a terminal advertising capabilities.cancel)"},
}

// advertisedObject is an object of a session that the agent advertised as
// cancellable.
type advertisedObject struct {
	session string
	id      json.RawMessage
}

// finalStatus are the tool call statuses after which nothing is left to
// cancel.
var finalStatus = map[string]bool{"completed": true, "failed": true, "cancelled": true}

// cancellable returns an object of kind t.kind whose latest update that
// states its capabilities advertises cancel and which has not reached a
// final status (nor, for a terminal, an exit status).
func (c *proc) cancellable(t cancelTarget) (advertisedObject, bool) {
	type key struct{ session, id string }
	open := map[key]bool{}
	var order []key
	for _, f := range c.since(0) {
		if f.Method != "session/update" {
			continue
		}
		var p struct {
			Update map[string]json.RawMessage `json:"update"`
		}
		if json.Unmarshal(f.Params, &p) != nil || str(p.Update["sessionUpdate"]) != t.kind || p.Update[t.member] == nil {
			continue
		}
		k := key{sessionOf(f), string(p.Update[t.member])}
		if caps, ok := p.Update["capabilities"]; ok {
			var cp struct {
				Cancel json.RawMessage `json:"cancel"`
			}
			_ = json.Unmarshal(caps, &cp)
			// An object, {} included, grants it; omitted, null or malformed
			// does not.
			open[k] = len(cp.Cancel) > 0 && cp.Cancel[0] == '{'
			order = append(order, k)
		}
		if ex, ok := p.Update["exitStatus"]; finalStatus[str(p.Update["status"])] || (ok && string(ex) != "null") {
			open[k] = false
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		if k := order[i]; open[k] {
			return advertisedObject{session: k.session, id: json.RawMessage(k.id)}, true
		}
	}
	return advertisedObject{}, false
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
