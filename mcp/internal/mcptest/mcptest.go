// Package mcptest holds what the mcp module's tests share: the MCP server
// every pair of the interop matrix offers and the scenario every caller runs
// (interop/ts-mcp-client.mjs and ts-mcp-agent.mjs are their TypeScript
// sides).
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetIn struct {
	Name string `json:"name"`
}

// Server is the MCP server the tests offer, as interop/ts-mcp-client.mjs
// does: greet (arguments and a text result), progress (one progress
// notification, then a result) and slow (a "started"
// progress notification, then blocks until cancelled, reporting start and
// cancellation on the channels).
func Server(started, cancelled chan<- string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "project-tools", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "greets"}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
			if err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: "started"}); err != nil {
				return nil, nil, err
			}
		}
		if started != nil {
			started <- "slow"
		}
		<-ctx.Done()
		if cancelled != nil {
			cancelled <- fmt.Sprint(ctx.Err())
		}
		return nil, nil, ctx.Err()
	})
	return s
}

// Scenario connects an SDK client session through caller to serverID and
// runs what every pair of the interop matrix runs: greet with arguments,
// progress with its notification, an unknown tool's inner error, and slow cancelled
// once its "started" progress arrived. It returns the first difference from
// what the server should answer.
func Scenario(ctx context.Context, caller *mcpacp.Caller, serverID string) error {
	return ScenarioOver(ctx, caller.Transport(serverID))
}

// ScenarioOver runs Scenario's calls over t, at revision 2026-07-28.
func ScenarioOver(ctx context.Context, t mcp.Transport) error {
	progress := make(chan *mcp.ProgressNotificationParams, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { progress <- r.Params },
	})
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: mcpacp.ProtocolVersion})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "ada"}})
	if err != nil {
		return fmt.Errorf("greet: %w", err)
	}
	if got := firstText(res); got != "hello ada" {
		return fmt.Errorf("greet answered %q", got)
	}

	params := &mcp.CallToolParams{Name: "progress"}
	params.SetProgressToken("tok-1")
	if res, err = cs.CallTool(ctx, params); err != nil {
		return fmt.Errorf("progress: %w", err)
	}
	if got := firstText(res); got != "done" {
		return fmt.Errorf("progress answered %q", got)
	}
	if n := <-progress; n.ProgressToken != "tok-1" || n.Progress != 1 || n.Total != 2 || n.Message != "half way" {
		return fmt.Errorf("progress notification %+v", n)
	}

	// An unknown tool is an inner error, -32602 from both SDKs' servers; an
	// outer error would say "mcp/message:".
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || strings.HasPrefix(je.Message, "mcp/message:") {
		return fmt.Errorf("unknown tool: %v, want the server's inner -32602", err)
	}

	slowCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	params = &mcp.CallToolParams{Name: "slow"}
	params.SetProgressToken("slow-1")
	go func() { _, err := cs.CallTool(slowCtx, params); errc <- err }()
	if n := <-progress; n.ProgressToken != "slow-1" || n.Message != "started" {
		return fmt.Errorf("slow's notification %+v", n)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("cancelled slow call returned %v", err)
	}
	return nil
}

func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return fmt.Sprintf("%d content blocks", len(res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("a %T block", res.Content[0])
}
