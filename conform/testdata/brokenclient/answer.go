package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// modes are the -break rules, each breaking one MUST kind of the client
// checker (conform/clientfixtures_test.go names the kind).
var modes = map[string]string{
	"no-agent":              "never start the agent",
	"session-first":         "send session/new before initialize",
	"init-params":           "leave protocolVersion out of initialize",
	"refuse-requests":       "answer the agent's requests with -32601",
	"unknown-result":        "answer unknown methods with a result",
	"crash-on-update":       "exit on a session/update kind the echo turn does not send",
	"garbage-line":          "write a line that is not JSON",
	"bad-utf8":              "write a byte that is not UTF-8 inside a JSON string",
	"string-ids":            "answer the agent's number ids as strings",
	"result-and-error":      "answer unknown methods with both result and error",
	"error-without-message": "answer unknown methods with an error object without message",
	"unknown-sent":          "send a notification of a method nobody defines",
	"cancel-params":         "send session/cancel without its sessionId",
	"ungated-dirs":          "send additionalDirectories the agent did not advertise",
}

func modeNames() []string {
	names := make([]string, 0, len(modes))
	for n := range modes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// answer replies to one of the agent's requests.
func (c *client) answer(m msg) {
	id := m.ID
	if *broke == "string-ids" {
		id, _ = json.Marshal(string(m.ID))
	}
	res, code, text := c.handle(m)
	reply := map[string]any{"jsonrpc": "2.0", "id": id}
	known := code != -32601
	switch {
	case !known && *broke == "unknown-result":
		reply["result"] = map[string]any{}
	case !known && *broke == "result-and-error":
		reply["result"] = map[string]any{}
		reply["error"] = map[string]any{"code": code, "message": text}
	case !known && *broke == "error-without-message":
		reply["error"] = map[string]any{"code": code}
	case known && *broke == "refuse-requests":
		reply["error"] = map[string]any{"code": -32601, "message": "not handled: " + m.Method}
	case code != 0:
		reply["error"] = map[string]any{"code": code, "message": text}
	default:
		reply["result"] = res
	}
	send(reply)
}

// handle serves a request: its result, or an error code and message.
func (c *client) handle(m msg) (any, int, string) {
	var p struct {
		Path       string `json:"path"`
		Content    string `json:"content"`
		TerminalID string `json:"terminalId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "session/request_permission":
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}, 0, ""
	case "fs/read_text_file":
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return nil, -32002, err.Error()
		}
		return map[string]any{"content": string(b)}, 0, ""
	case "fs/write_text_file":
		if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			return nil, -32603, err.Error()
		}
		return map[string]any{}, 0, ""
	}
	if strings.HasPrefix(m.Method, "terminal/") && !*v2 {
		return c.terminals.handle(m.Method, p.TerminalID)
	}
	return nil, -32601, "method not found: " + m.Method
}

// terminals are pretend terminals whose command exits at once with 0; a
// released terminal's id names nothing.
type terminals struct {
	mu   sync.Mutex
	n    int
	live map[string]bool
}

func (t *terminals) handle(method, id string) (any, int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if method == "terminal/create" {
		t.n++
		id = fmt.Sprintf("term-%d", t.n)
		if t.live == nil {
			t.live = map[string]bool{}
		}
		t.live[id] = true
		return map[string]any{"terminalId": id}, 0, ""
	}
	if !t.live[id] {
		return nil, -32002, "no terminal " + id + " (released or never created)"
	}
	switch method {
	case "terminal/output":
		return map[string]any{"output": "", "truncated": false, "exitStatus": map[string]any{"exitCode": 0}}, 0, ""
	case "terminal/wait_for_exit":
		return map[string]any{"exitCode": 0}, 0, ""
	case "terminal/kill":
		return map[string]any{}, 0, ""
	case "terminal/release":
		delete(t.live, id)
		return map[string]any{}, 0, ""
	}
	return nil, -32601, "method not found: " + method
}
