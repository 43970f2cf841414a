package acp1_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
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
	ed := &recordingEditor{editor: editor{mcp: mcpacp.NewProvider()}, chunks: make(chan string, 4)}
	conn := unstable.NewClientConn(ed, node.stdout, node.stdin, unstable.ConnOptions{})
	ed.mcp.Bind(conn)
	ctx := context.Background()
	go conn.Run(ctx)

	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	started, cancelled := make(chan string, 1), make(chan string, 1)
	reg, err := ed.mcp.Register("project-tools", mcpacp.ServerHandler(testServer(started, cancelled)), nil)
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
	var report struct {
		ServerID string
		Greet    string
		Progress struct {
			Result string
			Notes  []struct {
				Method string
				Params map[string]any
			}
		}
		Fail map[string]any
		Slow map[string]any
	}
	if err := json.Unmarshal([]byte(<-ed.chunks), &report); err != nil {
		t.Fatal(err)
	}
	if report.ServerID != reg.ServerID || report.Greet != "hello ada" || report.Progress.Result != "done" {
		t.Errorf("report %+v", report)
	}
	wantNote := map[string]any{"progressToken": "tok-1", "progress": 1.0, "total": 2.0, "message": "half way"}
	if n := report.Progress.Notes; len(n) != 1 || n[0].Method != "notifications/progress" || !reflect.DeepEqual(n[0].Params, wantNote) {
		t.Errorf("progress notifications %+v, want one with %v", n, wantNote)
	}
	wantFail := map[string]any{"error": map[string]any{"code": float64(failCode), "message": "failed on purpose"}}
	if !reflect.DeepEqual(report.Fail, wantFail) {
		t.Errorf("fail outcome %v, want %v", report.Fail, wantFail)
	}
	if report.Slow["code"] != float64(mcpacp.CodeCancelled) {
		t.Errorf("slow call: %v, want a -32800 rejection", report.Slow)
	}
	<-started
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	node.wait(t)
}
