package conductor

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// testAgent is a small v1 agent for what examples/agent does not do. Its
// prompt turns, by the prompt's text:
//
//	burst N  N agent_message_chunk updates of 1 KiB, then end_turn
//	ask      a session/request_permission to the client; then an update
//	         whose text is the chosen option, then end_turn
//	die      a line on stderr, then exit status 7
//
// and its other methods: "_test/echo" answers its params; "_test/hang"
// is never answered; "_test/successor" sends proxy/successor itself (it has
// no successor) and answers with the error it gets back.
type testAgent struct {
	*stdio
	asked map[string]json.RawMessage // its own request id -> the prompt's id
}

func agentMain() int {
	a := &testAgent{stdio: newStdio(), asked: map[string]json.RawMessage{}}
	for a.sc.Scan() {
		var m msg
		if err := json.Unmarshal(a.sc.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "agent: bad line %q\n", a.sc.Bytes())
			continue
		}
		a.handle(m)
		if a.w.Flush() != nil {
			return 1
		}
	}
	return 0
}

func (a *testAgent) handle(m msg) {
	switch m.Method {
	case "":
		a.answered(m)
	case "initialize":
		a.send(msg{ID: m.ID, Result: raw(map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}})})
	case "session/new":
		a.send(msg{ID: m.ID, Result: raw(map[string]string{"sessionId": "s1"})})
	case "session/prompt":
		a.prompt(m)
	case "_test/echo":
		a.send(msg{ID: m.ID, Result: m.Params})
	case "_test/hang":
	case "_test/successor":
		a.asked["ag-succ"] = m.ID
		a.send(msg{ID: raw("ag-succ"), Method: "proxy/successor", Params: raw(map[string]string{"method": "_x"})})
	default:
		if m.ID != nil {
			a.send(msg{ID: m.ID, Error: raw(map[string]any{"code": -32601, "message": "Method not found: " + m.Method})})
		}
	}
}

func (a *testAgent) prompt(m msg) {
	var p struct {
		Prompt []struct{ Text string } `json:"prompt"`
	}
	json.Unmarshal(m.Params, &p)
	text := ""
	if len(p.Prompt) > 0 {
		text = p.Prompt[0].Text
	}
	switch {
	case strings.HasPrefix(text, "burst "):
		var n int
		fmt.Sscan(strings.TrimPrefix(text, "burst "), &n)
		chunk := strings.Repeat("x", 1024)
		for range n {
			a.update(chunk)
		}
		a.endTurn(m.ID)
	case text == "ask":
		a.asked["ag-perm"] = m.ID
		a.send(msg{ID: raw("ag-perm"), Method: "session/request_permission", Params: raw(map[string]any{
			"sessionId": "s1",
			"toolCall":  map[string]any{"toolCallId": "t1", "title": "write a file"},
			"options":   []map[string]string{{"optionId": "allow", "name": "Allow", "kind": "allow_once"}},
		})})
	case text == "die":
		fmt.Fprintln(os.Stderr, "agent: dying")
		a.w.Flush()
		os.Exit(7)
	}
}

func (a *testAgent) update(text string) {
	a.send(msg{Method: "session/update", Params: raw(map[string]any{"sessionId": "s1",
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": text}}})})
}

func (a *testAgent) endTurn(id json.RawMessage) {
	a.send(msg{ID: id, Result: raw(map[string]string{"stopReason": "end_turn"})})
}

// answered handles the answers to its own requests.
func (a *testAgent) answered(m msg) {
	var id string
	json.Unmarshal(m.ID, &id)
	orig, ok := a.asked[id]
	if !ok {
		return
	}
	delete(a.asked, id)
	switch id {
	case "ag-perm":
		var r struct {
			Outcome struct{ OptionID string } `json:"outcome"`
		}
		json.Unmarshal(m.Result, &r)
		a.update("chose " + r.Outcome.OptionID)
		a.endTurn(orig)
	case "ag-succ":
		a.send(msg{ID: orig, Result: m.Error})
	}
}
