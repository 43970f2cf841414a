package acp1_test

import (
	"context"
	"io"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
)

// editor is the client side: it serves mcp/message through its Provider.
type editor struct {
	unstable.UnimplementedClientHandler
	mcp *mcpacp.Provider
}

func (e *editor) MCPMessage(ctx context.Context, p *unstable.MessageMCPRequest) (*unstable.MessageMCPResponse, error) {
	return acp1.Serve(ctx, e.mcp, p)
}

// agent is the agent side: it advertises MCP over ACP when acp is set,
// records the mcpServers of each session/new, and routes mcp/message
// notifications to its Caller.
type agent struct {
	unstable.UnimplementedAgentHandler
	acp      bool
	http     bool // advertise mcpCapabilities.http
	mcp      *mcpacp.Caller
	sessions chan []unstable.MCPServer
}

func (a *agent) Initialize(context.Context, *unstable.InitializeRequest) (*unstable.InitializeResponse, error) {
	acp, http := a.acp, a.http
	return &unstable.InitializeResponse{
		ProtocolVersion:   unstable.CurrentProtocolVersion,
		AgentCapabilities: &unstable.AgentCapabilities{MCPCapabilities: &unstable.MCPCapabilities{ACP: &acp, HTTP: &http}},
	}, nil
}

func (a *agent) SessionNew(_ context.Context, p *unstable.NewSessionRequest) (*unstable.NewSessionResponse, error) {
	a.sessions <- p.MCPServers
	return &unstable.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *agent) MCPMessage(_ context.Context, n *unstable.MessageMCPNotification) {
	acp1.Notify(a.mcp, n)
}

// pair is one ACP connection between an editor and an agent, initialized.
type pair struct {
	editor  *editor
	agent   *agent
	client  *unstable.ClientConn
	agentC  *unstable.AgentConn
	initRes *unstable.InitializeResponse
}

func newPair(t testing.TB, advertise bool) *pair {
	return newPairOf(t, &agent{acp: advertise})
}

// newPairOf is newPair with the agent a (its Caller and sessions filled in).
func newPairOf(t testing.TB, a *agent) *pair {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	a.mcp, a.sessions = mcpacp.NewCaller(nil), make(chan []unstable.MCPServer, 4)
	p := &pair{editor: &editor{mcp: mcpacp.NewProvider()}, agent: a}
	p.client = unstable.NewClientConn(p.editor, toClientR, toAgentW, unstable.ConnOptions{})
	p.agentC = unstable.NewAgentConn(p.agent, toAgentR, toClientW, unstable.ConnOptions{})
	p.editor.mcp.Bind(p.client)
	p.agent.mcp.Bind(p.agentC)
	done := make(chan struct{}, 2)
	go func() { p.client.Run(ctx); done <- struct{}{} }()
	go func() { p.agentC.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		toAgentW.Close()
		toClientW.Close()
		<-done
		<-done
	})
	res, err := p.client.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	p.initRes = res
	return p
}

func mcptestHandler() mcpacp.Handler {
	return mcpacp.ServerHandler(mcptest.Server(nil, nil))
}
