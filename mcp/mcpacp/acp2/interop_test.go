package acp2_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp2"
)

// recordingEditor keeps the agent's message chunks.
type recordingEditor struct {
	editor
	chunks chan string
}

func (e *recordingEditor) SessionUpdate(_ context.Context, n *unstable.UpdateSessionNotification) {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		e.chunks <- c.Content.Text.Text
	}
}

// TestGoProviderTypeScriptCallerV2: over ACP v2, the TypeScript SDK's
// McpOverAcpCaller (its experimental v2 unstable entry point, in an agent
// on stdio that advertises capabilities.session.mcp.acp) calls the Go
// provider's *mcp.Server: a tool with arguments, a progress notification
// (the slow call's "started", which the caller waits for before it
// cancels; the progress call's may reach the TypeScript caller after its
// answer, mcptest.ReportOptions.LateProgress), an inner error, and a slow
// call cancelled once it started, whose server-side context ends.
func TestGoProviderTypeScriptCallerV2(t *testing.T) {
	node := mcptest.StartNode(t, filepath.Join("..", "..", "..", "interop"), "ts-mcp-agent.mjs", "--v2")
	ed := &recordingEditor{editor: editor{mcp: mcpacp.NewProvider()}, chunks: make(chan string, 4)}
	conn := unstable.NewClientConn(ed, node.Stdout, node.Stdin, unstable.ConnOptions{})
	ed.mcp.Bind(conn)
	ctx := context.Background()
	go conn.Run(ctx)

	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{ProtocolVersion: unstable.CurrentProtocolVersion, Info: unstable.Implementation{Name: "go-editor", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	started, cancelled := make(chan string, 1), make(chan string, 1)
	reg, err := ed.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(started, cancelled)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl := acp2.Declarations(init, reg)
	if len(decl) != 1 {
		t.Fatalf("the TypeScript agent advertises capabilities.session.mcp.acp, yet %d declarations", len(decl))
	}
	s, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SessionPrompt(ctx, &unstable.PromptRequest{SessionID: s.SessionID, Prompt: []unstable.ContentBlock{unstable.TextBlock("go")}}); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	mcptest.CheckReport(t, []byte(<-ed.chunks), reg.ServerID, mcptest.ReportOptions{
		SlowCancelled: func(slow map[string]any) bool { return slow["code"] == float64(mcpacp.CodeCancelled) },
		LateProgress:  true, // see ReportOptions: the TypeScript SDK's v2 connection
	})
	<-started
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	node.Wait(t, true)
}

// scenarioAgent runs mcptest.Scenario on the first acp server the session
// declared when prompted, and hands the outcome to results.
type scenarioAgent struct {
	agent
	results chan error
	servers []unstable.MCPServerACP
}

func (a *scenarioAgent) SessionNew(_ context.Context, p *unstable.NewSessionRequest) (*unstable.NewSessionResponse, error) {
	a.servers = acp2.ACPServers(p.MCPServers)
	return &unstable.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *scenarioAgent) SessionPrompt(ctx context.Context, p *unstable.PromptRequest) (*unstable.PromptResponse, error) {
	if len(a.servers) == 0 {
		a.results <- errors.New("no acp server declared")
	} else {
		a.results <- mcptest.Scenario(ctx, a.mcp, string(a.servers[0].ServerID))
	}
	return &unstable.PromptResponse{MessageID: "m1"}, nil
}

// TestTypeScriptProviderGoCallerV2: over ACP v2, the Go caller's SDK client
// session calls an @modelcontextprotocol/server server that a TypeScript
// SDK v2 client offers through its McpOverAcpProvider, declared because
// the Go agent advertises capabilities.session.mcp.acp.
func TestTypeScriptProviderGoCallerV2(t *testing.T) {
	node := mcptest.StartNode(t, filepath.Join("..", "..", "..", "interop"), "ts-mcp-client.mjs", "--v2")
	a := &scenarioAgent{agent: agent{acp: true, mcp: mcpacp.NewCaller(nil)}, results: make(chan error, 1)}
	conn := unstable.NewAgentConn(a, node.Stdout, node.Stdin, unstable.ConnOptions{})
	a.mcp.Bind(conn)
	go conn.Run(context.Background())
	if err := <-a.results; err != nil {
		t.Error(err)
	}
	node.Wait(t, false)
	log := node.Stderr.String()
	for _, want := range []string{"declared\n", "slow: aborted\n", "messageId: m1\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("ts-mcp-client.mjs --v2 did not log %q:\n%s", want, log)
		}
	}
}
