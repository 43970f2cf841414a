package ir

import "testing"

// The hot set of the pinned stable schema follows hot.go's rule: the turn's
// messages and session/new's params, what they reach through required
// members and union variants, and nothing reached only through an optional
// member or a session/update variant that is not streamed.
func TestHotSet(t *testing.T) {
	m := loadModel(t, "schema.json", "stable")
	for def, want := range map[string]bool{
		"PromptRequest":       true,  // the turn's params
		"PromptResponse":      true,  // its result
		"SessionNotification": true,  // session/update's params
		"NewSessionRequest":   true,  // session/new's params
		"ContentBlock":        true,  // PromptRequest's required prompt items
		"TextContent":         true,  // a ContentBlock variant
		"StopReason":          true,  // PromptResponse's required stopReason
		"McpServerStdio":      true,  // a variant of NewSessionRequest's required mcpServers items
		"ContentChunk":        true,  // agent_message_chunk's payload, a streamed update
		"ToolCallUpdate":      true,  // tool_call_update's payload
		"Plan":                true,  // plan's payload
		"ConfigOptionUpdate":  false, // config_option_update's payload: once in a while, not streamed
		"UsageUpdate":         false, // usage_update's payload
		"SessionConfigOption": false, // reached only through ConfigOptionUpdate
		"Annotations":         false, // only ever an optional member
		"NewSessionResponse":  false, // session/new's result
		"InitializeRequest":   false, // no turn message reaches it
		"ReadTextFileRequest": false,
	} {
		ty := m.TypeByDef(def)
		if ty == nil {
			t.Fatalf("no def %s", def)
		}
		if ty.Hot != want {
			t.Errorf("%s: hot %v, want %v", def, ty.Hot, want)
		}
	}
	// Closed under the rule: a hot type's required members and variants are
	// hot, but for session/update's variants left out.
	for _, ty := range m.Types {
		if !ty.Hot {
			continue
		}
		ty.eachRequiredRef(func(r *Ref) {
			if r.Kind == Named && !r.Type.Hot && followed(ty, m.updateUnion(), r) {
				t.Errorf("%s is hot, %s it requires is not", ty.Name, r.Type.Name)
			}
		})
	}
}

// Every StreamedUpdates entry names a session/update variant of a pinned
// channel of its protocol, and the hot set keeps exactly those variants'
// payloads of the union.
func TestStreamedUpdates(t *testing.T) {
	files := map[int][]string{1: {"schema.json", "schema.unstable.json"}, 2: {"schema.v2.json", "schema.v2.unstable.json"}}
	for protocol, tags := range StreamedUpdates {
		have := map[string]bool{}
		for _, f := range files[protocol] {
			m := loadModel(t, f, "stable")
			got, ok := m.Streamed()
			if !ok {
				t.Fatalf("%s: no session/update union", f)
			}
			for _, tag := range got {
				have[tag] = true
			}
			for _, v := range m.updateUnion().Union.Variants {
				if hot := v.Payload.Type.Hot; hot != isStreamed(v.Tag) {
					t.Errorf("%s: variant %q payload hot %v", f, v.Tag, hot)
				}
			}
		}
		for _, tag := range tags {
			if !have[tag] {
				t.Errorf("v%d: streamed variant %q in no pinned channel", protocol, tag)
			}
		}
	}
}
