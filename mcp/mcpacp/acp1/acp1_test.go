package acp1_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// register offers testServer on p's editor and declares it in session/new;
// it returns the registration and the serverId the agent received.
func register(t testing.TB, p *pair, o *mcpacp.ServerOptions) (*mcpacp.Registration, string, chan string, chan string) {
	t.Helper()
	started, cancelled := make(chan string, 4), make(chan string, 4)
	reg, err := p.editor.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(started, cancelled)), o)
	if err != nil {
		t.Fatal(err)
	}
	decl := acp1.Declarations(p.initRes, reg)
	if _, err := p.client.SessionNew(context.Background(), &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl}); err != nil {
		t.Fatal(err)
	}
	got := acp1.ACPServers(<-p.agent.sessions)
	if len(got) != 1 || got[0].Name != "project-tools" || string(got[0].ServerID) != reg.ServerID {
		t.Fatalf("the agent received acp servers %+v, want project-tools as %q", got, reg.ServerID)
	}
	return reg, reg.ServerID, started, cancelled
}

func connect(t *testing.T, p *pair, serverID string, progress chan<- *mcp.ProgressNotificationParams) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if progress != nil {
				progress <- r.Params
			}
		},
	})
	cs, err := p.agent.mcp.Connect(context.Background(), client, serverID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content %+v, want one block", res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestCallToolWithArguments(t *testing.T) {
	p := newPair(t, true)
	_, id, _, _ := register(t, p, nil)
	cs := connect(t, p, id, nil)
	if v := cs.InitializeResult().ProtocolVersion; v != mcpacp.ProtocolVersion {
		t.Errorf("negotiated MCP revision %q, want %q", v, mcpacp.ProtocolVersion)
	}
	if name := cs.InitializeResult().ServerInfo; name == nil || name.Name != "project-tools" {
		t.Errorf("server info %+v, want project-tools", name)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "hello ada" {
		t.Errorf("greet answered %q, want %q", got, "hello ada")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"greet", "progress", "slow"}) {
		t.Errorf("tools %v", names)
	}
}

func TestProgressNotificationBeforeResult(t *testing.T) {
	p := newPair(t, true)
	_, id, _, _ := register(t, p, nil)
	progress := make(chan *mcp.ProgressNotificationParams, 4)
	cs := connect(t, p, id, progress)
	params := &mcp.CallToolParams{Name: "progress"}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "done" {
		t.Errorf("progress answered %q", got)
	}
	// The SDK hands notifications to their handler apart from answers, so
	// the progress may reach it after CallTool returned.
	n := <-progress
	if n.ProgressToken != "tok-1" || n.Progress != 1 || n.Total != 2 || n.Message != "half way" {
		t.Errorf("progress %+v", n)
	}
	// On ACP the notification precedes the answer: Request has delivered it
	// when it returns.
	var notes []string
	out, err := p.agent.mcp.Request(context.Background(), id, "", "tools/call",
		json.RawMessage(`{"name":"progress","_meta":{"progressToken":7}}`),
		func(method string, params json.RawMessage) { notes = append(notes, method+" "+string(params)) })
	if err != nil || out.Error != nil {
		t.Fatalf("%v %+v", err, out)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "notifications/progress ") || !strings.Contains(notes[0], `"progressToken":7`) {
		t.Errorf("notifications before the answer: %q", notes)
	}
}

func TestInnerErrorIsAnOutcome(t *testing.T) {
	p := newPair(t, true)
	_, id, _, _ := register(t, p, nil)
	cs := connect(t, p, id, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no-such-tool"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("calling an unknown tool: %v, want the server's -32602", err)
	}
	// On the wire it is an answer carrying {error}, not an ACP error.
	out, err := p.agent.mcp.Request(context.Background(), id, "", "tools/call", json.RawMessage(`{"name":"no-such-tool"}`), nil)
	if err != nil {
		t.Fatalf("outer error %v, want an inner outcome", err)
	}
	if out.Error == nil || out.Error.Code != jsonrpc.CodeInvalidParams || out.Result != nil {
		t.Fatalf("outcome %+v, want the inner error -32602", out)
	}
}

func TestCancelSlowCall(t *testing.T) {
	p := newPair(t, true)
	_, id, started, cancelled := register(t, p, nil)
	cs := connect(t, p, id, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	// The cancel crossed ACP ($/cancel_request) and reached the tool.
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the tool's context ended with %q", got)
	}
	// The session stays usable.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "bo"}})
	if err != nil || text(t, res) != "hello bo" {
		t.Fatalf("call after cancel: %v", err)
	}
}

func rpcCode(t *testing.T, err error) wire.ErrorCode {
	t.Helper()
	var rpc *wire.RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("error %v (%T), want an ACP error", err, err)
	}
	return rpc.Code
}

// send sends an mcp/message request as given, with no caller in between.
func send(ctx context.Context, p *pair, env string) (json.RawMessage, error) {
	res, err := p.agentC.Send(ctx, mcpacp.Method, wire.Raw(env))
	return json.RawMessage(res), err
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestBindingErrors(t *testing.T) {
	p := newPair(t, true)
	reg, id, started, _ := register(t, p, &mcpacp.ServerOptions{MaxActive: 1})
	ctx := context.Background()

	_, err := send(ctx, p, `{"serverId":"nobody","requestId":"r1","method":"tools/list","params":{`+meta+`}}`)
	if c := rpcCode(t, err); c != mcpacp.CodeServerUnavailable {
		t.Errorf("unknown server: %d, want -33001", c)
	}

	slow := `{"serverId":"` + id + `","requestId":"r1","method":"tools/call","params":{"name":"slow",` + meta + `}}`
	first := make(chan error, 1)
	go func() { _, err := send(ctx, p, slow); first <- err }()
	<-started
	_, err = send(ctx, p, slow)
	if c := rpcCode(t, err); c != mcpacp.CodeInvalidParams {
		t.Errorf("duplicate active request id: %d, want -32602", c)
	}
	_, err = send(ctx, p, `{"serverId":"`+id+`","requestId":"r2","method":"tools/list","params":{`+meta+`}}`)
	if c := rpcCode(t, err); c != mcpacp.CodeResourceLimit {
		t.Errorf("over MaxActive: %d, want -33000", c)
	}

	// Unregistering cancels what is active, and refuses what follows.
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if c := rpcCode(t, <-first); c != mcpacp.CodeCancelled {
		t.Errorf("active request at unregistration: %d, want -32800", c)
	}
	_, err = send(ctx, p, `{"serverId":"`+id+`","requestId":"r3","method":"tools/list","params":{`+meta+`}}`)
	if c := rpcCode(t, err); c != mcpacp.CodeServerUnavailable {
		t.Errorf("after unregistration: %d, want -33001", c)
	}
	// A server id is never reused on the connection.
	if _, err := p.editor.mcp.Register("again", mcpacp.ServerHandler(mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil)), &mcpacp.ServerOptions{ServerID: id}); err == nil {
		t.Error("registering a used server id again succeeded")
	}
}

func TestInnerMetaRequired(t *testing.T) {
	p := newPair(t, true)
	_, id, _, _ := register(t, p, nil)
	ctx := context.Background()
	for _, c := range []struct {
		name, params string
		code         int64
	}{
		{"no _meta", `{}`, -32602},
		{"another revision", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022},
		{"no capabilities", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, -32602},
	} {
		res, err := send(ctx, p, `{"serverId":"`+id+`","requestId":"`+c.name+`","method":"tools/list","params":`+c.params+`}`)
		if err != nil {
			t.Fatalf("%s: outer error %v, want an inner one", c.name, err)
		}
		var out mcpacp.Outcome
		if err := json.Unmarshal(res, &out); err != nil || out.Error == nil || out.Error.Code != c.code {
			t.Errorf("%s: answer %s, want inner error %d", c.name, res, c.code)
		}
		if c.code == -32022 {
			var data struct{ Supported []string }
			if json.Unmarshal(out.Error.Data, &data); !slices.Equal(data.Supported, []string{mcpacp.ProtocolVersion}) {
				t.Errorf("unsupported revision data %s", out.Error.Data)
			}
		}
	}
}

func TestDeclaredOnlyWhenAdvertised(t *testing.T) {
	p := newPair(t, false)
	reg, err := p.editor.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := acp1.Declarations(p.initRes, reg); len(d) != 0 {
		t.Fatalf("declarations %+v for an agent without mcpCapabilities.acp", d)
	}
	// The generated gate refuses an acp declaration sent regardless.
	forced := []unstable.MCPServer{unstable.NewMCPServerACP(unstable.MCPServerACP{Name: reg.Name, ServerID: unstable.MCPServerACPID(reg.ServerID)})}
	if _, err := p.client.SessionNew(context.Background(), &unstable.NewSessionRequest{Cwd: "/", MCPServers: forced}); err == nil {
		t.Error("session/new carried an acp declaration to an agent without mcpCapabilities.acp")
	}
	p2 := newPair(t, true)
	reg2, _ := p2.editor.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, nil)), nil)
	d := acp1.Declarations(p2.initRes, reg2)
	b, _ := json.Marshal(d)
	want := `[{"type":"acp","name":"project-tools","serverId":"` + reg2.ServerID + `"}]`
	if string(b) != want {
		t.Errorf("declaration %s, want %s", b, want)
	}
}

// TestFirstFrameIsDiscover: the SDK's client opens with server/discover at
// revision 2026-07-28 and never sends initialize over the binding.
func TestFirstFrameIsDiscover(t *testing.T) {
	p := newPair(t, true)
	var mu sync.Mutex
	var methods []string
	inner := mcpacp.ServerHandler(mcptest.Server(nil, nil))
	reg, err := p.editor.mcp.Register("project-tools", mcpacp.HandlerFunc(func(ctx context.Context, r *mcpacp.Request, n mcpacp.NotifyFunc) (*mcpacp.Outcome, error) {
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
		return inner.ServeMCP(ctx, r, n)
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, p, reg.ServerID, nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(methods, []string{"server/discover", "tools/call"}) {
		t.Errorf("inner methods %v, want server/discover then tools/call", methods)
	}
}

// TestDiscoverRefusedConnectFails: a server that refuses server/discover
// makes the SDK fall back to initialize; the caller fills its inner _meta
// as for every request, so the SDK's server takes it as 2026-07-28, which
// has no initialize (inner -32601), and Connect fails.
func TestDiscoverRefusedConnectFails(t *testing.T) {
	p := newPair(t, true)
	var mu sync.Mutex
	var methods []string
	inner := mcpacp.ServerHandler(mcptest.Server(nil, nil))
	reg, err := p.editor.mcp.Register("old", mcpacp.HandlerFunc(func(ctx context.Context, r *mcpacp.Request, n mcpacp.NotifyFunc) (*mcpacp.Outcome, error) {
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
		if r.Method == "server/discover" {
			return &mcpacp.Outcome{Error: &mcpacp.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}}, nil
		}
		return inner.ServeMCP(ctx, r, n)
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, nil)
	_, err = p.agent.mcp.Connect(context.Background(), client, reg.ServerID)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound || strings.HasPrefix(je.Message, "mcp/message:") {
		t.Fatalf("Connect: %v, want the inner -32601 answering initialize", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(methods, []string{"server/discover", "initialize"}) {
		t.Errorf("handler saw %v", methods)
	}
}
