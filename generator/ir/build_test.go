package ir

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/internal/pinned"
)

func loadModel(t *testing.T, file, channel string) *Model {
	t.Helper()
	doc, err := load.ReadFile(pinned.Path(t, file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(doc, channel)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rawDefs reads the $defs of a pinned schema with encoding/json, apart from
// the loader, to check the model against.
func rawDefs(t *testing.T, file string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(pinned.Path(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Defs) == 0 {
		t.Fatalf("%s has no $defs", file)
	}
	return doc.Defs
}

// Every def becomes a type, every x-method a method, and the protocol's
// best-known shapes come out as ACP defines them.
func TestBuildPinned(t *testing.T) {
	for _, c := range []struct{ file, channel string }{{"schema.json", "stable"}, {"schema.unstable.json", "unstable"}} {
		t.Run(c.channel, func(t *testing.T) {
			m := loadModel(t, c.file, c.channel)
			wires := map[string]bool{}
			for name, d := range rawDefs(t, c.file) {
				if m.TypeByDef(name) == nil {
					t.Errorf("$defs/%s has no type", name)
				}
				if w, ok := d["x-method"].(string); ok {
					wires[w] = true
				}
			}
			built := map[string]bool{}
			for _, me := range m.Methods {
				built[me.Wire] = true
				if !wires[me.Wire] {
					t.Errorf("method %s is no def's x-method", me.Wire)
				}
			}
			for w := range wires {
				if !built[w] {
					t.Errorf("x-method %s has no method", w)
				}
			}
			checkMethod(t, m, "session/prompt", "agent", false, "PromptRequest")
			checkMethod(t, m, "session/update", "client", true, "SessionNotification")
			checkContentBlock(t, m)
			checkSessionNotification(t, m)
		})
	}
}

func checkMethod(t *testing.T, m *Model, wire, side string, notification bool, params string) {
	t.Helper()
	for _, me := range m.Methods {
		if me.Wire != wire {
			continue
		}
		if me.Side != side || me.Notification != notification || me.Params == nil || me.Params.Def != params || (me.Result == nil) != notification {
			t.Errorf("%s: side %s, notification %v, params %v, result %v", wire, me.Side, me.Notification, me.Params, me.Result)
		}
		return
	}
	t.Errorf("no method %s", wire)
}

// ContentBlock is a union tagged by "type": text, image, audio,
// resource_link and resource, each an object def of its own.
func checkContentBlock(t *testing.T, m *Model) {
	t.Helper()
	cb := m.TypeByDef("ContentBlock")
	if cb == nil || cb.Kind != ObjectUnion || cb.Union.Discriminator != "type" {
		t.Fatalf("ContentBlock is not an object union tagged by type: %+v", cb)
	}
	want := map[string]string{"text": "TextContent", "image": "ImageContent", "audio": "AudioContent", "resource_link": "ResourceLink", "resource": "EmbeddedResource"}
	for _, v := range cb.Union.Variants {
		if v.Role != Tagged || v.Payload == nil || v.Payload.Type == nil || v.Payload.Type.Def != want[v.Tag] {
			t.Errorf("ContentBlock variant %q: role %v, payload %+v", v.Tag, v.Role, v.Payload)
		}
		delete(want, v.Tag)
	}
	if len(want) > 0 {
		t.Errorf("ContentBlock lacks variants %v", want)
	}
}

// SessionNotification is a struct that requires sessionId and update.
func checkSessionNotification(t *testing.T, m *Model) {
	t.Helper()
	sn := m.TypeByDef("SessionNotification")
	if sn == nil || sn.Kind != Struct {
		t.Fatalf("SessionNotification is not a struct: %+v", sn)
	}
	required := map[string]bool{}
	for _, f := range sn.Fields {
		required[f.JSON] = f.Required
	}
	if !required["sessionId"] || !required["update"] {
		t.Errorf("SessionNotification members (name: required) %v", required)
	}
}
