package ir

// This file is the one reading of which side handles a method: the IR's
// method table is built from it, and the meta files (generator/meta), the
// overlay gates and the schema comparison (generator/schemadiff) list the
// IR's methods, so they cannot disagree.

// Method kinds, as the routing unions classify the defs they reference.
const (
	KindRequest      = "request"
	KindNotification = "notification"
	KindResponse     = "response"
)

// routingUnion is a $defs union that routes messages: its name says the sender
// (AgentRequest holds requests the agent sends), Side the handling side.
type routingUnion struct {
	Union string
	Kind  string
	Side  string
}

// routingUnions are the routing unions of the v1 schemas. Since 0.10.0 they are
// JSON-RPC envelopes whose params or result reference the method defs;
// before (0.4.5 to 0.8.0) they are bare unions of the method defs.
var routingUnions = []routingUnion{
	{"AgentRequest", KindRequest, "client"},
	{"AgentNotification", KindNotification, "client"},
	{"AgentResponse", KindResponse, "agent"},
	{"ClientRequest", KindRequest, "agent"},
	{"ClientNotification", KindNotification, "agent"},
	{"ClientResponse", KindResponse, "client"},
	{"ProxyRequest", KindRequest, "proxy"},
	{"ProxyNotification", KindNotification, "proxy"},
	{"ProxyResponse", KindResponse, "proxy"},
}

// inlineRoutings maps the titles of routing unions written inline in the
// schema's top-level anyOf (not as $defs) to their handling side.
var inlineRoutings = map[string]string{"ProtocolLevel": "protocol"}

// handlingSides is what an x-side value means: the sides that handle the
// method. Schemas from 0.22.0 to 1.5.1 mark mcp/message "both": the agent
// and the client each handle it (and each can send it), so it is a method
// of each side, listed under both in meta files and generated for both
// handlers and both connections.
func handlingSides(xSide string) []string {
	if xSide == "both" {
		return []string{"agent", "client"}
	}
	return []string{xSide}
}

// IsRoutingUnion reports whether the named def is a routing union: its
// content is the method table, not a message type.
func IsRoutingUnion(def string) bool {
	for _, r := range routingUnions {
		if r.Union == def {
			return true
		}
	}
	return false
}
