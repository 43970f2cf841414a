package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// answerSessionNew answers session/new itself.
func answerSessionNew(p *proxy.Proxy) {
	proxy.Request(p, acp.AgentMethods.SessionNew, func(context.Context, *acp.NewSessionRequest, func(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error)) (*acp.NewSessionResponse, error) {
		return &acp.NewSessionResponse{SessionID: "local"}, nil
	})
}

// A batch is split into its entries: an intercepted method in it meets its
// interceptor, the others reach the agent as messages of their own, and
// the answers go back to the editor as one array, in the batch's order,
// with -32600 for an entry that is no message.
func TestBatchSplitAndAnsweredAsOneArray(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, answerSessionNew)
	editor.send(`[` +
		string(frame(wire.Raw(`1`), "session/new", wire.Raw(`{"cwd":"/","mcpServers":[]}`))) + `,` +
		string(frame(wire.Raw(`2`), "session/load", wire.Raw(`{"sessionId":"s1","cwd":"/","mcpServers":[]}`))) + `,` +
		string(frame(nil, "session/cancel", wire.Raw(`{"sessionId":"s1"}`))) + `,` +
		`7]`)
	_, load := agent.expect("session/load")
	agent.expect("session/cancel")
	agent.answer(load, `{}`)
	line := editor.in.next(t)
	var answers []struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &answers); err != nil || len(answers) != 3 {
		t.Fatalf("the editor got %s, want an array of three answers (%v)", line, err)
	}
	if string(answers[0].ID) != "1" || !strings.Contains(string(answers[0].Result), `"local"`) {
		t.Errorf("answer 1: %s, want the interceptor's", line)
	}
	if string(answers[1].ID) != "2" || string(answers[1].Result) != "{}" {
		t.Errorf("answer 2: %s, want the agent's", line)
	}
	if string(answers[2].ID) != "null" || answers[2].Error == nil || answers[2].Error.Code != -32600 {
		t.Errorf("answer 3: %s, want -32600 with id null", line)
	}
}

// The agent answers the proxy's own request inside a batch: the answer is
// consumed, and the notification before it reaches the editor first.
func TestBatchAnswerToOwnRequestConsumed(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, passOn)
	own := ownPrompt(t, editor, agent, "1")
	agent.send(`[` + updateFrame + `,{"jsonrpc":"2.0","id":"` + own + `","result":{"stopReason":"end_turn"}}]`)
	if line := editor.in.next(t); !strings.Contains(line, "marker") || strings.HasPrefix(line, "[") {
		t.Errorf("the editor got %s, want the update on its own", line)
	}
	if line, env := editor.read(); string(env.ID) != "1" || !strings.Contains(line, "end_turn") {
		t.Errorf("the editor got %s, want the prompt's answer", line)
	}
}

// An empty batch is one -32600 with id null, not an array; a batch of
// notifications only gets no answer; a batch of more requests than the
// in-flight bound is refused whole, nothing of it relayed.
func TestBatchRefusals(t *testing.T) {
	editor, agent := raw(t, proxy.Options{MaxInFlight: 2}, nil)
	editor.send(`[]`)
	if line, env := editor.read(); string(env.ID) != "null" || !strings.Contains(line, `"code":-32600`) {
		t.Errorf("[] got %s, want one -32600 with id null", line)
	}
	req := string(frame(wire.Raw(`3`), "session/list", wire.Raw(`{}`)))
	editor.send(`[` + req + `,` + req + `,` + req + `]`)
	if line, env := editor.read(); string(env.ID) != "null" || !strings.Contains(line, `"code":-32600`) {
		t.Errorf("a batch past the bound got %s, want one -32600 with id null", line)
	}
	note := string(frame(nil, "session/cancel", wire.Raw(`{"sessionId":"s1"}`)))
	editor.send(`[` + note + `,` + note + `]`)
	agent.expect("session/cancel")
	agent.expect("session/cancel")
	editor.send(string(frame(wire.Raw(`4`), "session/list", wire.Raw(`{}`))))
	_, env := agent.expect("session/list")
	agent.answer(env, `{"sessions":[]}`)
	if _, env := editor.read(); string(env.ID) != "4" {
		t.Errorf("the editor got an answer to %s first, want 4's (nothing for the notifications)", env.ID)
	}
}
