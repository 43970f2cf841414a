package ir

import "testing"

// The hot set of the pinned stable schema follows hot.go's rule: the turn's
// messages and session/new's params, what they reach through required
// members and union variants, and nothing reached only through an optional
// member.
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
	// Closed under the rule: a hot type's required members and variants are hot.
	for _, ty := range m.Types {
		if !ty.Hot {
			continue
		}
		ty.eachRequiredRef(func(r *Ref) {
			if r.Kind == Named && !r.Type.Hot {
				t.Errorf("%s is hot, %s it requires is not", ty.Name, r.Type.Name)
			}
		})
	}
}
