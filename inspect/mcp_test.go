package inspect

import (
	"slices"
	"strings"
	"testing"
)

// A v1 session with MCP over ACP that follows the binding: the agent
// advertises mcpCapabilities.acp, the client declares an acp server, the
// agent's requests get their outcomes (an inner error among them), and the
// client's progress notification comes before its request's answer.
var mcpSession = []step{
	`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
	`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"acp":true}}}}`,
	`> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"type":"acp","name":"tools","serverId":"srv-1"}]}}`,
	`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
	`< {"jsonrpc":"2.0","id":"m1","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r1","method":"tools/call","params":{"name":"greet"}}}`,
	`> {"jsonrpc":"2.0","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r1","method":"notifications/progress","params":{"progressToken":"t","progress":1}}}`,
	`> {"jsonrpc":"2.0","id":"m1","result":{"result":{"content":[]}}}`,
	`< {"jsonrpc":"2.0","id":"m2","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r2","method":"tools/call","params":{"name":"nope"}}}`,
	`> {"jsonrpc":"2.0","id":"m2","result":{"error":{"code":-32602,"message":"unknown tool"}}}`,
	`< {"jsonrpc":"2.0","id":"m3","method":"mcp/message","params":{"serverId":"srv-9","requestId":"r3","method":"tools/list"}}`,
	`> {"jsonrpc":"2.0","id":"m3","error":{"code":-33001,"message":"no such server"}}`,
}

// mcpRules are the rules of the findings a script draws, with the side
// that sent each frame ("> " client, "< " agent) and its JSON pointer.
func mcpRules(t *testing.T, script []step) []string {
	t.Helper()
	c := NewChecker(unstableProfiles(t))
	var out []string
	for _, s := range script {
		dir := ToAgent
		if strings.HasPrefix(s, "< ") {
			dir = ToClient
		}
		for _, f := range c.Observe(dir, []byte(s[2:])).Findings {
			out = append(out, s[:1]+" "+f.Rule+" "+f.Pointer)
		}
	}
	return out
}

// inspect judges the binding rules of mcp/message it can see: a session
// that follows them draws no finding; an MCP error sent as the ACP error,
// a requestId reused while active (and the client running it), and a
// notification after its request's answer each draw their rule on the
// side that broke it; a declaration the agent did not advertise breaks
// its gate.
func TestMCPMessageBindingJudged(t *testing.T) {
	if got := mcpRules(t, mcpSession); len(got) != 0 {
		t.Fatalf("findings on a session that follows the binding: %v", got)
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  []string
	}{
		{"inner error as the ACP error", []step{
			`< {"jsonrpc":"2.0","id":"m4","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r4","method":"tools/call","params":{"name":"nope"}}}`,
			`> {"jsonrpc":"2.0","id":"m4","error":{"code":-32601,"message":"unknown tool"}}`,
		}, []string{"> mcp: inner errors as outcomes /error/code"}},
		{"requestId reused while active, both run", []step{
			`< {"jsonrpc":"2.0","id":"m5","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r5","method":"tools/call","params":{"name":"slow"}}}`,
			`< {"jsonrpc":"2.0","id":"m6","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r5","method":"tools/call","params":{"name":"slow"}}}`,
			`> {"jsonrpc":"2.0","id":"m5","result":{"result":{"content":[]}}}`,
			`> {"jsonrpc":"2.0","id":"m6","result":{"result":{"content":[]}}}`,
		}, []string{"< mcp: requestId unique among active requests /params/requestId", "> mcp: requestId unique among active requests "}},
		{"requestId reused while active, refused", []step{
			`< {"jsonrpc":"2.0","id":"m5","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r5","method":"tools/call","params":{"name":"slow"}}}`,
			`< {"jsonrpc":"2.0","id":"m6","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r5","method":"tools/call","params":{"name":"slow"}}}`,
			`> {"jsonrpc":"2.0","id":"m6","error":{"code":-32602,"message":"duplicate requestId"}}`,
			`> {"jsonrpc":"2.0","id":"m5","result":{"result":{"content":[]}}}`,
		}, []string{"< mcp: requestId unique among active requests /params/requestId"}},
		{"notification after the answer", []step{
			`> {"jsonrpc":"2.0","method":"mcp/message","params":{"serverId":"srv-1","requestId":"r1","method":"notifications/progress","params":{"progressToken":"t","progress":2}}}`,
		}, []string{"> mcp: notifications within their request /params/requestId"}},
	} {
		got := mcpRules(t, append(slices.Clone(mcpSession), c.steps...))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
	undeclared := slices.Clone(mcpSession[:4])
	undeclared[1] = `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`
	if got := mcpRules(t, undeclared); !slices.Contains(got, "> gates: granted capabilities /params/mcpServers/0") {
		t.Errorf("an acp declaration the agent did not advertise: findings %q, want its gate", got)
	}
}
