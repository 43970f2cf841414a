package ir

import (
	"strings"
	"unicode"
)

// initialisms are the words written in capitals in Go names, following Go's
// own convention (ID, URL, HTTP); one rule applied to every name.
var initialisms = map[string]string{
	"id": "ID", "ids": "IDs", "url": "URL", "uri": "URI", "http": "HTTP", "https": "HTTPS",
	"sse": "SSE", "mcp": "MCP", "acp": "ACP", "json": "JSON", "api": "API", "rpc": "RPC",
}

// words splits a wire or schema name into words at case changes, digits and
// separators: "session/set_mode" -> session set mode, "McpServerHttp" -> Mcp Server Http.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter after a lower-case one, or
			// before the last capital of a run followed by lower case ("HTTPServer").
			if len(cur) > 0 {
				prev := rs[i-1]
				next := rune(0)
				if i+1 < len(rs) {
					next = rs[i+1]
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// GoName turns a schema or wire name into an exported Go identifier.
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(out)[0]) {
		out = "V" + out
	}
	return out
}
