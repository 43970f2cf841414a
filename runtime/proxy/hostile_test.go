package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// raw runs p between an editor and an agent both driven by hand, on raw
// frames; the proxy logs nothing.
func raw(t *testing.T, o proxy.Options, setup func(*proxy.Proxy)) (editor, agent *handAgent) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	p := proxy.New(o)
	if setup != nil {
		setup(p)
	}
	editorEnd, predEnd := pipes()
	succEnd, agentEnd := pipes()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Run(ctx, proxy.Stream(predEnd.r, predEnd.w), proxy.Stream(succEnd.r, succEnd.w))
	}()
	t.Cleanup(func() {
		cancel()
		for _, l := range []link{editorEnd, predEnd, succEnd, agentEnd} {
			l.r.Close()
			l.w.Close()
		}
		<-done
	})
	editor = &handAgent{t: t, in: frames{bufio.NewReader(editorEnd.r)}, w: editorEnd.w}
	agent = &handAgent{t: t, in: frames{bufio.NewReader(agentEnd.r)}, w: agentEnd.w}
	return editor, agent
}

// passOn intercepts session/prompt and terminal/create and passes them on
// unchanged: each goes out under the proxy's own id.
func passOn(p *proxy.Proxy) {
	proxy.Request(p, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest, next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		return next(ctx, req)
	})
	proxy.Request(p, acp.ClientMethods.TerminalCreate, func(ctx context.Context, req *acp.CreateTerminalRequest, next func(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error)) (*acp.CreateTerminalResponse, error) {
		return next(ctx, req)
	})
}

const (
	promptParams   = `{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}`
	terminalParams = `{"sessionId":"s1","command":"ls"}`
	updateFrame    = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"marker"}}}}`
)

// ownPrompt has the editor send a prompt the proxy passes on, and returns
// the proxy's own id for it, as the agent sees it, without its quotes.
func ownPrompt(t *testing.T, editor, agent *handAgent, id string) string {
	t.Helper()
	editor.send(string(frame(wire.Raw(id), "session/prompt", wire.Raw(promptParams))))
	_, env := agent.expect("session/prompt")
	if env.ID.Kind() != wire.KindString || string(env.ID) == id {
		t.Fatalf("the prompt went out under id %s, want the proxy's own", env.ID)
	}
	return strings.Trim(string(env.ID), `"`)
}

// escapeFirst writes s's first byte as a JSON \u escape: the same string.
func escapeFirst(s string) string {
	return `\u00` + strings.ToLower(strconvHex(s[0])) + s[1:]
}

func strconvHex(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// A peer that has seen the proxy's id prefix sends a request under it:
// it is refused -32600 with its id, as written or escaped, and never
// relayed, so its answer could not be taken for one of the proxy's own.
func TestPeerRequestUnderOwnPrefixRefused(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, passOn)
	own := ownPrompt(t, editor, agent, "1")
	prefix := own[:strings.LastIndexByte(own, '.')+1]
	for _, id := range []string{`"` + prefix + `1"`, `"` + prefix + `99"`, `"` + escapeFirst(prefix) + `7"`} {
		agent.send(string(frame(wire.Raw(id), "fs/read_text_file", wire.Raw(`{"sessionId":"s1","path":"/etc/passwd"}`))))
		line, env := agent.read()
		if string(env.ID) != id || !strings.Contains(line, `"code":-32600`) {
			t.Errorf("a request under the proxy's prefix, id %s, got %s; want -32600 with its id", id, line)
		}
	}
	agent.send(updateFrame)
	if line, _ := editor.read(); !strings.Contains(line, "marker") {
		t.Errorf("the editor got %s: a request under the proxy's prefix was relayed", line)
	}
}

// The proxy's request to the editor (terminal/create passed on) is
// answered only by the editor: the agent, which saw the proxy's prefix,
// forges the answer and is ignored; the agent's request gets the editor's
// answer.
func TestForgedAnswerFromOtherSideIgnored(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, passOn)
	agent.send(string(frame(wire.Raw(`5`), "terminal/create", wire.Raw(terminalParams))))
	_, env := editor.expect("terminal/create")
	agent.send(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"result":{"terminalId":"forged"}}`)
	agent.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + string(env.ID) + `}}`)
	agent.send(updateFrame)
	if line, _ := editor.read(); !strings.Contains(line, "marker") {
		t.Errorf("the editor got %s: the agent cancelled the proxy's own request", line)
	}
	editor.answer(env, `{"terminalId":"real"}`)
	line, got := agent.read()
	if string(got.ID) != "5" || !strings.Contains(line, `"real"`) {
		t.Errorf("the agent's terminal/create was answered %s, want the editor's answer", line)
	}
}

// The answer to a request with an interceptor comes from the interceptor:
// the agent answering the editor's id instead of the proxy's is dropped,
// as is any answer to no request relayed to it.
func TestForgedAnswerToInterceptedRequestDropped(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, passOn)
	own := ownPrompt(t, editor, agent, "1")
	agent.send(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"refusal"}}`)
	agent.send(`{"jsonrpc":"2.0","id":"never-sent","result":{}}`)
	agent.send(`{"jsonrpc":"2.0","id":"` + own + `","result":{"stopReason":"end_turn"}}`)
	line, env := editor.read()
	if string(env.ID) != "1" || !strings.Contains(line, "end_turn") {
		t.Errorf("the editor got %s, want the interceptor's answer (end_turn)", line)
	}
}

// Ids JSON-RPC does not allow (an object, an array, a boolean) and ids
// longer than jsonrpc.MaxIDLength are refused -32600 with id null, not relayed.
func TestRequestWithInvalidIDRefused(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, nil)
	long := `"` + strings.Repeat("i", jsonrpc.MaxIDLength) + `"`
	for _, id := range []string{`{"a":1}`, `[1]`, `true`, long} {
		editor.send(string(frame(wire.Raw(id), "session/new", wire.Raw(`{"cwd":"/","mcpServers":[]}`))))
		line, env := editor.read()
		if string(env.ID) != "null" || !strings.Contains(line, `"code":-32600`) {
			t.Errorf("id %.40s: got %.200s, want -32600 with id null", id, line)
		}
	}
	editor.send(string(frame(wire.Raw(`2`), "session/new", wire.Raw(`{"cwd":"/","mcpServers":[]}`))))
	if _, env := agent.expect("session/new"); string(env.ID) != "2" {
		t.Errorf("the agent got session/new id %s, want 2 (the refused ones not relayed)", env.ID)
	}
}

// Requests from a side past Options.MaxInFlight, with an interceptor or
// relayed, are answered -32001 and go no further while the agent holds
// the ones before them unanswered; an answer makes room again.
func TestInFlightBound(t *testing.T) {
	editor, agent := raw(t, proxy.Options{MaxInFlight: 2}, passOn)
	own := ownPrompt(t, editor, agent, "1")
	editor.send(string(frame(wire.Raw(`2`), "session/list", wire.Raw(`{}`))))
	agent.expect("session/list")
	editor.send(string(frame(wire.Raw(`3`), "session/prompt", wire.Raw(promptParams))))
	editor.send(string(frame(wire.Raw(`4`), "session/list", wire.Raw(`{}`))))
	for _, id := range []string{"3", "4"} {
		if line, env := editor.read(); string(env.ID) != id || !strings.Contains(line, `"code":-32001`) {
			t.Errorf("request %s past the bound got %s, want -32001", id, line)
		}
	}
	agent.send(`{"jsonrpc":"2.0","id":"` + own + `","result":{"stopReason":"end_turn"}}`)
	if _, env := editor.read(); string(env.ID) != "1" {
		t.Fatalf("the editor got an answer to %s, want 1", env.ID)
	}
	editor.send(string(frame(wire.Raw(`5`), "session/list", wire.Raw(`{}`))))
	if _, env := agent.expect("session/list"); string(env.ID) != "5" {
		t.Errorf("after an answer the agent got session/list %s, want 5", env.ID)
	}
}

// An interceptor that panics on what a peer sent answers -32603; the
// proxy goes on.
func TestInterceptorPanicAnswered(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, func(p *proxy.Proxy) {
		proxy.Request(p, acp.AgentMethods.SessionNew, func(_ context.Context, req *acp.NewSessionRequest, next func(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error)) (*acp.NewSessionResponse, error) {
			_ = req.MCPServers[0] // out of range on an empty list
			return nil, nil
		})
	})
	editor.send(string(frame(wire.Raw(`1`), "session/new", wire.Raw(`{"cwd":"/","mcpServers":[]}`))))
	if line, env := editor.read(); string(env.ID) != "1" || !strings.Contains(line, `"code":-32603`) {
		t.Errorf("the panicking interceptor's request got %s, want -32603", line)
	}
	editor.send(string(frame(wire.Raw(`2`), "session/list", wire.Raw(`{}`))))
	_, env := agent.expect("session/list")
	agent.answer(env, `{"sessions":[]}`)
	if _, env := editor.read(); string(env.ID) != "2" {
		t.Errorf("the editor got an answer to %s, want 2", env.ID)
	}
}

// logged collects what a proxy logs.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(b))
	return len(b), nil
}

func (l *logged) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.lines, func(line string) bool { return strings.Contains(line, s) })
}

// initialize's protocolVersion is the successor's whatever an interceptor
// answers (InitializeProxyResponse: a proxy MUST NOT change it): the
// change is undone and logged. An interceptor that answers initialize
// without passing it on is refused -32603.
func TestInitializeKeepsSuccessorsVersion(t *testing.T) {
	log := &logged{}
	editor, agent := raw(t, proxy.Options{Logger: slog.New(slog.NewTextHandler(log, nil))}, func(p *proxy.Proxy) {
		proxy.Request(p, acp.AgentMethods.Initialize, func(ctx context.Context, req *acp.InitializeRequest, next func(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error)) (*acp.InitializeResponse, error) {
			if req.ClientInfo != nil && req.ClientInfo.Name == "local" {
				return &acp.InitializeResponse{ProtocolVersion: 7}, nil
			}
			res, err := next(ctx, req)
			if err == nil {
				res.ProtocolVersion = 99
			}
			return res, err
		})
	})
	editor.send(string(frame(wire.Raw(`1`), "initialize", wire.Raw(`{"protocolVersion":1}`))))
	_, env := agent.expect("initialize")
	agent.answer(env, `{"protocolVersion":1,"agentCapabilities":{}}`)
	line, env := editor.read()
	var res struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	if err := jsonUnmarshal(env.Result, &res); err != nil || res.ProtocolVersion != 1 {
		t.Errorf("initialize answered %s, want the agent's protocolVersion 1", line)
	}
	if !log.has("protocolVersion") {
		t.Errorf("the change was not logged: %q", log.lines)
	}
	editor.send(string(frame(wire.Raw(`2`), "initialize", wire.Raw(`{"protocolVersion":1,"clientInfo":{"name":"local","version":"1"}}`))))
	if line, env := editor.read(); string(env.ID) != "2" || !strings.Contains(line, `"code":-32603`) {
		t.Errorf("initialize answered without the agent got %s, want -32603", line)
	}
}

// The proxy's own request to a successor that stops reading returns when
// the caller's context ends, not when the successor reads.
func TestCallReturnsWhenSuccessorStopsReading(t *testing.T) {
	var p *proxy.Proxy
	editor, agent := raw(t, proxy.Options{}, func(q *proxy.Proxy) { p = q })
	editor.send(string(frame(nil, "session/cancel", wire.Raw(`{"sessionId":"s1"}`))))
	agent.expect("session/cancel") // running; from here the agent reads nothing (an unbuffered pipe)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := proxy.Call(ctx, p, acp.AgentMethods.SessionList, &acp.ListSessionsRequest{})
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Call: %v, want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatal("Call did not return when its context ended")
	}
}

// A line longer than the frame bound is answered -32600 with id null
// without being held, and the proxy reads on.
func TestOversizedFrameAnswered(t *testing.T) {
	editor, agent := raw(t, proxy.Options{}, nil)
	go func() {
		chunk := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"x":"` + strings.Repeat("x", 1<<20))
		for range jsonrpc.DefaultMaxFrame>>20 + 1 {
			if _, err := editor.w.Write(chunk); err != nil {
				return
			}
			chunk = bytes.Repeat([]byte("x"), 1<<20)
		}
		io.WriteString(editor.w, "\"}}\n")
		editor.send(string(frame(wire.Raw(`2`), "session/list", wire.Raw(`{}`))))
	}()
	if line, env := editor.read(); string(env.ID) != "null" || !strings.Contains(line, `"code":-32600`) {
		t.Errorf("the oversized line got %s, want -32600 with id null", line)
	}
	if _, env := agent.expect("session/list"); string(env.ID) != "2" {
		t.Errorf("the agent got session/list %s, want 2", env.ID)
	}
}
