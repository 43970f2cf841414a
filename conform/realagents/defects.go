//go:build unix

package main

// defect says whose defect the failing cases of agent whose
// "category/case" starts with prefix show, and what it is; the longest
// matching prefix wins. Every failing case of results.json needs one, and
// one that matches no failing case is stale (TestDocTable fails on both).
type defect struct {
	agent, prefix string
	whose         string // "agent", or "conform" for a checker bug not fixed yet
	what          string
}

// What the agents' defects are, each stated once.
const (
	paramsNull     = "accepts `params: null` (JSON-RPC 2.0 §4.2: params, when present, is an object or an array)"
	noMethodSilent = "no answer to `{\"jsonrpc\":\"2.0\",\"id\":901}` (JSON-RPC 2.0 §5.1: -32600 Invalid Request)"
	dropsScalar    = "drops a request whose params are not an object or array: no answer at all (JSON-RPC 2.0 §4: every request is answered)"
	internalParams = "answers invalid params with -32603 Internal error (and the validator's issues as data), not -32602"
	noParseError   = "no answer to a line that is not JSON (JSON-RPC 2.0 §5.1: -32700 Parse error)"
	noBatches      = "refuses every batch with one -32600 (\"JSON-RPC batches are not supported\"), which the v2 transports page says SHOULD be answered by an array of responses"
	batchNoteReply = "answers a batch of notifications with a -32600 error (spec v2 transports: the receiver MUST NOT reply to a notification, including within a batch)"
)

// defects judges the failing cases of the committed results.
var defects = []defect{
	{agent: "claude-agent-acp", prefix: "methods/session/list (params) replaced by null", whose: "agent", what: paramsNull},
	{agent: "claude-agent-acp", prefix: "methods/logout (params) replaced by null", whose: "agent", what: paramsNull},
	{agent: "claude-agent-acp", prefix: "malformed/request without method", whose: "agent", what: noMethodSilent},
	{agent: "claude-agent-acp", prefix: "batch/batch of two requests and a notification", whose: "agent", what: noBatches},
	{agent: "claude-agent-acp", prefix: "batch/batch of notifications only", whose: "agent", what: batchNoteReply},
	{agent: "claude-agent-acp", prefix: "order/v2 session/resume replays the history in the session's order", whose: "agent",
		what: "replays one user message of the resumed session, not every message of its two turns (without credentials each turn ends in an authentication error)"},

	{agent: "codex-acp", prefix: "methods/logout (params) replaced by null", whose: "agent", what: paramsNull},
	{agent: "codex-acp", prefix: "methods/auth/logout (params) replaced by null", whose: "agent", what: paramsNull},
	{agent: "codex-acp", prefix: "malformed/request without method", whose: "agent", what: noMethodSilent},
	{agent: "codex-acp", prefix: "batch/batch of two requests and a notification", whose: "agent", what: noBatches},
	{agent: "codex-acp", prefix: "batch/batch of notifications only", whose: "agent", what: batchNoteReply},

	{agent: "codex-acp (Zed)", prefix: "unknown-method/notification", whose: "agent",
		what: "answers an unknown notification with a -32601 error, without an id (JSON-RPC 2.0 §4.1: a notification is never answered)"},
	{agent: "codex-acp (Zed)", prefix: "frames/response ids", whose: "agent",
		what: "error responses without `id`: to that notification and to parse errors (JSON-RPC 2.0 §5: `id` is required, null when the request's could not be read)"},
	{agent: "codex-acp (Zed)", prefix: "methods/authenticate (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/new (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/list (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/logout (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/load (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/resume (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/set_mode (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/set_config_option (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/session/close (params) replaced by", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "robustness/answers invalid params: ", whose: "agent", what: dropsScalar},
	{agent: "codex-acp (Zed)", prefix: "methods/logout (params) replaced by 1e400", whose: "agent",
		what: "answers a request whose params are 1e400 (valid JSON, beyond its number range) with -32700 and no `id`, so no response names the request (see `response ids`)"},
	{agent: "codex-acp (Zed)", prefix: "malformed/request without method", whose: "agent", what: noMethodSilent},

	{agent: "gemini-cli", prefix: "methods/authenticate ", whose: "agent", what: internalParams},
	{agent: "gemini-cli", prefix: "methods/session/new ", whose: "agent", what: internalParams},
	{agent: "gemini-cli", prefix: "methods/session/load ", whose: "agent", what: internalParams},
	{agent: "gemini-cli", prefix: "methods/session/set_mode ", whose: "agent", what: internalParams},
	{agent: "gemini-cli", prefix: "methods/session/prompt ", whose: "agent", what: internalParams},
	{agent: "gemini-cli", prefix: "malformed/truncated JSON", whose: "agent", what: noParseError},
	{agent: "gemini-cli", prefix: "malformed/not JSON", whose: "agent", what: noParseError},
	{agent: "gemini-cli", prefix: "malformed/request without method", whose: "agent", what: noMethodSilent},
}
