package facts

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
		{Method: "session/load", Capability: agentCaps + "loadSession", Reason: "loadSession says the agent supports session/load"},
		{Method: "session/list", Capability: sessionCaps + "list", Reason: "sessionCapabilities.list says the agent supports session/list"},
		{Method: "session/delete", Capability: sessionCaps + "delete", Reason: "sessionCapabilities.delete says the agent supports session/delete"},
		{Method: "session/resume", Capability: sessionCaps + "resume", Reason: "sessionCapabilities.resume says the agent supports session/resume"},
		{Method: "session/close", Capability: sessionCaps + "close", Reason: "sessionCapabilities.close says the agent supports session/close"},
		{Method: "session/fork", Capability: sessionCaps + "fork", Reason: "sessionCapabilities.fork says the agent supports session/fork"},
		{Method: "session/archive", Capability: sessionCaps + "archive", Reason: "sessionCapabilities.archive covers session/archive"},
		{Method: "session/unarchive", Capability: sessionCaps + "archive", Reason: "sessionCapabilities.archive covers session/unarchive"},
		{Method: "session/status", Capability: sessionCaps + "status", Reason: "sessionCapabilities.status says the agent supports session/status"},
		{Method: "session/set_title", Capability: sessionCaps + "title", Reason: "sessionCapabilities.title says the agent supports session/set_title"},
		{Method: "logout", Capability: agentCaps + "auth.logout", Reason: "auth.logout says the agent supports logout"},
		{Method: "auth/status", Capability: agentCaps + "auth.status", Reason: "auth.status says the agent supports auth/status"},
		{Method: "providers/list", Capability: agentCaps + "providers", Reason: "providers covers the providers/* methods"},
		{Method: "providers/set", Capability: agentCaps + "providers", Reason: "providers covers the providers/* methods"},
		{Method: "providers/disable", Capability: agentCaps + "providers", Reason: "providers covers the providers/* methods"},

		{Method: "fs/read_text_file", Capability: clientCaps + "fs.readTextFile", Reason: "fs.readTextFile says the client serves fs/read_text_file"},
		{Method: "fs/write_text_file", Capability: clientCaps + "fs.writeTextFile", Reason: "fs.writeTextFile says the client serves fs/write_text_file"},
		{Method: "terminal/create", Capability: clientCaps + "terminal", Reason: "terminal says the client serves the terminal/* methods"},
		{Method: "terminal/output", Capability: clientCaps + "terminal", Reason: "terminal says the client serves the terminal/* methods"},
		{Method: "terminal/release", Capability: clientCaps + "terminal", Reason: "terminal says the client serves the terminal/* methods"},
		{Method: "terminal/wait_for_exit", Capability: clientCaps + "terminal", Reason: "terminal says the client serves the terminal/* methods"},
		{Method: "terminal/kill", Capability: clientCaps + "terminal", Reason: "terminal says the client serves the terminal/* methods"},
		{Method: "elicitation/create", Variant: "form", Capability: clientCaps + "elicitation.form", Reason: "elicitation.form says the client shows form elicitations"},
		{Method: "elicitation/create", Variant: "url", Capability: clientCaps + "elicitation.url", Reason: "elicitation.url says the client shows url elicitations"},

		// Prompt content beyond text and resource links.
		{Method: "session/prompt", Path: "/prompt/*", Variant: "image", Capability: agentCaps + "promptCapabilities.image", Reason: "promptCapabilities: a prompt carries image content only when the agent takes it"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "audio", Capability: agentCaps + "promptCapabilities.audio", Reason: "promptCapabilities: a prompt carries audio content only when the agent takes it"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "resource", Capability: agentCaps + "promptCapabilities.embeddedContext", Reason: "promptCapabilities: a prompt carries resource content only when the agent takes it"},

		// Agent-side offers the client must understand.
		{Method: "initialize", Result: true, Path: "/authMethods/*", Variant: "terminal", Capability: clientCaps + "auth.terminal", Reason: "auth.terminal says the client can run terminal auth methods"},
		{Method: "session/update", Path: "/update", Variant: "notice", Capability: clientCaps + "session.notices", Reason: "session.notices says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "compaction_update", Capability: clientCaps + "session.compaction", Reason: "session.compaction says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "compaction_summary_chunk", Capability: clientCaps + "session.compaction", Reason: "session.compaction says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "plan_update", Capability: clientCaps + "plan", Reason: "plan says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "plan_removed", Capability: clientCaps + "plan", Reason: "plan says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "subagent_update", Capability: clientCaps + "subagents", Reason: "subagents says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "session_message", Capability: clientCaps + "subagents", Reason: "subagents says the client understands these session updates"},
		{Method: "session/update", Path: "/update", Variant: "session_message_chunk", Capability: clientCaps + "subagents", Reason: "subagents says the client understands these session updates"},
		{Method: "session/update", Path: "/update/configOptions/*", Variant: "boolean", Capability: clientCaps + "session.configOptions.boolean", Reason: "session.configOptions.boolean says the client renders boolean options"},
	}
	for _, m := range append([]string{"session/set_config_option"}, sessionSetup...) {
		g = append(g, Gate{Method: m, Result: true, Path: "/configOptions/*", Variant: "boolean", Capability: clientCaps + "session.configOptions.boolean", Reason: "session.configOptions.boolean says the client renders boolean options"})
	}
	for _, m := range sessionSetup {
		g = append(g,
			Gate{Method: m, Path: "/additionalDirectories", Capability: sessionCaps + "additionalDirectories", Reason: "the additionalDirectories RFD: only to an agent that advertised it"},
			Gate{Method: m, Path: "/systemPrompt", Capability: sessionCaps + "systemPrompt", Reason: "sessionCapabilities.systemPrompt says the agent takes a system prompt"},
			Gate{Method: m, Path: "/systemPrompt/mode", Variant: "override", Capability: sessionCaps + "systemPrompt.mode.override", Reason: "systemPrompt.mode.override says the agent lets it replace its own"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "http", Capability: agentCaps + "mcpCapabilities.http", Reason: "mcpCapabilities: the agent connects to MCP servers of this transport"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "sse", Capability: agentCaps + "mcpCapabilities.sse", Reason: "mcpCapabilities: the agent connects to MCP servers of this transport"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "acp", Capability: agentCaps + "mcpCapabilities.acp", Reason: "mcpCapabilities: the agent connects to MCP servers of this transport"},
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
		{Method: "session/new", Capability: caps + "session", Reason: "an agent without capabilities.session supports no session methods"},
		{Method: "session/list", Capability: caps + "session", Reason: "capabilities.session grants the baseline session methods"},
		{Method: "session/resume", Capability: caps + "session", Reason: "capabilities.session grants the baseline session methods"},
		{Method: "session/close", Capability: caps + "session", Reason: "capabilities.session grants the baseline session methods"},
		{Method: "session/prompt", Capability: caps + "session", Reason: "capabilities.session grants the baseline session methods"},
		{Method: "session/cancel", Capability: caps + "session", Reason: "capabilities.session grants the baseline session methods"},
		{Method: "session/delete", Capability: session + "delete", Reason: "capabilities.session.delete says the agent supports it"},
		{Method: "session/fork", Capability: session + "fork", Reason: "capabilities.session.fork says the agent supports it"},
		{Method: "session/archive", Capability: session + "archive", Reason: "capabilities.session.archive covers archive and unarchive"},
		{Method: "session/unarchive", Capability: session + "archive", Reason: "capabilities.session.archive covers archive and unarchive"},
		{Method: "session/status", Capability: session + "status", Reason: "capabilities.session.status says the agent supports it"},
		{Method: "session/set_title", Capability: session + "title", Reason: "capabilities.session.title says the agent supports it"},
		{Method: "auth/login", Capability: "authMethods", Reason: "authMethods, when not empty, is what the client may log in with"},
		{Method: "auth/logout", Capability: "authMethods", Reason: "authMethods, when not empty, is what the client may log in with"},
		{Method: "auth/status", Capability: caps + "auth.status", Reason: "capabilities.auth.status says the agent supports it"},
		{Method: "providers/list", Capability: caps + "providers", Reason: "capabilities.providers covers the providers/* methods"},
		{Method: "providers/set", Capability: caps + "providers", Reason: "capabilities.providers covers the providers/* methods"},
		{Method: "providers/disable", Capability: caps + "providers", Reason: "capabilities.providers covers the providers/* methods"},

		{Method: "elicitation/create", Variant: "form", Capability: caps + "elicitation.form", Reason: "capabilities.elicitation.form says the client shows form elicitations"},
		{Method: "elicitation/create", Variant: "url", Capability: caps + "elicitation.url", Reason: "capabilities.elicitation.url says the client shows url elicitations"},

		{Method: "session/prompt", Path: "/prompt/*", Variant: "image", Capability: session + "prompt.image", Reason: "capabilities.session.prompt: a prompt carries image content only when the agent takes it"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "audio", Capability: session + "prompt.audio", Reason: "capabilities.session.prompt: a prompt carries audio content only when the agent takes it"},
		{Method: "session/prompt", Path: "/prompt/*", Variant: "resource", Capability: session + "prompt.embeddedContext", Reason: "capabilities.session.prompt: a prompt carries resource content only when the agent takes it"},

		{Method: "initialize", Result: true, Path: "/authMethods/*", Variant: "terminal", Capability: caps + "auth.terminal", Reason: "capabilities.auth.terminal says the client can run terminal auth methods"},
	}
	for _, m := range []string{"session/new", "session/resume", "session/fork"} {
		g = append(g,
			Gate{Method: m, Path: "/additionalDirectories", Capability: session + "additionalDirectories", Reason: "capabilities.session.additionalDirectories says the agent takes more roots"},
			Gate{Method: m, Path: "/systemPrompt", Capability: session + "systemPrompt", Reason: "capabilities.session.systemPrompt says the agent takes a system prompt"},
			Gate{Method: m, Path: "/systemPrompt/mode", Variant: "override", Capability: session + "systemPrompt.mode.override", Reason: "systemPrompt.mode.override says the agent lets it replace its own"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "stdio", Capability: session + "mcp.stdio", Reason: "capabilities.session.mcp: the agent connects to MCP servers of this transport"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "http", Capability: session + "mcp.http", Reason: "capabilities.session.mcp: the agent connects to MCP servers of this transport"},
			Gate{Method: m, Path: "/mcpServers/*", Variant: "acp", Capability: session + "mcp.acp", Reason: "capabilities.session.mcp: the agent connects to MCP servers of this transport"},
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
