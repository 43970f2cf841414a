// Package benchmsg holds the params of the three benchmark messages, so the
// peer comparison and the A/B of two generations of the generated code
// measure the same bytes.
package benchmsg

// Message is one benchmarked message: a short name and its params bytes.
type Message struct {
	Name   string
	Params []byte
}

// The three messages, in the order the tables list them.
var (
	// SessionNew is session/new with cwd, one stdio MCP server with args and
	// env, and two additionalDirectories.
	SessionNew = Message{"session_new", []byte(`{"cwd":"/home/user/project","mcpServers":[{"name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/home/user/project"],"env":[{"name":"LOG","value":"debug"}]}],"additionalDirectories":["/home/user/lib","/opt/shared"]}`)}
	// Prompt is session/prompt with three text blocks.
	Prompt = Message{"prompt", []byte(`{"sessionId":"sess_01HZX","prompt":[{"type":"text","text":"Explain the build failure in main.go"},{"type":"text","text":"Here is the log output from the last run of the tests"},{"type":"text","text":"Please keep the answer short."}]}`)}
	// Update is a session/update notification carrying an
	// agent_message_chunk.
	Update = Message{"update", []byte(`{"sessionId":"sess_01HZX","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The build fails because the import path is wrong."}}}`)}
)

// All lists the three messages in table order.
var All = []Message{SessionNew, Prompt, Update}
