// Command editor is an ACP client that offers the agent it starts a
// read-only project search MCP server over the ACP connection (MCP over
// ACP, v1 unstable): it registers the server, declares it in session/new
// when the agent advertises mcpCapabilities.acp, sends the query as one
// prompt and prints the agent's message chunks.
//
// Usage: editor [-root DIR] -query WORD -- AGENT [ARGS...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
)

// editor answers mcp/message through its Provider and prints what the agent
// streams.
type editor struct {
	unstable.UnimplementedClientHandler
	mcp *mcpacp.Provider
}

func (e *editor) MCPMessage(ctx context.Context, p *unstable.MessageMCPRequest) (*unstable.MessageMCPResponse, error) {
	return acp1.Serve(ctx, e.mcp, p)
}

func (e *editor) SessionUpdate(_ context.Context, n *unstable.SessionNotification) {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		fmt.Print(c.Content.Text.Text)
	}
}

func main() {
	root := flag.String("root", ".", "the project directory the search tool reads")
	query := flag.String("query", "", "the text to search for")
	flag.Parse()
	if *query == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: editor [-root DIR] -query WORD -- AGENT [ARGS...]")
		os.Exit(2)
	}
	if err := run(*root, *query, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "editor:", err)
		os.Exit(1)
	}
}

func run(root, query string, agentCmd []string) error {
	search, err := newSearchServer(root)
	if err != nil {
		return err
	}
	cmd := exec.Command(agentCmd[0], agentCmd[1:]...)
	cmd.Stderr = os.Stderr
	toAgent, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	fromAgent, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	e := &editor{mcp: mcpacp.NewProvider()}
	conn := unstable.NewClientConn(e, fromAgent, toAgent, unstable.ConnOptions{})
	e.mcp.Bind(conn)
	ctx := context.Background()
	go conn.Run(ctx)

	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		return err
	}
	reg, err := e.mcp.Register("project-search", mcpacp.ServerHandler(search), nil)
	if err != nil {
		return err
	}
	defer reg.Close()
	// Declared only to an agent that advertised MCP over ACP.
	servers := acp1.Declarations(init, reg)
	if len(servers) == 0 {
		return fmt.Errorf("the agent does not take MCP servers over ACP")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	s, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: cwd, MCPServers: servers})
	if err != nil {
		return err
	}
	prompt := []unstable.ContentBlock{unstable.TextBlock(query)}
	if _, err := conn.SessionPrompt(ctx, &unstable.PromptRequest{SessionID: s.SessionID, Prompt: prompt}); err != nil {
		return err
	}
	toAgent.Close()
	return cmd.Wait()
}
