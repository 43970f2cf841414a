package inspect

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// MCP over ACP (the unstable schema's mcp/message): the binding rules a
// relay sees on the wire. Declaring an acp server without the agent's
// capability is a gate (gates: granted capabilities); these are the rest,
// the TypeScript SDK's binding (the schema states the outcome's shape, not
// the codes): SHOULD, as conform client judges them.
const (
	methodMCP = "mcp/message"
	srcMCP    = "binding: mcp/message (the TypeScript SDK's MCP over ACP)"
)

var (
	// ruleMCPRequestIDs: an agent's mcp/message reuses no (serverId,
	// requestId) still active, and the client refuses one that does -32602.
	ruleMCPRequestIDs = rule{"mcp: requestId unique among active requests", conform.Should, srcMCP}
	// ruleMCPOuterErrors: once the client declared an acp server, an
	// mcp/message answer is the inner outcome ({result} or {error}); an
	// ACP error only with a binding failure's code.
	ruleMCPOuterErrors = rule{"mcp: inner errors as outcomes", conform.Should, srcMCP}
	// ruleMCPNotifyScope: the client's mcp/message notifications name a
	// request still active.
	ruleMCPNotifyScope = rule{"mcp: notifications within their request", conform.Should, srcMCP}
)

// mcpBindingCodes are the outer codes of binding failures: a malformed
// envelope or a duplicate (-32602), cancelled (-32800), a resource limit
// (-33000), no such server (-33001), a backend failed without an outcome
// (-33002), and JSON-RPC's internal error.
var mcpBindingCodes = []int{-32602, -32800, -33000, -33001, -33002, -32603}

// mcpState is what the checker keeps of MCP over ACP: whether the client
// declared an acp server, the active requests by (serverId, requestId),
// and which outer request carries each.
type mcpState struct {
	declared bool
	active   *bounded[int]        // "serverId\x00requestId" -> requests carrying it
	outer    *bounded[mcpRequest] // by the outer request's id key
}

// mcpRequest is an agent's mcp/message request: its pair, and whether the
// pair was already active when it was sent.
type mcpRequest struct {
	key string
	dup bool
}

// mcpEnvelope is mcp/message's params, as far as the binding reads them.
type mcpEnvelope struct {
	ServerID  *string `json:"serverId"`
	RequestID *string `json:"requestId"`
}

func (e mcpEnvelope) key() (string, bool) {
	if e.ServerID == nil || e.RequestID == nil {
		return "", false
	}
	return *e.ServerID + "\x00" + *e.RequestID, true
}

func (c *Checker) mcpInit() *mcpState {
	if c.mcp.active == nil {
		c.mcp.active, c.mcp.outer = newBounded[int](jsonrpc.MaxAwaited), newBounded[mcpRequest](jsonrpc.MaxAwaited)
	}
	return &c.mcp
}

// mcpCall follows a request or notification through the binding.
func (c *Checker) mcpCall(j *judgement, method string, id, params json.RawMessage) {
	switch {
	case j.dir == ToAgent && declaresServers(method):
		var p struct {
			MCPServers []struct {
				Type string `json:"type"`
			} `json:"mcpServers"`
		}
		if json.Unmarshal(params, &p) == nil && slices.ContainsFunc(p.MCPServers, func(s struct {
			Type string `json:"type"`
		}) bool {
			return s.Type == "acp"
		}) {
			c.mcpInit().declared = true
		}
	case method != methodMCP:
	case j.dir == ToClient && id != nil:
		c.mcpRequest(j, id, params)
	case j.dir == ToAgent && id == nil:
		var env mcpEnvelope
		if json.Unmarshal(params, &env) != nil {
			return
		}
		key, ok := env.key()
		if n, _ := c.mcpInit().active.get(key); ok && n == 0 {
			j.add(ruleMCPNotifyScope, "/params/requestId", fmt.Sprintf("serverId %q, requestId %q: no such request is active (a request-scoped notification goes before the answer)", *env.ServerID, *env.RequestID))
		}
	}
}

// declaresServers reports the methods whose params carry mcpServers.
func declaresServers(method string) bool {
	switch method {
	case "session/new", "session/load", "session/resume", "session/fork":
		return true
	}
	return false
}

// mcpRequest records an agent's mcp/message request as active.
func (c *Checker) mcpRequest(j *judgement, id, params json.RawMessage) {
	var env mcpEnvelope
	if json.Unmarshal(params, &env) != nil {
		return
	}
	key, ok := env.key()
	if !ok {
		return
	}
	s := c.mcpInit()
	n, _ := s.active.get(key)
	if n > 0 {
		j.add(ruleMCPRequestIDs, "/params/requestId", fmt.Sprintf("serverId %q, requestId %q is already active", *env.ServerID, *env.RequestID))
	}
	s.active.put(key, n+1)
	s.outer.put(idKey(id), mcpRequest{key, n > 0})
}

// mcpAnswer judges the client's answer to an mcp/message request and ends
// the request.
func (c *Checker) mcpAnswer(j *judgement, e envelope) {
	if c.mcp.outer == nil {
		return
	}
	idk := idKey(e.ID)
	r, ok := c.mcp.outer.get(idk)
	if !ok {
		return
	}
	c.mcp.outer.del(idk)
	if n, _ := c.mcp.active.get(r.key); n > 1 {
		c.mcp.active.put(r.key, n-1)
	} else {
		c.mcp.active.del(r.key)
	}
	code, hasCode := errorCode(e.Error)
	switch {
	case r.dup && (e.Error == nil || !hasCode || code != -32602):
		j.add(ruleMCPRequestIDs, "", "a request reusing an active (serverId, requestId) answered "+answer(e, hasCode, code)+", want error -32602")
	case e.Error != nil && c.mcp.declared && hasCode && !slices.Contains(mcpBindingCodes, code):
		j.add(ruleMCPOuterErrors, "/error/code", fmt.Sprintf("ACP error %d: an MCP server's error travels as the outcome {\"error\": ...}; ACP errors are binding failures (%v)", code, mcpBindingCodes))
	}
}
