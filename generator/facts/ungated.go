package facts

// Ungated is a method no capability gates, and why. With the gate rows it
// makes the decision for every method of a protocol explicit: against the
// pinned schema, a method with neither a method-level row nor an Ungated
// entry is an error, and so is an entry that names no method (see
// ir.UndecidedMethods), so a method upstream adds cannot go ungated
// unnoticed.
type Ungated struct {
	Method string
	Reason string
}

// Reasons shared by several entries.
const (
	baseline      = "baseline: every agent supports it, so no capability announces it"
	opening       = "opens the connection: nothing is negotiated before it"
	protocolLevel = "protocol level (handled by the runtime, for any method)"
	proxyChain    = "Proxy Chains: sent by the conductor to components it started, not negotiated between editor and agent"
	scopedMCP     = "scoped to an MCP server the client declared with type acp, a declaration gated by the agent's mcp acp capability"
)

// UngatedV1 are the ungated methods of ACP v1 (stable and unstable).
var UngatedV1 = []Ungated{
	{"initialize", opening},
	{"authenticate", "answers the authMethods the agent's initialize listed; an agent without any is never asked"},
	{"session/new", baseline},
	{"session/prompt", baseline + "; the content it carries is gated per block type (promptCapabilities)"},
	{"session/cancel", baseline},
	{"session/update", baseline + "; some update kinds are gated (rows on its /update)"},
	{"session/request_permission", baseline + " of clients"},
	{"session/set_mode", "allowed for a session whose setup answer listed modes, which is state, not a capability"},
	{"session/set_config_option", "allowed for a session whose setup answer listed config options, which is state, not a capability"},
	{"elicitation/complete", "completes a url elicitation/create, which is gated by elicitation.url"},
	{"auth/status_update", "sent by an agent that advertised auth.status, its own capability; the client advertises nothing for it"},
	{"$/cancel_request", protocolLevel},
	{"mcp/message", scopedMCP},
	{"proxy/initialize", proxyChain},
	{"proxy/successor", proxyChain},
}

// UngatedV2 are the ungated methods of the ACP v2 draft (stable and
// unstable).
var UngatedV2 = []Ungated{
	{"initialize", opening},
	{"session/update", baseline + "; some update kinds are gated"},
	{"session/request_permission", baseline + " of clients"},
	{"session/set_config_option", "allowed for a session whose setup answer listed config options, which is state, not a capability"},
	{"elicitation/complete", "completes a url elicitation/create, which is gated by elicitation.url"},
	{"auth/status_update", "sent by an agent that advertised auth.status, its own capability; the client advertises nothing for it"},
	{"tool_call/cancel", "allowed per tool call, while that tool call advertises capabilities.cancel: state, not a capability of initialize"},
	{"terminal/cancel", "allowed per terminal, while that terminal advertises capabilities.cancel: state, not a capability of initialize"},
	{"$/cancel_request", protocolLevel},
	{"mcp/message", scopedMCP},
	{"proxy/initialize", proxyChain},
	{"proxy/successor", proxyChain},
}

// UngatedForProtocol is the Ungated table of an ACP wire protocol version.
func UngatedForProtocol(version int) []Ungated {
	if version == 2 {
		return UngatedV2
	}
	return UngatedV1
}
