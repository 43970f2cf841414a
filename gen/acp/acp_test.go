package acp_test

// Hand-written behaviour tests of the generated stable package: the defects
// ACP-FACTS.md records for the leading Go peer, and the leniency rules.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/runtime/wire"
)

func roundTrip(t *testing.T, in string, v any, mode wire.Mode) string {
	t.Helper()
	if err := decode([]byte(in), v, mode); err != nil {
		t.Fatalf("decode: %v", err)
	}
	out := encode(v)
	eq, diff, err := corpus.Equal([]byte(in), out)
	if err != nil || !eq {
		t.Fatalf("round trip differs (%v): %s\n in: %s\nout: %s", err, diff, in, out)
	}
	return string(out)
}

func TestContentBlockKeepsAnnotationsAndMeta(t *testing.T) {
	in := `{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5,"_meta":{"k":1}},"_meta":{"vendor.example/trace":{"id":"t1"}}}`
	var b acp.ContentBlock
	roundTrip(t, in, &b, wire.Strict)
	if b.Text == nil || b.Text.Annotations == nil || *b.Text.Annotations.Priority != 0.5 || b.Text.Annotations.Audience[0] != acp.RoleUser {
		t.Fatalf("annotations not decoded: %+v", b.Text)
	}
	if string(b.Text.Meta["vendor.example/trace"]) != `{"id":"t1"}` {
		t.Fatalf("_meta not kept: %v", b.Text.Meta)
	}
}

// An unknown session update kind is an error in strict mode; lenient
// decoding keeps it (see TestUnknownVariantForwardCompatible in api_test.go).
func TestUnknownSessionUpdateKindIsAnErrorWhenStrict(t *testing.T) {
	in := `{"sessionId":"s1","update":{"sessionUpdate":"hologram_projection","content":{"type":"text","text":"x"}}}`
	var n acp.SessionNotification
	err := decode([]byte(in), &n, wire.Strict)
	if err == nil {
		t.Fatalf("unknown kind decoded as %+v", n.Update)
	}
	if !strings.Contains(err.Error(), "/update/sessionUpdate") || !strings.Contains(err.Error(), "hologram_projection") {
		t.Fatalf("error does not name the member and value: %v", err)
	}
}

func TestFallbackVariantKeepsUnknownTag(t *testing.T) {
	in := `{"type":"websocket","name":"ws","command":"/bin/ws","args":[],"env":[],"url":"ws://x"}`
	var s acp.MCPServer
	out := roundTrip(t, in, &s, wire.Strict)
	if s.Stdio == nil || s.Stdio.Name != "ws" {
		t.Fatalf("unknown type did not fall back to stdio: %+v", s)
	}
	if !strings.Contains(out, `"type":"websocket"`) {
		t.Fatalf("tag lost: %s", out)
	}
	// A known tag selects its variant.
	var h acp.MCPServer
	roundTrip(t, `{"type":"http","name":"h","url":"https://x","headers":[]}`, &h, wire.Strict)
	if h.HTTP == nil {
		t.Fatalf("http not selected: %+v", h)
	}
}

func TestUnknownMembersSurviveAtEveryLevel(t *testing.T) {
	in := `{"sessionId":"s","prompt":[{"type":"text","text":"a","x_new":[1,{"b":null}]}],"x_top":"keep"}`
	var p acp.PromptRequest
	roundTrip(t, in, &p, wire.Strict)
	if len(p.Unknown) != 1 || p.Unknown[0].Name != "x_top" || len(p.Prompt[0].Text.Unknown) != 1 {
		t.Fatalf("unknown members not kept: %+v %+v", p.Unknown, p.Prompt[0].Text.Unknown)
	}
}

func TestLenientAndStrict(t *testing.T) {
	for _, c := range []struct {
		name, in    string
		strictErr   string // "" = strict accepts too
		lenientWant string // the lenient re-encoding
	}{
		{"_meta garbage", `{"sessionId":"s","_meta":"garbage"}`, "/_meta", `{"sessionId":"s"}`},
		{"mcpServers null", `{"cwd":"/w","mcpServers":null}`, "/mcpServers", `{"cwd":"/w","mcpServers":[]}`},
		{"invalid audience item dropped", `{"sessionId":"s","prompt":[{"type":"text","text":"a","annotations":{"audience":["user","robot"]}}]}`,
			"/prompt/0/annotations/audience/1", `{"sessionId":"s","prompt":[{"type":"text","text":"a","annotations":{"audience":["user"]}}]}`},
		{"invalid priority defaults", `{"sessionId":"s","prompt":[{"type":"text","text":"a","annotations":{"priority":"high"}}]}`,
			"/prompt/0/annotations/priority", `{"sessionId":"s","prompt":[{"type":"text","text":"a","annotations":{}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v any
			switch {
			case strings.Contains(c.in, "cwd"):
				v = new(acp.NewSessionRequest)
			case strings.Contains(c.in, "prompt"):
				v = new(acp.PromptRequest)
			default:
				v = new(acp.CancelNotification)
			}
			err := decode([]byte(c.in), v, wire.Strict)
			if err == nil || !strings.Contains(err.Error(), c.strictErr) {
				t.Fatalf("strict: want an error at %s, got %v", c.strictErr, err)
			}
			if err := decode([]byte(c.in), v, wire.Lenient); err != nil {
				t.Fatalf("lenient: %v", err)
			}
			got := encode(v)
			if eq, diff, _ := corpus.Equal(got, []byte(c.lenientWant)); !eq {
				t.Fatalf("lenient decoded to %s, want %s: %s", got, c.lenientWant, diff)
			}
		})
	}
	// Leniency never hides malformed JSON.
	var m acp.CancelNotification
	if err := decode([]byte(`{"sessionId":"s","_meta":{"a":}}`), &m, wire.Lenient); err == nil || !wire.IsSyntax(err) {
		t.Fatalf("malformed _meta accepted leniently: %v", err)
	}
}

func TestErrorsNameTheMember(t *testing.T) {
	var p acp.PromptRequest
	err := decode([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"a"},{"type":"image"}]}`), &p, wire.Lenient)
	if err == nil || !strings.Contains(err.Error(), `/prompt/1: missing required member "data"`) {
		t.Fatalf("got %v", err)
	}
	err = decode([]byte(`{"sessionId":"s","prompt":[{"text":"a"}]}`), &p, wire.Lenient)
	if err == nil || !strings.Contains(err.Error(), `/prompt/0: missing discriminator "type"`) {
		t.Fatalf("got %v", err)
	}
	err = decode([]byte(`{"sessionId":"s","prompt":[{"type":7}]}`), &p, wire.Lenient)
	if err == nil || !strings.Contains(err.Error(), `/prompt/0/type: expected string, found number`) {
		t.Fatalf("got %v", err)
	}
}

func TestOpenIntegerEnumAndValueUnion(t *testing.T) {
	var e acp.Error
	roundTrip(t, `{"code":-32099,"message":"vendor"}`, &e, wire.Strict)
	if e.Code != -32099 || acp.ErrorCodeParseError != -32700 || acp.ErrorCodeRequestCancelled != -32800 {
		t.Fatalf("error code %d", e.Code)
	}
	for in, want := range map[string]string{`null`: "null", `12`: "number", `"abc"`: "str"} {
		var id acp.RequestID
		roundTrip(t, in, &id, wire.Strict)
		got := map[bool]string{id.Null: "null", id.Number != nil: "number", id.Str != nil: "str"}[true]
		if got != want {
			t.Errorf("%s decoded as %s", in, got)
		}
	}
}

func TestStdInteropAndConstructors(t *testing.T) {
	b := acp.NewContentBlockText(acp.TextContent{Text: "hello"})
	data, err := json.Marshal(b)
	if err != nil || string(data) != `{"type":"text","text":"hello"}` {
		t.Fatalf("json.Marshal: %s %v", data, err)
	}
	var back acp.ContentBlock
	if err := json.Unmarshal(data, &back); err != nil || back.Text == nil || back.Text.Text != "hello" {
		t.Fatalf("json.Unmarshal: %+v %v", back, err)
	}
	if acp.MethodSessionNew != "session/new" || acp.CurrentProtocolVersion != 1 || acp.SchemaVersion != "2.4.0" {
		t.Fatal("constants")
	}
}
