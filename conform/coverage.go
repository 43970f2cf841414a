package conform

import (
	"slices"

	"github.com/acpgen/acpgen/generator/ir"
)

// coverageRow says how conform checks one method that its schema-derived
// cases leave out, or why it does not: every request an agent handles but
// initialize gets the agent checker's "methods" cases (valid params, then
// each mutant -32602), every request a client handles the client
// checker's "requests" cases, initialize the "initialize" cases, and every
// frame either side writes is validated against its def ("frames"). The
// other methods, notifications and the methods of no editor or agent,
// each have a row: the category that covers them ("" for none) and why.
type coverageRow struct {
	Method, Category, Reason string
}

var coverageRows = []coverageRow{
	{"session/cancel", "cancel", "the cancel category cancels a prompt turn and expects it answered stopReason \"cancelled\""},
	{"session/update", "notifications", "the client checker sends every variant; the agent checker follows the prompt turn's updates (order, frames)"},
	{"$/cancel_request", "", "a request cancellation either side may ignore: no outcome to check beyond its frame's validity"},
	{"elicitation/complete", "frames", "validated as the agent sends it; the checker starts no elicitation"},
	{"auth/status_update", "frames", "validated as the agent sends it; the checker starts no login that would bring one"},
	{"mcp/message", "frames", "MCP over ACP: validated as either side sends it; the MCP messages it carries are MCP's, not ACP's"},
	{"proxy/initialize", "", "Proxy Chains: a conductor's message to a proxy, not part of an editor and an agent's conversation"},
	{"proxy/successor", "", "Proxy Chains: a proxy's message to its conductor, not part of an editor and an agent's conversation"},
}

// coverage returns the category that covers m and why; ok is false when
// neither the schema-derived cases nor a row say anything of it.
func coverage(m *ir.Method) (category, reason string, ok bool) {
	switch {
	case m.Wire == "initialize":
		return "initialize", "the version and initialize cases", true
	case m.Side == "agent" && !m.Notification:
		return "methods", "valid params and their mutants, from the schema", true
	case m.Side == "client" && !m.Notification:
		return "requests", "the client checker sends it, its example filled in", true
	}
	i := slices.IndexFunc(coverageRows, func(r coverageRow) bool { return r.Method == m.Wire })
	if i < 0 {
		return "", "", false
	}
	return coverageRows[i].Category, coverageRows[i].Reason, true
}
