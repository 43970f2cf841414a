package zeroclaw_test

// Hand-written behaviour tests of the ZeroClaw vendor package (seed 002):
// session/stop, agentAlias, _meta.zeroclaw, its own error codes and its
// other member names (aliases).
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

	zc "github.com/acpgen/acpgen/golden/testdata/zeroclaw"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestErrorCodesAreTheirOwnType(t *testing.T) {
	if zc.ZeroClawErrorCodeSessionNotFound != -32000 || zc.ZeroClawErrorCodeSessionLimitReached != -32001 || zc.ZeroClawErrorCodeSessionBusy != -32002 {
		t.Error("ZeroClaw codes")
	}
	// ACP's ErrorCode keeps its own meaning of the same numbers.
	if zc.ErrorCodeAuthenticationRequired != -32000 || zc.ErrorCodeResourceNotFound != -32002 {
		t.Error("ACP codes changed")
	}
	// An ACP error carrying a ZeroClaw code decodes as ACP's open ErrorCode;
	// the vendor reading converts it explicitly.
	var e zc.Error
	if err := decode([]byte(`{"code":-32001,"message":"max_sessions reached"}`), &e, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if zc.ZeroClawErrorCode(e.Code) != zc.ZeroClawErrorCodeSessionLimitReached {
		t.Errorf("code %d", e.Code)
	}
	var c zc.ZeroClawErrorCode
	if err := decode([]byte(`-32099`), &c, wire.Strict); err != nil || c != -32099 {
		t.Errorf("open enum: %v %d", err, c)
	}
}

func TestSessionStop(t *testing.T) {
	found := false
	for _, m := range zc.Methods {
		if m.Wire == zc.MethodSessionStop {
			found = m.Side == "agent" && !m.Notification && m.Params == "ZeroClawStopSessionRequest" && m.Result == "ZeroClawStopSessionResponse"
		}
	}
	if !found {
		t.Fatal("session/stop is not an agent-handled request")
	}
	var r zc.ZeroClawStopSessionResponse
	if err := decode([]byte(`{"sessionId":"s-ab12cd","stopped":true}`), &r, wire.Strict); err != nil || !r.Stopped {
		t.Fatalf("%v %+v", err, r)
	}
	if err := decode([]byte(`{"sessionId":"s-ab12cd"}`), &r, wire.Strict); err == nil {
		t.Error("missing stopped accepted")
	}
}

func TestAgentAlias(t *testing.T) {
	var n zc.NewSessionRequest
	if err := decode([]byte(`{"agentAlias":"myagent","cwd":"/path/to/project","mcpServers":[]}`), &n, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if n.AgentAlias == nil || *n.AgentAlias != "myagent" {
		t.Fatalf("agentAlias %v", n.AgentAlias)
	}
	empty := ""
	n.AgentAlias = &empty
	if err := n.Validate(); err == nil {
		t.Error("empty alias accepted")
	}
}

func TestInitializeMeta(t *testing.T) {
	in := `{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"_meta":{"zeroclaw":{"defaultModel":"anthropic/claude-sonnet-4.6","maxSessions":10,"sessionTimeoutSecs":3600}}}`
	var r zc.InitializeResponse
	if err := decode([]byte(in), &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	m, ok, err := r.ZeroClawInitializeMeta()
	if err != nil || !ok || *m.MaxSessions != 10 || *m.SessionTimeoutSecs != 3600 || *m.DefaultModel != "anthropic/claude-sonnet-4.6" {
		t.Fatalf("%+v ok=%v err=%v", m, ok, err)
	}
	if got := string(encode(&r)); got != in {
		t.Errorf("re-encoded as %s", got)
	}
}

// aliasCase is one ZeroClaw alias: a message using it, and the same message
// as it must decode and re-encode, with the member's own name.
type aliasCase struct {
	alias, canonical string
	in, want         string
	decode           func(data []byte, mode wire.Mode) (any, error)
}

func decoder[T any]() func([]byte, wire.Mode) (any, error) {
	return func(data []byte, mode wire.Mode) (any, error) {
		v := new(T)
		return v, decode(data, v, mode)
	}
}

var aliasCases = []aliasCase{
	{"agent_alias", "agentAlias", `{"cwd":"/p","mcpServers":[],"agent_alias":"myagent"}`, `{"cwd":"/p","mcpServers":[],"agentAlias":"myagent"}`, decoder[zc.NewSessionRequest]()},
	{"agent", "agentAlias", `{"agent":"myagent","cwd":"/p","mcpServers":[]}`, `{"cwd":"/p","mcpServers":[],"agentAlias":"myagent"}`, decoder[zc.NewSessionRequest]()},
	{"workspaceDir", "cwd", `{"workspaceDir":"/p","mcpServers":[]}`, `{"cwd":"/p","mcpServers":[]}`, decoder[zc.NewSessionRequest]()},
	{"workspace_dir", "cwd", `{"mcpServers":[],"workspace_dir":"/p"}`, `{"cwd":"/p","mcpServers":[]}`, decoder[zc.NewSessionRequest]()},
	{"session_id", "sessionId", `{"session_id":"s-ab12cd"}`, `{"sessionId":"s-ab12cd"}`, decoder[zc.CancelNotification]()},
	{"session_id", "sessionId", `{"session_id":"s-ab12cd","cwd":"/p","mcpServers":[]}`, `{"sessionId":"s-ab12cd","cwd":"/p","mcpServers":[]}`, decoder[zc.LoadSessionRequest]()},
}

// Each alias decodes leniently into the member, which validators then see,
// and encoding writes only the member's own name.
func TestAliasesLenient(t *testing.T) {
	for _, c := range aliasCases {
		v, err := c.decode([]byte(c.in), wire.Lenient)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := string(encode(v)); got != c.want {
			t.Errorf("%s: re-encoded as %s, want %s", c.in, got, c.want)
		}
		if err := v.(interface{ Validate() error }).Validate(); err != nil {
			t.Errorf("%s: %v", c.in, err)
		}
	}
	// The validator sees the aliased value in the member.
	var n zc.NewSessionRequest
	if err := decode([]byte(`{"cwd":"/p","mcpServers":[],"agent":""}`), &n, wire.Lenient); err != nil {
		t.Fatal(err)
	}
	if err := n.Validate(); err == nil || !strings.Contains(err.Error(), "/agentAlias") {
		t.Errorf("empty agent alias: %v", err)
	}
}

// Strict decoding refuses each alias, naming the member and the alias's pointer.
func TestAliasesStrict(t *testing.T) {
	for _, c := range aliasCases {
		_, err := c.decode([]byte(c.in), wire.Strict)
		var e *wire.Error
		if !errors.As(err, &e) || e.Pointer != "/"+c.alias || !strings.Contains(e.Msg, `"`+c.canonical+`"`) {
			t.Errorf("%s: strict decoding gave %v", c.in, err)
		}
	}
}

// The member's own name wins over its aliases, and an alias listed earlier
// over a later one, whatever the order of the members.
func TestAliasPrecedence(t *testing.T) {
	for in, want := range map[string]string{
		`{"agent_alias":"b","agentAlias":"a","cwd":"/p","mcpServers":[]}`:       "a",
		`{"agentAlias":"a","agent":"c","cwd":"/p","mcpServers":[]}`:             "a",
		`{"agent":"c","agent_alias":"b","cwd":"/p","mcpServers":[]}`:            "b",
		`{"agent_alias":"b","agent":"c","cwd":"/p","mcpServers":[]}`:            "b",
		`{"workspace_dir":"/x","cwd":"/p","workspaceDir":"/y","mcpServers":[]}`: "",
	} {
		var n zc.NewSessionRequest
		if err := decode([]byte(in), &n, wire.Lenient); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if want == "" {
			if n.Cwd != "/p" {
				t.Errorf("%s: cwd %q", in, n.Cwd)
			}
			continue
		}
		if n.AgentAlias == nil || *n.AgentAlias != want || len(n.Unknown) != 0 {
			t.Errorf("%s: agentAlias %v, unknown %v; want %q", in, n.AgentAlias, n.Unknown, want)
		}
	}
}

// aliasAgent records the session/new params it is sent.
type aliasAgent struct {
	zc.UnimplementedAgentHandler
	mu  sync.Mutex
	got []zc.NewSessionRequest
}

func (a *aliasAgent) Initialize(ctx context.Context, p *zc.InitializeRequest) (*zc.InitializeResponse, error) {
	return &zc.InitializeResponse{}, nil
}

func (a *aliasAgent) SessionNew(ctx context.Context, p *zc.NewSessionRequest) (*zc.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, *p)
	return &zc.NewSessionResponse{SessionID: "s-ab12cd"}, nil
}

// A generated agent accepts what ZeroClaw's clients send, unless strict.
func TestAliasesOverTheConnection(t *testing.T) {
	for _, strict := range []bool{false, true} {
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		agent := &aliasAgent{}
		ac := zc.NewAgentConn(agent, ar, aw, zc.ConnOptions{Strict: strict})
		cc := zc.NewClientConn(zc.UnimplementedClientHandler{}, cr, cw, zc.ConnOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); ac.Run(ctx) }()
		go func() { defer wg.Done(); cc.Run(ctx) }()
		if _, err := cc.Initialize(ctx, &zc.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		_, err := cc.Send(ctx, zc.MethodSessionNew, wire.Raw(`{"agent_alias":"myagent","workspace_dir":"/p","mcpServers":[]}`))
		var rpc *wire.RPCError
		switch {
		case strict && (!errors.As(err, &rpc) || rpc.Code != wire.CodeInvalidParams || !strings.Contains(rpc.Message, `/agent_alias: "agent_alias" is another name of member "agentAlias"`) || len(agent.got) != 0):
			t.Errorf("strict agent: %v; handler got %+v", err, agent.got)
		case !strict && err != nil:
			t.Errorf("lenient agent: %v", err)
		case !strict && (len(agent.got) != 1 || agent.got[0].Cwd != "/p" || agent.got[0].AgentAlias == nil || *agent.got[0].AgentAlias != "myagent"):
			t.Errorf("lenient agent got %+v", agent.got)
		}
		cancel()
		cw.Close()
		aw.Close()
		wg.Wait()
	}
}

// decode decodes data into the generated value v points to, through its table.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, zc.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return zc.TableOf(v).AppendValue(nil, v) }
