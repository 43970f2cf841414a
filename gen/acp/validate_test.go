package acp_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
)

func violations(t *testing.T, err error) []wire.Violation {
	t.Helper()
	var ve *wire.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *wire.ValidationError, got %v", err)
	}
	return ve.Violations
}

// Values built in Go are validated like decoded ones, every violation reported
// with its pointer, in a deterministic order.
func TestValidateGoValues(t *testing.T) {
	nan := math.NaN()
	p := acp.PromptRequest{
		SessionID: "s",
		Prompt: []acp.ContentBlock{
			{}, // no variant
			{Text: &acp.TextContent{Text: "a"}, Image: &acp.ImageContent{}}, // two variants
			acp.NewContentBlockText(acp.TextContent{Text: "ok", Annotations: &acp.Annotations{Priority: &nan, Audience: []acp.Role{"robot"}}}),
			acp.NewContentBlockResourceLink(acp.ResourceLink{Name: "n", URI: "file:///x"}),
		},
		Unknown: wire.Fields{{Name: "sessionId", Value: wire.Raw(`"dup"`)}},
	}
	got := violations(t, p.Validate())
	var lines []string
	for _, v := range got {
		lines = append(lines, v.Pointer+": "+v.Reason)
	}
	want := []string{
		`/prompt/0: no variant of ContentBlock is set (one of Text, Image, Audio, ResourceLink, Resource)`,
		`/prompt/1: more than one variant of ContentBlock is set (Text, Image)`,
		`/prompt/2/annotations/audience/0: unknown Role value "robot"`,
		`/prompt/2/annotations/priority: must be a finite number`,
		`/sessionId: is a declared member; set its field instead of Unknown`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Same value, same report.
	if again := p.Validate().Error(); again != p.Validate().Error() {
		t.Fatal("order is not deterministic")
	}
}

func TestValidateInvalidParamsError(t *testing.T) {
	var n acp.InitializeRequest
	if err := decode([]byte(`{"protocolVersion":1}`), &n, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if err := n.Validate(); err != nil {
		t.Fatalf("valid message refused: %v", err)
	}
	bad := acp.ToolCallUpdate{ToolCallID: "t", Status: ptr(acp.ToolCallStatus("exploded"))}
	err := bad.Validate()
	var ve *wire.ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	rpc := ve.RPCError()
	data, _ := json.Marshal(rpc)
	if rpc.Code != -32602 || !strings.Contains(string(data), `"pointer":"/status"`) || !strings.Contains(string(data), `unknown ToolCallStatus value \"exploded\"`) {
		t.Fatalf("rpc error %s", data)
	}
}

func ptr[T any](v T) *T { return &v }

// Validation allocates nothing when the value is valid.
func TestValidateAllocatesNothing(t *testing.T) {
	var p acp.PromptRequest
	if err := decode([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"a","annotations":{"priority":0.5}},{"type":"resource_link","name":"n","uri":"file:///a"}],"_meta":{"k":1}}`), &p, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Validate allocates %v times", n)
	}
}

func TestGatesOnTypedMessages(t *testing.T) {
	yes := true
	n := acp.Negotiated{
		Request:  &acp.InitializeRequest{ClientCapabilities: &acp.ClientCapabilities{}},
		Response: &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{PromptCapabilities: &acp.PromptCapabilities{Image: &yes}}},
	}
	p := acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{
		acp.NewContentBlockText(acp.TextContent{Text: "x"}),
		acp.NewContentBlockImage(acp.ImageContent{Data: "AA==", MimeType: "image/png"}),
		acp.NewContentBlockAudio(acp.AudioContent{Data: "AA==", MimeType: "audio/wav"}),
	}}
	got := n.CheckParams(acp.MethodSessionPrompt, &p)
	if len(got) != 1 || got[0].Pointer != "/prompt/2" || got[0].Capability != "agentCapabilities.promptCapabilities.audio" {
		t.Fatalf("violations %+v", got)
	}
	if ok, need := n.AllowsMethod(acp.MethodTerminalCreate); ok || need != "clientCapabilities.terminal" {
		t.Fatalf("terminal/create allowed without the capability: %v %q", ok, need)
	}
	if ok, _ := n.AllowsMethod(acp.MethodSessionPrompt); !ok {
		t.Fatal("an ungated method refused")
	}
	s := acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{acp.NewMCPServerHTTP(acp.MCPServerHTTP{Name: "h", URL: "https://x"})}, AdditionalDirectories: []string{"/a"}}
	got = n.CheckParams(acp.MethodSessionNew, &s)
	var caps []string
	for _, v := range got {
		caps = append(caps, v.Pointer+" "+v.Capability)
	}
	if strings.Join(caps, ",") != "/additionalDirectories agentCapabilities.sessionCapabilities.additionalDirectories,/mcpServers/0 agentCapabilities.mcpCapabilities.http" {
		t.Fatalf("session/new gates: %v", caps)
	}
	rpc := (&wire.GateError{Violations: got}).RPCError()
	if rpc.Code != -32602 {
		t.Fatalf("gated member: code %d", rpc.Code)
	}
}
