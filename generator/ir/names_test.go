package ir

import "testing"

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"McpServerHttp":         "MCPServerHTTP",
		"sessionId":             "SessionID",
		"_meta":                 "Meta",
		"session/set_mode":      "SessionSetMode",
		"$/cancel_request":      "CancelRequest",
		"agent_message_chunk":   "AgentMessageChunk",
		"HTTPServer":            "HTTPServer",
		"2.0":                   "V20",
		"Parse error":           "ParseError",
		"additionalDirectories": "AdditionalDirectories",
		"uint16":                "Uint16",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}
