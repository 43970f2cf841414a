package acp1_test

import (
	"context"
	"testing"

	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServerRequestHasNoChannel: a request from the server to the client
// while it handles a call (here roots/list) fails inside the server
// session (the SDK refuses it at revision 2026-07-28), and the call itself
// is answered.
func TestServerRequestHasNoChannel(t *testing.T) {
	p := newPair(t, true)
	s := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_, err := req.Session.ListRoots(ctx, nil)
		text := "no error"
		if err != nil {
			text = err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	reg, err := p.editor.mcp.Register("asks", mcpacp.ServerHandler(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, p, reg.ServerID, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "roots"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got == "no error" {
		t.Error("roots/list from the server succeeded over mcp/message")
	}
}
