// Command agent is an ACP agent on stdio (v1 unstable) that takes MCP
// servers over ACP: for each prompt it calls the search tool of every
// server the client declared with type "acp", through an MCP client session
// of the official Go SDK, and streams what the tool answered.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type agent struct {
	unstable.UnimplementedAgentHandler
	conn    *unstable.AgentConn
	mcp     *mcpacp.Caller
	mu      sync.Mutex
	servers map[unstable.SessionID][]unstable.MCPServerACP
}

func (a *agent) Initialize(context.Context, *unstable.InitializeRequest) (*unstable.InitializeResponse, error) {
	yes := true
	return &unstable.InitializeResponse{
		ProtocolVersion:   unstable.CurrentProtocolVersion,
		AgentCapabilities: &unstable.AgentCapabilities{MCPCapabilities: &unstable.MCPCapabilities{ACP: &yes}},
	}, nil
}

func (a *agent) SessionNew(_ context.Context, p *unstable.NewSessionRequest) (*unstable.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := unstable.SessionID(fmt.Sprint("session-", len(a.servers)+1))
	a.servers[id] = acp1.ACPServers(p.MCPServers)
	return &unstable.NewSessionResponse{SessionID: id}, nil
}

// MCPMessage routes the client's request-scoped MCP notifications.
func (a *agent) MCPMessage(_ context.Context, n *unstable.MessageMCPNotification) {
	acp1.Notify(a.mcp, n)
}

func (a *agent) SessionPrompt(ctx context.Context, p *unstable.PromptRequest) (*unstable.PromptResponse, error) {
	var query strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			query.WriteString(b.Text.Text)
		}
	}
	a.mu.Lock()
	servers := a.servers[p.SessionID]
	a.mu.Unlock()
	for _, s := range servers {
		text, err := a.search(ctx, s, query.String())
		if err != nil {
			text = fmt.Sprintf("%s: %v", s.Name, err)
		}
		update := &unstable.SessionNotification{SessionID: p.SessionID, Update: unstable.AgentMessageChunkText(text + "\n")}
		if err := a.conn.SessionUpdate(ctx, update); err != nil {
			return nil, err
		}
	}
	return &unstable.PromptResponse{StopReason: unstable.StopReasonEndTurn}, nil
}

// search calls the search tool of s as on any MCP server.
func (a *agent) search(ctx context.Context, s unstable.MCPServerACP, query string) (string, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "example-agent", Version: "1.0.0"}, nil)
	session, err := a.mcp.Connect(ctx, client, string(s.ServerID))
	if err != nil {
		return "", err
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

func main() {
	info, _ := json.Marshal(map[string]string{"name": "example-agent", "version": "1.0.0"})
	a := &agent{mcp: mcpacp.NewCaller(&mcpacp.CallerOptions{ClientInfo: info}), servers: map[unstable.SessionID][]unstable.MCPServerACP{}}
	a.conn = unstable.NewAgentConn(a, os.Stdin, os.Stdout, unstable.ConnOptions{})
	a.mcp.Bind(a.conn)
	if err := a.conn.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
