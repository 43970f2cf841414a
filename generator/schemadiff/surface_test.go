package schemadiff

import (
	"slices"
	"testing"
)

// x-side "both" is read as the IR reads it: a method of
// the agent and of the client, so moving from "both" to one side is the
// removal of the other side's method.
func TestSurfaceBothSides(t *testing.T) {
	both := surface(t, `
	"MsgRequest": {"x-method": "mcp/message", "x-side": "both", "type": "object"},
	"MsgResponse": {"x-method": "mcp/message", "x-side": "both", "type": "object"},
	"CancelNotification": {"x-method": "session/cancel", "x-side": "agent", "type": "object"},
	`+envelope([]string{"Msg"}, []string{"Cancel"}))
	var keys []string
	for k, m := range both.Methods {
		keys = append(keys, k+" -> "+m.Side+" "+m.Result)
	}
	slices.Sort(keys)
	want := []string{"notification session/cancel -> agent ", "request mcp/message (agent) -> agent MsgResponse", "request mcp/message (client) -> client MsgResponse"}
	if !slices.Equal(keys, want) {
		t.Errorf("methods %v, want %v", keys, want)
	}
}

// Constraints beyond the pinned schema's keywords are part of a member's
// surface, so a revision that adds one reports a changed member.
func TestSurfaceVocabularyConstraints(t *testing.T) {
	s := surface(t, `"T": {"type": "object", "properties": {
		"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4, "uniqueItems": true},
		"ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
		"rpc": {"type": "string", "enum": ["2.0"]}}}`)
	got := map[string]string{}
	for _, f := range s.Types["T"].Fields {
		got[f.Name] = f.Constraints
	}
	want := map[string]string{"tags": "minItems 1, maxItems 4, uniqueItems", "ratio": "exclusiveMinimum 0, multipleOf 0.5", "rpc": `enum "2.0"`}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: constraints %q, want %q", k, got[k], w)
		}
	}
}
