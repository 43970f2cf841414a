package sandboxagent_test

// Hand-written behaviour tests of the sandbox-agent vendor package: base,
// both RFD overlays and sandbox-agent's additions (seed 001).
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	sa "github.com/acpgen/acpgen/golden/testdata/sandbox-agent"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestSessionMetaNamespace(t *testing.T) {
	in := `{"cwd":"/w","mcpServers":[],"_meta":{"sandboxagent.dev":{"requestedSessionId":"my-session-alias","title":"Bugfix run","skills":["repo:vercel-labs/skills/nextjs"],"agentVersionRequested":"latest","permissionMode":"ask","variant":"high"},"other.example":{"k":1}}}`
	var n sa.NewSessionRequest
	if err := decode([]byte(in), &n, wire.Strict); err != nil {
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
	if !strings.Contains(string(encode(&n)), `"title":"Renamed"`) {
		t.Errorf("set not encoded: %s", encode(&n))
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
	if err := decode([]byte(in), &r, wire.Strict); err != nil {
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
			if m.Descriptor == nil || m.Descriptor.Wire != m.Wire {
				t.Errorf("%s: descriptor %v", m.Wire, m.Descriptor)
			}
			m.Descriptor = nil
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
	if err := decode([]byte(`{"sessionId":"s","question":"Proceed?","options":["yes","no"]}`), &q, wire.Strict); err != nil {
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
		if err := decode([]byte(in), &r, wire.Strict); (err == nil) != ok {
			t.Errorf("%s: err %v", in, err)
		}
	}

	var s sa.SandboxAgentSetMetadataRequest
	if err := decode([]byte(`{"sessionId":"s","metadata":{"title":"t"}}`), &s, wire.Strict); err != nil || *s.Metadata.Title != "t" {
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

// metadataAgent advertises the sessionMetadata extension when told to, and
// counts the set_metadata calls that reach it.
type metadataAgent struct {
	sa.UnimplementedAgentHandler
	advertise *bool
	mu        sync.Mutex
	calls     int
}

func (a *metadataAgent) Initialize(ctx context.Context, p *sa.InitializeRequest) (*sa.InitializeResponse, error) {
	caps := &sa.AgentCapabilities{}
	caps.SetSandboxAgentCapabilities(sa.SandboxAgentCapabilities{Extensions: &sa.SandboxAgentExtensions{SessionMetadata: a.advertise, RequestQuestion: ptr(true)}})
	return &sa.InitializeResponse{AgentCapabilities: caps}, nil
}

func (a *metadataAgent) SandboxagentSessionSetMetadata(ctx context.Context, p *sa.SandboxAgentSetMetadataRequest) (*sa.SandboxAgentSetMetadataResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	return &sa.SandboxAgentSetMetadataResponse{}, nil
}

func ptr[T any](v T) *T { return &v }

// _sandboxagent/session/set_metadata is gated on
// agentCapabilities._meta["sandboxagent.dev"].extensions.sessionMetadata: the
// client refuses to send it and the agent answers method not found unless
// the agent advertised true.
func TestSetMetadataGatedOnExtension(t *testing.T) {
	const capability = "/agentCapabilities/_meta/sandboxagent.dev/extensions/sessionMetadata"
	if c, ok := sa.MethodCapability(sa.MethodSandboxagentSessionSetMetadata); !ok || c != capability {
		t.Fatalf("MethodCapability = %q, %v", c, ok)
	}
	for _, advertise := range []*bool{nil, ptr(false), ptr(true)} {
		allowed := advertise != nil && *advertise
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		agent := &metadataAgent{advertise: advertise}
		ac := sa.NewAgentConn(agent, ar, aw, sa.ConnOptions{})
		cc := sa.NewClientConn(sa.UnimplementedClientHandler{}, cr, cw, sa.ConnOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); ac.Run(ctx) }()
		go func() { defer wg.Done(); cc.Run(ctx) }()
		if _, err := cc.Initialize(ctx, &sa.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		params := &sa.SandboxAgentSetMetadataRequest{SessionID: "s", Metadata: sa.SandboxAgentSessionMeta{Title: ptr("t")}}
		_, err := cc.SandboxagentSessionSetMetadata(ctx, params)
		var ge *wire.GateError
		switch {
		case allowed && err != nil:
			t.Errorf("advertised %v: %v", *advertise, err)
		case !allowed && (!errors.As(err, &ge) || ge.Violations[0].Capability != capability):
			t.Errorf("not advertised (%v): client sent it: %v", advertise, err)
		}
		// Sent raw, past the client's check: the agent refuses it itself.
		_, err = cc.Send(ctx, sa.MethodSandboxagentSessionSetMetadata, wire.Raw(`{"sessionId":"s","metadata":{"title":"t"}}`))
		var rpc *wire.RPCError
		switch {
		case allowed && err != nil:
			t.Errorf("advertised: raw send: %v", err)
		case !allowed && (!errors.As(err, &rpc) || rpc.Code != wire.CodeMethodNotFound || !strings.Contains(rpc.Message, capability)):
			t.Errorf("not advertised (%v): agent answered %v", advertise, err)
		}
		agent.mu.Lock()
		if want := map[bool]int{true: 2, false: 0}[allowed]; agent.calls != want {
			t.Errorf("advertised %v: handler called %d times, want %d", advertise, agent.calls, want)
		}
		agent.mu.Unlock()
		cancel()
		cw.Close()
		aw.Close()
		wg.Wait()
	}
}

// decode decodes data into the generated value v points to, through its table.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, sa.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return sa.TableOf(v).AppendValue(nil, v) }
