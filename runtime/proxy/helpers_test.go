package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// wait bounds every wait of these tests: generous, so a loaded machine
// never fails them; a hang fails instead of blocking the run.
const wait = 2 * time.Minute

// agent is a Go agent on the unstable package: a prompt streams
// p.updates agent_message_chunk updates ("u0", "u1", ...) and ends the
// turn; the prompt "terminal" tries terminal/create first and reports
// the outcome as its last update; the prompt "wait" waits to be
// cancelled.
type agent struct {
	acp.UnimplementedAgentHandler
	conn    *acp.AgentConn
	updates int
	mu      sync.Mutex
	seen    []string // methods handled, in order
	prompts []string // prompt texts received
}

func (a *agent) saw(m string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, m)
}

func (a *agent) methods() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func (a *agent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.saw("initialize")
	yes := true
	return &acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion, AgentCapabilities: &acp.AgentCapabilities{LoadSession: &yes}}, nil
}

func (a *agent) SessionNew(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	a.saw("session/new")
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.saw("session/prompt")
	text := ""
	if len(p.Prompt) > 0 && p.Prompt[0].Text != nil {
		text = p.Prompt[0].Text.Text
	}
	a.mu.Lock()
	a.prompts = append(a.prompts, text)
	a.mu.Unlock()
	for i := range a.updates {
		if err := a.say(ctx, p.SessionID, fmt.Sprintf("u%d", i)); err != nil {
			return nil, err
		}
	}
	switch text {
	case "terminal":
		_, err := a.conn.TerminalCreate(ctx, &acp.CreateTerminalRequest{SessionID: p.SessionID, Command: "ls"})
		if err := a.say(ctx, p.SessionID, fmt.Sprintf("terminal: %v", err)); err != nil {
			return nil, err
		}
	case "wait":
		<-ctx.Done()
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *agent) say(ctx context.Context, s acp.SessionID, text string) error {
	u := acp.SessionNotification{SessionID: s, Update: acp.NewSessionUpdateAgentMessageChunk(acp.ContentChunk{Content: acp.TextBlock(text)})}
	return a.conn.SessionUpdate(ctx, &u)
}

// client is a Go client on the unstable package that records the text of
// every update, in order, and runs terminals it is asked to.
type client struct {
	acp.UnimplementedClientHandler
	mu   sync.Mutex
	text []string
}

func (c *client) SessionUpdate(_ context.Context, n *acp.SessionNotification) {
	if ch := n.Update.AgentMessageChunk; ch != nil && ch.Content.Text != nil {
		c.mu.Lock()
		c.text = append(c.text, ch.Content.Text.Text)
		c.mu.Unlock()
	}
}

func (c *client) TerminalCreate(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	return &acp.CreateTerminalResponse{TerminalID: "t1"}, nil
}

func (c *client) updates() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.text...)
}

// link is one end of a duplex pipe: what a peer reads and writes.
type link struct {
	r *io.PipeReader
	w *io.PipeWriter
}

// pipes returns two connected ends.
func pipes() (a, b link) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	return link{ar, aw}, link{br, bw}
}

// chain runs p between a Go client and a (or, when a is nil, nothing: the
// successor's end is returned for the test to drive) and returns the
// client's connection, initialized with terminal support, and Run's
// result.
type chain struct {
	cc     *acp.ClientConn
	client *client
	run    chan error
	agent  link // the successor's end when the test drives it
}

func start(t *testing.T, p *proxy.Proxy, a *agent) *chain {
	t.Helper()
	clientEnd, predEnd := pipes()
	succEnd, agentEnd := pipes()
	ctx, cancel := context.WithCancel(context.Background())
	ch := &chain{client: &client{}, run: make(chan error, 1), agent: agentEnd}
	var wg sync.WaitGroup
	if a != nil {
		a.conn = acp.NewAgentConn(a, agentEnd.r, agentEnd.w, acp.ConnOptions{})
		wg.Go(func() { _ = a.conn.Run(ctx) })
	}
	ch.cc = acp.NewClientConn(ch.client, clientEnd.r, clientEnd.w, acp.ConnOptions{})
	wg.Go(func() { _ = ch.cc.Run(ctx) })
	go func() { ch.run <- p.Run(ctx, proxy.Stream(predEnd.r, predEnd.w), proxy.Stream(succEnd.r, succEnd.w)) }()
	t.Cleanup(func() {
		cancel()
		for _, l := range []link{clientEnd, predEnd, succEnd, agentEnd} {
			l.r.Close()
			l.w.Close()
		}
		wg.Wait()
	})
	return ch
}

// initialize runs initialize from the client, with terminal support.
func (ch *chain) initialize(t *testing.T) *acp.InitializeResponse {
	t.Helper()
	yes := true
	res, err := ch.cc.Initialize(context.Background(), &acp.InitializeRequest{ClientCapabilities: &acp.ClientCapabilities{Terminal: &yes}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

// prompt sends a one-text prompt to session s1.
func (ch *chain) prompt(ctx context.Context, text string) (*acp.PromptResponse, error) {
	return ch.cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// frames reads the lines a peer writes, for a test that drives a side by
// hand.
type frames struct {
	br *bufio.Reader
}

func (f frames) next(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, err := f.br.ReadString('\n')
		if err != nil {
			line = "read error: " + err.Error()
		}
		got <- strings.TrimSpace(line)
	}()
	select {
	case l := <-got:
		return l
	case <-time.After(wait):
		t.Fatal("no frame came")
		return ""
	}
}

// handAgent drives the successor's end by hand.
type handAgent struct {
	t  *testing.T
	in frames
	w  io.Writer
}

func (ch *chain) byHand(t *testing.T) *handAgent {
	return &handAgent{t: t, in: frames{bufio.NewReader(ch.agent.r)}, w: ch.agent.w}
}

// read returns the next message the agent gets and its envelope.
func (h *handAgent) read() (string, jsonrpc.Envelope) {
	h.t.Helper()
	line := h.in.next(h.t)
	env, err := jsonrpc.PeekEnvelope([]byte(line))
	if err != nil {
		h.t.Fatalf("the agent got %q: %v", line, err)
	}
	return line, env
}

// expect reads the next message, which must be method.
func (h *handAgent) expect(method string) (string, jsonrpc.Envelope) {
	h.t.Helper()
	line, env := h.read()
	if env.Name != method {
		h.t.Fatalf("the agent got %s, want %s", line, method)
	}
	return line, env
}

// send writes one line to the proxy.
func (h *handAgent) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.w, line+"\n"); err != nil {
		h.t.Fatal(err)
	}
}

// answer answers the request env with result.
func (h *handAgent) answer(env jsonrpc.Envelope, result string) {
	h.send(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"result":` + result + `}`)
}

// initialize answers the client's initialize.
func (h *handAgent) initialize() {
	_, env := h.expect("initialize")
	h.answer(env, fmt.Sprintf(`{"protocolVersion":%d}`, acp.CurrentProtocolVersion))
}

// peek returns line's envelope.
func peek(t *testing.T, line string) (string, jsonrpc.Envelope) {
	t.Helper()
	env, err := jsonrpc.PeekEnvelope([]byte(line))
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return line, env
}

// frame builds a request (id set) or a notification.
func frame(id wire.Raw, method string, params wire.Raw) []byte {
	b := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	b = append(append(b, `,"method":`...), strconvQuote(method)...)
	if len(params) > 0 {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

func strconvQuote(s string) string { return strconv.Quote(s) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// requestIDOf returns the requestId of $/cancel_request params, as JSON.
func requestIDOf(params wire.Raw) (string, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return "", false
	}
	return string(p.RequestID), true
}
