package acp1_test

import (
	"bufio"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// TestGoProviderGoCallerOverNetwork runs the interop scenario with the
// agent served by runtime/acphttp on loopback and the editor dialing it,
// over each network profile.
func TestGoProviderGoCallerOverNetwork(t *testing.T) {
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(profile), func(t *testing.T) {
			results := make(chan error, 1)
			srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
				a := &scenarioAgent{agent: agent{acp: true, mcp: mcpacp.NewCaller(nil)}, results: results}
				conn := unstable.NewAgentConn(a, c, c, unstable.ConnOptions{})
				a.mcp.Bind(conn)
				return conn.Run(ctx)
			}, acphttp.Options{})
			hs := httptest.NewServer(srv)
			defer hs.Close()

			ctx := context.Background()
			c, err := acphttp.Dial(ctx, hs.URL, acphttp.DialOptions{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ed := &editor{mcp: mcpacp.NewProvider()}
			conn := unstable.NewClientConn(ed, c, c, unstable.ConnOptions{})
			ed.mcp.Bind(conn)
			go conn.Run(ctx)
			init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
			if err != nil {
				t.Fatal(err)
			}
			cancelled := make(chan string, 1)
			reg, err := ed.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, cancelled)), nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: "/", MCPServers: acp1.Declarations(init, reg)})
			if err != nil {
				t.Fatal(err)
			}
			prompt := &unstable.PromptRequest{SessionID: s.SessionID, Prompt: []unstable.ContentBlock{unstable.TextBlock("go")}}
			if _, err := conn.SessionPrompt(ctx, prompt); err != nil {
				t.Fatal(err)
			}
			if err := <-results; err != nil {
				t.Fatal(err)
			}
			if got := <-cancelled; got != context.Canceled.Error() {
				t.Errorf("the slow tool's context ended with %q", got)
			}
		})
	}
}

// TestGoProviderTypeScriptCallerOverNetwork: ts-mcp-agent.mjs serves ACP
// with the TypeScript SDK's AcpServer; the Go editor dials it over each
// profile and runs what TestGoProviderTypeScriptCaller runs.
func TestGoProviderTypeScriptCallerOverNetwork(t *testing.T) {
	node := startNode(t, "ts-mcp-agent.mjs", "--listen")
	line, err := bufio.NewReader(node.Stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("ts-mcp-agent.mjs printed %q (%v)", line, err)
	}
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(profile), func(t *testing.T) {
			c, err := acphttp.Dial(context.Background(), url, acphttp.DialOptions{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			typeScriptCaller(t, c, c)
		})
	}
}
