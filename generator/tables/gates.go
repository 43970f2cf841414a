package tables

// Capability paths, named once.
const (
	agentCaps   = "agentCapabilities."
	clientCaps  = "clientCapabilities."
	sessionCaps = agentCaps + "sessionCapabilities."
)

// sessionSetup are the session lifecycle requests that carry cwd, mcpServers,
// additionalDirectories and systemPrompt.
var sessionSetup = []string{"session/new", "session/load", "session/resume", "session/fork"}

// Gates is the capability table of ACP v1 (stable and unstable). Upstream has
// no machine-readable gates: each row restates what a capability's
// description says it allows. Rows for methods a channel lacks are skipped in
// that channel; against the pinned schema, a row matching nothing in every
// channel is an error (it is stale).
var Gates = func() []Gate {
	g := []Gate{
		{Method: "session/load", Capability: agentCaps + "loadSession"},
		{Method: "session/list", Capability: sessionCaps + "list"},
		{Method: "session/delete", Capability: sessionCaps + "delete"},
		{Method: "session/resume", Capability: sessionCaps + "resume"},
		{Method: "session/close", Capability: sessionCaps + "close"},
		{Method: "session/fork", Capability: sessionCaps + "fork"},
		{Method: "session/archive", Capability: sessionCaps + "archive"},
		{Method: "session/unarchive", Capability: sessionCaps + "archive"},
		{Method: "session/status", Capability: sessionCaps + "status"},
		{Method: "session/set_title", Capability: sessionCaps + "title"},
		{Method: "logout", Capability: agentCaps + "auth.logout"},
		{Method: "auth/status", Capability: agentCaps + "auth.status"},
		{Method: "providers/list", Capability: agentCaps + "providers"},
		{Method: "providers/set", Capability: agentCaps + "providers"},
		{Method: "providers/disable", Capability: agentCaps + "providers"},

		{Method: "fs/read_text_file", Capability: clientCaps + "fs.readTextFile"},
		{Method: "fs/write_text_file", Capability: clientCaps + "fs.writeTextFile"},
		{Method: "terminal/create", Capability: clientCaps + "terminal"},
		{Method: "terminal/output", Capability: clientCaps + "terminal"},
		{Method: "terminal/release", Capability: clientCaps + "terminal"},
		{Method: "terminal/wait_for_exit", Capability: clientCaps + "terminal"},
		{Method: "terminal/kill", Capability: clientCaps + "terminal"},
		{Method: "elicitation/create", Variant: "form", Capability: clientCaps + "elicitation.form"},
		{Method: "elicitation/create", Variant: "url", Capability: clientCaps + "elicitation.url"},

		// Prompt content beyond text and resource links.
		{Method: "session/prompt", Path: "/prompt/*", Variant: "image", Capability: agentCaps + "promptCapabilities.image"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "audio", Capability: agentCaps + "promptCapabilities.audio"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "resource", Capability: agentCaps + "promptCapabilities.embeddedContext"},

		// Agent-side offers the client must understand.
		{Method: "initialize", Result: true, Path: "/authMethods/*", Variant: "terminal", Capability: clientCaps + "auth.terminal"},
		{Method: "session/update", Path: "/update", Variant: "notice", Capability: clientCaps + "session.notices"},
		{Method: "session/update", Path: "/update", Variant: "compaction_update", Capability: clientCaps + "session.compaction"},
		{Method: "session/update", Path: "/update", Variant: "compaction_summary_chunk", Capability: clientCaps + "session.compaction"},
		{Method: "session/update", Path: "/update", Variant: "plan_update", Capability: clientCaps + "plan"},
		{Method: "session/update", Path: "/update", Variant: "plan_removed", Capability: clientCaps + "plan"},
		{Method: "session/update", Path: "/update", Variant: "subagent_update", Capability: clientCaps + "subagents"},
		{Method: "session/update", Path: "/update", Variant: "session_message", Capability: clientCaps + "subagents"},
		{Method: "session/update", Path: "/update", Variant: "session_message_chunk", Capability: clientCaps + "subagents"},
		{Method: "session/update", Path: "/update/configOptions/*", Variant: "boolean", Capability: clientCaps + "session.configOptions.boolean"},
	}
	for _, m := range append([]string{"session/set_config_option"}, sessionSetup...) {
		g = append(g, Gate{Method: m, Result: true, Path: "/configOptions/*", Variant: "boolean", Capability: clientCaps + "session.configOptions.boolean"})
	}
	for _, m := range sessionSetup {
		g = append(g,
			Gate{Method: m, Path: "/additionalDirectories", Capability: sessionCaps + "additionalDirectories"},
			Gate{Method: m, Path: "/systemPrompt", Capability: sessionCaps + "systemPrompt"},
			Gate{Method: m, Path: "/systemPrompt/mode", Variant: "override", Capability: sessionCaps + "systemPrompt.mode.override"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "http", Capability: agentCaps + "mcpCapabilities.http"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "sse", Capability: agentCaps + "mcpCapabilities.sse"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "acp", Capability: agentCaps + "mcpCapabilities.acp"},
		)
	}
	for i := range g {
		g[i].Source = "table"
	}
	return g
}()

// GatesV2 is the capability table of the ACP v2 draft (stable and unstable).
// Both initialize messages carry a "capabilities" member; which one grants a
// row follows from the method's direction (see ir's gate resolution).
// Capabilities are objects, granted by being present: capabilities.session
// itself grants the baseline session methods. authMethods, a list, grants
// auth/login and auth/logout by not being empty.
var GatesV2 = func() []Gate {
	const caps, session = "capabilities.", "capabilities.session."
	g := []Gate{
		// An agent without capabilities.session supports no session methods.
		{Method: "session/new", Capability: caps + "session"},
		{Method: "session/list", Capability: caps + "session"},
		{Method: "session/resume", Capability: caps + "session"},
		{Method: "session/close", Capability: caps + "session"},
		{Method: "session/prompt", Capability: caps + "session"},
		{Method: "session/cancel", Capability: caps + "session"},
		{Method: "session/delete", Capability: session + "delete"},
		{Method: "session/fork", Capability: session + "fork"},
		{Method: "session/archive", Capability: session + "archive"},
		{Method: "session/unarchive", Capability: session + "archive"},
		{Method: "session/status", Capability: session + "status"},
		{Method: "session/set_title", Capability: session + "title"},
		{Method: "auth/login", Capability: "authMethods"},
		{Method: "auth/logout", Capability: "authMethods"},
		{Method: "auth/status", Capability: caps + "auth.status"},
		{Method: "providers/list", Capability: caps + "providers"},
		{Method: "providers/set", Capability: caps + "providers"},
		{Method: "providers/disable", Capability: caps + "providers"},

		{Method: "elicitation/create", Variant: "form", Capability: caps + "elicitation.form"},
		{Method: "elicitation/create", Variant: "url", Capability: caps + "elicitation.url"},

		{Method: "session/prompt", Path: "/prompt/*", Variant: "image", Capability: session + "prompt.image"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "audio", Capability: session + "prompt.audio"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "resource", Capability: session + "prompt.embeddedContext"},

		{Method: "initialize", Result: true, Path: "/authMethods/*", Variant: "terminal", Capability: caps + "auth.terminal"},
	}
	for _, m := range []string{"session/new", "session/resume", "session/fork"} {
		g = append(g,
			Gate{Method: m, Path: "/additionalDirectories", Capability: session + "additionalDirectories"},
			Gate{Method: m, Path: "/systemPrompt", Capability: session + "systemPrompt"},
			Gate{Method: m, Path: "/systemPrompt/mode", Variant: "override", Capability: session + "systemPrompt.mode.override"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "stdio", Capability: session + "mcp.stdio"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "http", Capability: session + "mcp.http"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "acp", Capability: session + "mcp.acp"},
		)
	}
	for i := range g {
		g[i].Source = "table"
	}
	return g
}()

// ForProtocol is the capability table of an ACP wire protocol version.
func ForProtocol(version int) []Gate {
	if version == 2 {
		return GatesV2
	}
	return Gates
}
