package sandboxagent_test

// Hand-written behaviour tests of the sandbox-agent vendor package: base,
// both RFD overlays and sandbox-agent's additions (seed 001).
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"strings"
	"testing"

	sa "github.com/acpgen/acpgen/golden/testdata/sandbox-agent"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestSessionMetaNamespace(t *testing.T) {
	in := `{"cwd":"/w","mcpServers":[],"_meta":{"sandboxagent.dev":{"requestedSessionId":"my-session-alias","title":"Bugfix run","skills":["repo:vercel-labs/skills/nextjs"],"agentVersionRequested":"latest","permissionMode":"ask","variant":"high"},"other.example":{"k":1}}}`
	var n sa.NewSessionRequest
	if err := wire.Decode([]byte(in), &n, wire.Strict); err != nil {
		t.Fatal(err)
	}
	m, ok, err := n.SandboxAgentSessionMeta()
	if err != nil || !ok {
		t.Fatalf("namespace: ok=%v err=%v", ok, err)
	}
	if *m.RequestedSessionID != "my-session-alias" || *m.Variant != "high" || len(m.Skills) != 1 {
		t.Errorf("decoded %+v", m)
	}
	title := "Renamed"
	m.Title = &title
	n.SetSandboxAgentSessionMeta(m)
	if string(n.Meta["other.example"]) != `{"k":1}` {
		t.Error("another namespace was touched")
	}
	if !strings.Contains(string(n.AppendJSON(nil)), `"title":"Renamed"`) {
		t.Errorf("set not encoded: %s", n.AppendJSON(nil))
	}
	var empty sa.NewSessionRequest
	if _, ok, err := empty.SandboxAgentSessionMeta(); ok || err != nil {
		t.Errorf("absent namespace: ok=%v err=%v", ok, err)
	}
	bad := sa.NewSessionRequest{Meta: map[string]wire.Raw{"sandboxagent.dev": wire.Raw(`{"skills":"not a list"}`)}}
	if _, ok, err := bad.SandboxAgentSessionMeta(); !ok || err == nil {
		t.Errorf("malformed namespace: ok=%v err=%v", ok, err)
	}
}

func TestExtensionCapabilities(t *testing.T) {
	in := `{"protocolVersion":1,"agentCapabilities":{"_meta":{"sandboxagent.dev":{"extensions":{"sessionMetadata":true,"requestQuestion":true,"sessionTerminate":true,"sessionEventsPoll":false}}}}}`
	var r sa.InitializeResponse
	if err := wire.Decode([]byte(in), &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	c, ok, err := r.AgentCapabilities.SandboxAgentCapabilities()
	if err != nil || !ok || !*c.Extensions.RequestQuestion || *c.Extensions.SessionEventsPoll {
		t.Fatalf("capabilities %+v ok=%v err=%v", c.Extensions, ok, err)
	}
}

func TestExtensionMethods(t *testing.T) {
	want := map[string]sa.MethodInfo{
		"_sandboxagent/session/request_question": {Wire: "_sandboxagent/session/request_question", Side: "client", Params: "SandboxAgentRequestQuestionRequest", Result: "SandboxAgentRequestQuestionResponse"},
		"_sandboxagent/session/set_metadata":     {Wire: "_sandboxagent/session/set_metadata", Side: "agent", Params: "SandboxAgentSetMetadataRequest", Result: "SandboxAgentSetMetadataResponse"},
	}
	for _, m := range sa.Methods {
		if w, ok := want[m.Wire]; ok {
			if m != w {
				t.Errorf("%s: %+v, want %+v", m.Wire, m, w)
			}
			delete(want, m.Wire)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing methods: %v", want)
	}
	if sa.MethodSandboxagentSessionRequestQuestion != "_sandboxagent/session/request_question" {
		t.Error("method constant")
	}

	var q sa.SandboxAgentRequestQuestionRequest
	if err := wire.Decode([]byte(`{"sessionId":"s","question":"Proceed?","options":["yes","no"]}`), &q, wire.Strict); err != nil {
		t.Fatal(err)
	}
	for in, ok := range map[string]bool{
		`{"outcome":"answered","answer":"yes"}`: true,
		`{"outcome":"rejected"}`:                true,
		`{"outcome":"cancelled"}`:               true,
		`{"outcome":"maybe"}`:                   false,
		`{}`:                                    false,
	} {
		var r sa.SandboxAgentRequestQuestionResponse
		if err := wire.Decode([]byte(in), &r, wire.Strict); (err == nil) != ok {
			t.Errorf("%s: err %v", in, err)
		}
	}

	var s sa.SandboxAgentSetMetadataRequest
	if err := wire.Decode([]byte(`{"sessionId":"s","metadata":{"title":"t"}}`), &s, wire.Strict); err != nil || *s.Metadata.Title != "t" {
		t.Fatalf("set_metadata: %v", err)
	}
}

func TestCarriesBothRFDs(t *testing.T) {
	var ids []string
	for _, o := range sa.Overlays {
		ids = append(ids, o.ID)
	}
	if strings.Join(ids, ",") != "additional-directories,runtime-context,sandbox-agent" {
		t.Errorf("overlays %v", ids)
	}
	p := sa.PromptRequest{SessionID: "s", Prompt: []sa.ContentBlock{}, RuntimeContext: []sa.RuntimeContextItem{{Text: "x"}}}
	if p.ForHistory().RuntimeContext != nil {
		t.Error("runtimeContext survives history")
	}
	l := sa.ListSessionsRequest{AdditionalDirectories: []string{"relative"}}
	if err := l.Validate(); err == nil {
		t.Error("relative filter accepted")
	}
}
