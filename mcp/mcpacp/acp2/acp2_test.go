package acp2_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp2"
)

type editor struct {
	unstable.UnimplementedClientHandler
	mcp *mcpacp.Provider
}

func (e *editor) MCPMessage(ctx context.Context, p *unstable.MessageMCPRequest) (*unstable.MessageMCPResponse, error) {
	return acp2.Serve(ctx, e.mcp, p)
}

type agent struct {
	unstable.UnimplementedAgentHandler
	acp      bool
	http     bool
	mcp      *mcpacp.Caller
	sessions chan []unstable.MCPServer
}

func (a *agent) Initialize(context.Context, *unstable.InitializeRequest) (*unstable.InitializeResponse, error) {
	res := &unstable.InitializeResponse{ProtocolVersion: unstable.CurrentProtocolVersion, Info: unstable.Implementation{Name: "agent", Version: "1"}}
	caps := &unstable.MCPCapabilities{}
	if a.acp {
		caps.ACP = &unstable.MCPACPCapabilities{}
	}
	if a.http {
		caps.HTTP = &unstable.MCPHTTPCapabilities{}
	}
	res.Capabilities = &unstable.AgentCapabilities{Session: &unstable.SessionCapabilities{MCP: caps}}
	return res, nil
}

func (a *agent) SessionNew(_ context.Context, p *unstable.NewSessionRequest) (*unstable.NewSessionResponse, error) {
	a.sessions <- p.MCPServers
	return &unstable.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *agent) MCPMessage(_ context.Context, n *unstable.MessageMCPNotification) {
	acp2.Notify(a.mcp, n)
}

// connect returns an initialized v2 connection between an editor and an
// agent that advertises MCP over ACP when advertise is set.
func connect(t *testing.T, advertise bool) (*editor, *agent, *unstable.ClientConn, *unstable.InitializeResponse) {
	return connectTo(t, &agent{acp: advertise})
}

func connectTo(t *testing.T, a *agent) (*editor, *agent, *unstable.ClientConn, *unstable.InitializeResponse) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	e := &editor{mcp: mcpacp.NewProvider()}
	a.mcp, a.sessions = mcpacp.NewCaller(nil), make(chan []unstable.MCPServer, 1)
	client := unstable.NewClientConn(e, toClientR, toAgentW, unstable.ConnOptions{})
	agentConn := unstable.NewAgentConn(a, toAgentR, toClientW, unstable.ConnOptions{})
	e.mcp.Bind(client)
	a.mcp.Bind(agentConn)
	done := make(chan struct{}, 2)
	go func() { client.Run(ctx); done <- struct{}{} }()
	go func() { agentConn.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		toAgentW.Close()
		toClientW.Close()
		<-done
		<-done
	})
	init, err := client.Initialize(ctx, &unstable.InitializeRequest{Info: unstable.Implementation{Name: "editor", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return e, a, client, init
}

// TestGoProviderGoCallerV2 runs the interop scenario over ACP v2, the
// server declared in session/new as capabilities.session.mcp.acp allows.
func TestGoProviderGoCallerV2(t *testing.T) {
	e, a, client, init := connect(t, true)
	cancelled := make(chan string, 1)
	reg, err := e.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, cancelled)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl := acp2.Declarations(init, reg)
	b, _ := json.Marshal(decl)
	if want := `[{"type":"acp","name":"project-tools","serverId":"` + reg.ServerID + `"}]`; string(b) != want {
		t.Fatalf("declarations %s, want %s", b, want)
	}
	if _, err := client.SessionNew(context.Background(), &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl}); err != nil {
		t.Fatal(err)
	}
	servers := acp2.ACPServers(<-a.sessions)
	if len(servers) != 1 || string(servers[0].ServerID) != reg.ServerID {
		t.Fatalf("the agent received %+v", servers)
	}
	if err := mcptest.Scenario(context.Background(), a.mcp, reg.ServerID); err != nil {
		t.Fatal(err)
	}
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
}

func TestNotDeclaredWithoutCapabilityV2(t *testing.T) {
	e, _, _, init := connect(t, false)
	reg, err := e.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := acp2.Declarations(init, reg); len(d) != 0 {
		t.Fatalf("declarations %+v for an agent without capabilities.session.mcp.acp", d)
	}
}

// TestHTTPDeclarationWithoutACPV2: capabilities.session.mcp.http without
// acp gets an http declaration of the registration's loopback endpoint.
func TestHTTPDeclarationWithoutACPV2(t *testing.T) {
	e, a, client, init := connectTo(t, &agent{http: true})
	reg, err := e.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl, err := acp2.DeclarationsOrHTTP(init, reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.SessionNew(context.Background(), &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl}); err != nil {
		t.Fatal(err)
	}
	got := <-a.sessions
	if len(got) != 1 || got[0].HTTP == nil || !strings.HasPrefix(got[0].HTTP.URL, "http://127.0.0.1:") ||
		len(got[0].HTTP.Headers) != 1 || !strings.HasPrefix(got[0].HTTP.Headers[0].Value, "Bearer ") {
		t.Fatalf("the agent received %+v", got)
	}
}
