package ir

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

// The pinned v1 schemas have a cancellable prompt turn and a negotiated
// protocol version.
func TestLifecyclePinned(t *testing.T) {
	for _, c := range []struct{ file, channel string }{{"schema.json", "stable"}, {"schema.unstable.json", "unstable"}} {
		t.Run(c.channel, func(t *testing.T) {
			m := loadModel(t, c.file, c.channel)
			tn := m.Turn
			if !tn.Cancellable() {
				t.Fatalf("turn %+v is not cancellable", tn)
			}
			if tn.Prompt.Wire != "session/prompt" || tn.Prompt.Notification || tn.Cancel.Wire != "session/cancel" || !tn.Cancel.Notification {
				t.Errorf("prompt %s, cancel %s", tn.Prompt.Wire, tn.Cancel.Wire)
			}
			if tn.PromptSession.JSON != "sessionId" || tn.CancelSession.JSON != "sessionId" || tn.StopReason.JSON != "stopReason" {
				t.Errorf("members %s, %s, %s", tn.PromptSession.JSON, tn.CancelSession.JSON, tn.StopReason.JSON)
			}
			if tn.Cancelled.String != "cancelled" || tn.StopReason.Ref.Type != m.TypeByDef("StopReason") {
				t.Errorf("cancelled %q of %s", tn.Cancelled.String, tn.StopReason.Ref.Type.Name)
			}
			v := m.Version
			if !v.Negotiated() || v.Type.Def != "ProtocolVersion" || v.Params.JSON != "protocolVersion" || v.Result.JSON != "protocolVersion" {
				t.Errorf("version %+v", v)
			}
			if !slices.Contains(m.Initialize().Params.Fields, v.Params) || !slices.Contains(m.Initialize().Result.Fields, v.Result) {
				t.Error("the version members are not initialize's")
			}
		})
	}
}

// A turn is cancellable only when all of it is there: a cancel whose
// sessionId is optional leaves the prompt without cancel (not tracked); a
// stop reason without "cancelled" leaves it tracked (a cancel still ends the
// session's turns) but not answered "cancelled"; initialize without
// protocolVersion is not negotiated.
func TestLifecycleIncomplete(t *testing.T) {
	edit := func(t *testing.T, change func(defs map[string]any)) *Model {
		t.Helper()
		var doc map[string]any
		if err := json.Unmarshal(pinned.File(t, "schema.json"), &doc); err != nil {
			t.Fatal(err)
		}
		change(doc["$defs"].(map[string]any))
		data, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		m, err := buildDoc("schema.json", data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	def := func(defs map[string]any, name string) map[string]any { return defs[name].(map[string]any) }
	for name, c := range map[string]struct {
		change  func(map[string]any)
		tracked bool
	}{
		"optional session": {change: func(defs map[string]any) { def(defs, "CancelNotification")["required"] = []any{} }},
		"no cancelled": {tracked: true, change: func(defs map[string]any) {
			sr := def(defs, "StopReason")
			sr["oneOf"] = slices.DeleteFunc(sr["oneOf"].([]any), func(v any) bool { return v.(map[string]any)["const"] == "cancelled" })
		}},
	} {
		t.Run(name, func(t *testing.T) {
			m := edit(t, c.change)
			if m.Turn == nil || m.Turn.Prompt.Wire != "session/prompt" || m.Turn.StopReason == nil {
				t.Fatalf("turn %+v lost its prompt", m.Turn)
			}
			if m.Turn.Cancellable() || m.Turn.Cancelled != nil {
				t.Errorf("turn %+v is cancellable", m.Turn)
			}
			if m.Turn.Tracked() != c.tracked || (m.Turn.Cancel != nil) != c.tracked {
				t.Errorf("turn %+v: tracked %v, want %v", m.Turn, m.Turn.Tracked(), c.tracked)
			}
			if !m.Version.Negotiated() {
				t.Error("version no longer negotiated")
			}
		})
	}
	t.Run("no protocolVersion", func(t *testing.T) {
		m := edit(t, func(defs map[string]any) {
			r := def(defs, "InitializeResponse")
			delete(r["properties"].(map[string]any), "protocolVersion")
			r["required"] = slices.DeleteFunc(r["required"].([]any), func(v any) bool { return v == "protocolVersion" })
		})
		if m.Version == nil || m.Version.Negotiated() || m.Version.Params != nil {
			t.Errorf("version %+v", m.Version)
		}
		if !m.Turn.Cancellable() {
			t.Error("turn no longer cancellable")
		}
	})
}
