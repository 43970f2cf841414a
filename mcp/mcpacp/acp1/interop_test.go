package acp1_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
)

// recordingEditor is an editor that keeps the agent's message chunks.
type recordingEditor struct {
	editor
	chunks chan string
}

func (e *recordingEditor) SessionUpdate(_ context.Context, n *unstable.SessionNotification) {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		e.chunks <- c.Content.Text.Text
	}
}

// TestGoProviderTypeScriptCaller: the TypeScript SDK's McpOverAcpCaller, in
// an agent on stdio, calls the Go provider's *mcp.Server.
func TestGoProviderTypeScriptCaller(t *testing.T) {
	node := startNode(t, "ts-mcp-agent.mjs")
	typeScriptCaller(t, node.Stdout, node.Stdin)
	node.Wait(t, true)
}

// TestGoProviderTypeScriptHTTPBridge: the TypeScript SDK's
// McpOverAcpHttpBridge re-exports the Go provider's server as a loopback
// MCP Streamable HTTP endpoint, and the agent's HTTP requests (MCP
// 2026-07-28, no initialize) reach the *mcp.Server as mcp/message: the
// same four calls, the slow one cancelled by aborting its HTTP request,
// which cancels the server's context.
func TestGoProviderTypeScriptHTTPBridge(t *testing.T) {
	node := startNode(t, "ts-mcp-agent.mjs", "--http-bridge")
	typeScriptCallerWith(t, node.Stdout, node.Stdin, func(slow map[string]any) bool { return slow["aborted"] == true })
	node.Wait(t, true)
}

// typeScriptCaller is the Go editor of TestGoProviderTypeScriptCaller on
// the connection r, w to ts-mcp-agent.mjs: it offers mcptest.Server, prompts
// once and checks the report the agent streams back.
func typeScriptCaller(t *testing.T, r io.Reader, w io.Writer) {
	typeScriptCallerWith(t, r, w, func(slow map[string]any) bool { return slow["code"] == float64(mcpacp.CodeCancelled) })
}

// typeScriptCallerWith is typeScriptCaller with slowCancelled judging the
// report of the cancelled slow call.
func typeScriptCallerWith(t *testing.T, r io.Reader, w io.Writer, slowCancelled func(map[string]any) bool) {
	ed := &recordingEditor{editor: editor{mcp: mcpacp.NewProvider()}, chunks: make(chan string, 4)}
	conn := unstable.NewClientConn(ed, r, w, unstable.ConnOptions{})
	ed.mcp.Bind(conn)
	ctx := context.Background()
	go conn.Run(ctx)

	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	started, cancelled := make(chan string, 1), make(chan string, 1)
	reg, err := ed.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(started, cancelled)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl := acp1.Declarations(init, reg)
	if len(decl) != 1 {
		t.Fatalf("the TypeScript agent advertises mcpCapabilities.acp, yet %d declarations", len(decl))
	}
	s, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.SessionPrompt(ctx, &unstable.PromptRequest{SessionID: s.SessionID, Prompt: []unstable.ContentBlock{unstable.TextBlock("go")}})
	if err != nil || res.StopReason != unstable.StopReasonEndTurn {
		t.Fatalf("prompt: %v %+v", err, res)
	}
	mcptest.CheckReport(t, []byte(<-ed.chunks), reg.ServerID, mcptest.ReportOptions{SlowCancelled: slowCancelled})
	<-started
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
}

// scenarioAgent runs scenario on the first acp server of each session when
// prompted, and hands the outcome to results.
type scenarioAgent struct {
	agent
	results chan error
	servers []unstable.MCPServerACP
}

func (a *scenarioAgent) SessionNew(_ context.Context, p *unstable.NewSessionRequest) (*unstable.NewSessionResponse, error) {
	a.servers = acp1.ACPServers(p.MCPServers)
	return &unstable.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *scenarioAgent) SessionPrompt(ctx context.Context, p *unstable.PromptRequest) (*unstable.PromptResponse, error) {
	if len(a.servers) == 0 {
		a.results <- errors.New("no acp server declared")
	} else {
		a.results <- mcptest.Scenario(ctx, a.mcp, string(a.servers[0].ServerID))
	}
	return &unstable.PromptResponse{StopReason: unstable.StopReasonEndTurn}, nil
}

// TestTypeScriptProviderGoCaller: the Go caller's SDK client session calls
// an @modelcontextprotocol/server server that a TypeScript SDK client
// offers through its McpOverAcpProvider.
func TestTypeScriptProviderGoCaller(t *testing.T) {
	node := startNode(t, "ts-mcp-client.mjs")
	a := &scenarioAgent{agent: agent{acp: true, mcp: mcpacp.NewCaller(nil)}, results: make(chan error, 1)}
	conn := unstable.NewAgentConn(a, node.Stdout, node.Stdin, unstable.ConnOptions{})
	a.mcp.Bind(conn)
	go conn.Run(context.Background())
	if err := <-a.results; err != nil {
		t.Error(err)
	}
	node.Wait(t, false)
	log := node.Stderr.String()
	for _, want := range []string{"declared\n", "slow: aborted\n", "stopReason: end_turn\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("ts-mcp-client.mjs did not log %q:\n%s", want, log)
		}
	}
}

// TestGoProviderGoCaller runs the interop scenario Go to Go.
func TestGoProviderGoCaller(t *testing.T) {
	p := newPair(t, true)
	_, id, _, cancelled := register(t, p, nil)
	if err := mcptest.Scenario(context.Background(), p.agent.mcp, id); err != nil {
		t.Fatal(err)
	}
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
}
