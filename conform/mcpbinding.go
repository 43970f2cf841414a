package conform

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/acpgen/acpgen/generator/ir"
)

// MCP over ACP: the client side's binding rules for mcp/message that the
// scripted agent can provoke, sent to the first ACP-transport MCP server
// the session declares. Declaring one without the agent's capability is a
// gate, judged with the others. The rules are the TypeScript SDK's binding
// (the schema states the outcome's shape, not the codes): SHOULD.
const srcMCPBinding = "binding: mcp/message (the TypeScript SDK's MCP over ACP)"

// mcpBindingCodes are the outer error codes of binding failures (a
// malformed envelope or a duplicate, cancelled, a resource limit, no such
// server, a backend failed without an MCP outcome) and JSON-RPC's internal
// error.
var mcpBindingCodes = []int{-32602, -32800, -33000, -33001, -33002, -32603}

// mcpMessageRequest is the profile's mcp/message request, nil when the
// schema has none (stable).
func mcpMessageRequest(p *Profile) *ir.Method {
	for _, m := range p.Model.Methods {
		if m.Wire == "mcp/message" && m.Side == "client" && !m.Notification {
			return m
		}
	}
	return nil
}

// mcpBinding sends an unknown MCP method, then two requests sharing one
// requestId, to the session's first acp server.
func (s *script) mcpBinding(session string) {
	s.mu.Lock()
	servers := s.mcpACP[session]
	s.mu.Unlock()
	if mcpMessageRequest(s.run.p) == nil || len(servers) == 0 {
		return
	}
	params := func(requestID, method string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"serverId": servers[0], "requestId": requestID, "method": method,
			"params": map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "acpgen-conform", "version": "1"},
			}}})
		return b
	}
	res := Result{Category: "requests", Case: "mcp/message: an MCP error is the inner outcome", Level: Should, Source: srcMCPBinding,
		Expected: `an unknown MCP method answered with the outcome {"error": ...}; an ACP error only with a binding failure's code`}
	f, err := s.request("mcp/message", params("acpgen-conform-unknown", "acpgen/conform_unknown"))
	res.Verdict, res.Observed = mcpOutcomeVerdict(f, err)
	s.run.add(res)

	dup := Result{Category: "requests", Case: "mcp/message: a requestId reused while active refused", Level: Should, Source: srcMCPBinding,
		Expected: "error -32602 for one of two requests sharing (serverId, requestId), sent together"}
	var fs [2]*frame
	var errs [2]error
	var wg sync.WaitGroup
	for i := range fs {
		wg.Go(func() { fs[i], errs[i] = s.request("mcp/message", params("acpgen-conform-dup", "tools/list")) })
	}
	wg.Wait()
	dup.Verdict, dup.Observed = mcpDuplicateVerdict(fs, errs)
	s.run.add(dup)
}

// mcpOutcomeVerdict judges the answer to an mcp/message of an unknown MCP
// method: the inner error as the result passes; an ACP error with a
// binding failure's code warns (the request did not reach the server); any
// other ACP error fails (an MCP error sent as the ACP error).
func mcpOutcomeVerdict(f *frame, err error) (Verdict, string) {
	switch {
	case err != nil:
		return Fail, err.Error()
	case f.Error != nil && f.Error.Code != nil && slices.Contains(mcpBindingCodes, *f.Error.Code):
		return Warn, describe(f) + " (a binding failure: the request did not reach the server)"
	case f.Error != nil:
		return Fail, describe(f) + " (an MCP server's error travels as the outcome, not as the ACP error)"
	}
	var outcome struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(f.Result, &outcome) == nil && outcome.Error != nil {
		return Pass, "the outcome {\"error\": " + string(outcome.Error) + "}"
	}
	return Warn, "the outcome " + string(f.Result) + " (no error for an unknown method)"
}

// mcpDuplicateVerdict judges two requests sent together with one
// (serverId, requestId): one refused -32602 passes; both answered with
// outcomes is noted, not judged (the first may have ended before the second was
// read).
func mcpDuplicateVerdict(fs [2]*frame, errs [2]error) (Verdict, string) {
	for i := range fs {
		if errs[i] != nil {
			return Fail, errs[i].Error()
		}
	}
	obs := fmt.Sprintf("answered %s and %s", describe(fs[0]), describe(fs[1]))
	switch {
	case codeIs(fs[0], -32602) || codeIs(fs[1], -32602):
		return Pass, obs
	case fs[0].Error == nil && fs[1].Error == nil:
		return Noted, obs + ": not observed (the first may have ended before the second was read)"
	}
	return Fail, obs + ", want -32602 for the one reusing an active requestId"
}
