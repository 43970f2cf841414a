package inspect

import (
	"slices"
	"testing"

	"github.com/acpgen/acpgen/conform"
)

// A v2 session, as examples/agent speaks it: a turn reports running, its
// output, then idle; a cancelled one idle with stopReason cancelled.
var v2Session = []step{
	`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"x","version":"1"},"capabilities":{}}}`,
	`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"0.1.0"},"capabilities":{"session":{}}}}`,
	`> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
	`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`,
	`> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi wait"}]}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"running"}}}`,
	`< {"jsonrpc":"2.0","id":2,"result":{"messageId":"user-1"}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"agent-1","content":{"type":"text","text":"hi"}}}}`,
	`> {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"cancelled"}}}`,
}

// The schema a message is judged by follows the negotiation: the router's
// rule picks the initialize request's version, the agent's answer the
// session's; a version without a schema is noted once.
func TestNegotiatedVersionPicksSchema(t *testing.T) {
	if fs := observeAll(t, v2Session); len(fs) > 0 {
		t.Errorf("findings on a valid v2 session: %v", fs)
	}
	// v1's initialize asking for 2 is judged by v2's schema, which requires info.
	fs := observeAll(t, []step{`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"clientCapabilities":{}}}`})
	if len(fs) != 1 || fs[0].Rule != ruleSchema.name || fs[0].Pointer != "/params/info" {
		t.Errorf("v1 initialize asking for 2: %v, want one schema finding at /params/info", fs)
	}
	// Asking for 65535 is routed to 2: a v2 body is valid.
	fs = observeAll(t, []step{`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":65535,"info":{"name":"x","version":"1"},"capabilities":{}}}`})
	if len(fs) > 0 {
		t.Errorf("v2 initialize asking for 65535: %v", fs)
	}
	// The agent answers 7, a version without a schema.
	fs = observeAll(t, append(slices.Clone(v1Session[:1]),
		`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":7,"agentCapabilities":{}}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`))
	if len(fs) != 1 || fs[0].Rule != ruleNoSchema.name || fs[0].Level != conform.Info {
		t.Errorf("protocolVersion 7: %v, want one informational %q", fs, ruleNoSchema.name)
	}
}

func TestV2TurnRules(t *testing.T) {
	ended := slices.Clone(v2Session[:9])
	fs := observeAll(t, append(ended,
		`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}`,
		`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"agent-1","content":{"type":"text","text":"late"}}}}`))
	if got, want := rules(fs), []string{ruleV2CancelEnds.name, ruleV2AfterIdle.name}; !slices.Equal(got, want) {
		t.Errorf("rules %q, want %q: %v", got, want, fs)
	}
}
