package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/wire"
)

// echoAgent streams a prompt's text back as agent_message_chunk updates and
// waits for session/cancel when the prompt says "wait".
type echoAgent struct {
	acp.UnimplementedAgentHandler
	conn    *acp.AgentConn
	waiting chan struct{}
	// final, when set, is sent as a last update on the turn's context once
	// session/cancel has ended it; finalErr is what sending it returned.
	final    string
	finalErr chan error
}

func (a *echoAgent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{
		SessionCapabilities: &acp.SessionCapabilities{AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{}},
	}}, nil
}

func (a *echoAgent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: acp.SessionID("s-" + strings.Join(p.EffectiveRoots(), ","))}, nil
}

func (a *echoAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue
		}
		if b.Text.Text == "wait" {
			close(a.waiting)
			<-ctx.Done()
			if a.final != "" {
				u := acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunkText(a.final)}
				a.finalErr <- a.conn.SessionUpdate(ctx, &u)
			}
			return nil, ctx.Err()
		}
		for _, w := range strings.Fields(b.Text.Text) {
			u := acp.SessionNotification{SessionID: p.SessionID, Update: acp.NewSessionUpdateAgentMessageChunk(acp.ContentChunk{Content: acp.NewContentBlockText(acp.TextContent{Text: w})})}
			if err := a.conn.SessionUpdate(ctx, &u); err != nil {
				return nil, err
			}
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type recordingClient struct {
	acp.UnimplementedClientHandler
	mu      sync.Mutex
	updates []string
}

func (c *recordingClient) SessionUpdate(ctx context.Context, p *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, p.Update.AgentMessageChunk.Content.Text.Text)
}

func pair(t *testing.T) (*acp.ClientConn, *recordingClient, *echoAgent, func()) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	agent := &echoAgent{waiting: make(chan struct{})}
	agent.conn = acp.NewAgentConn(agent, ar, aw, acp.ConnOptions{})
	client := &recordingClient{}
	cc := acp.NewClientConn(client, cr, cw, acp.ConnOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); agent.conn.Run(ctx) }()
	go func() { defer wg.Done(); cc.Run(ctx) }()
	return cc, client, agent, func() { cancel(); cw.Close(); aw.Close(); wg.Wait() }
}

func TestDispatchFlow(t *testing.T) {
	cc, client, agent, stop := pair(t)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Outbound gates need negotiation first.
	if _, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{}}); err == nil {
		t.Fatal("session/new sent before initialize")
	}
	init, err := cc.Initialize(ctx, &acp.InitializeRequest{})
	if err != nil || init.ProtocolVersion != acp.CurrentProtocolVersion {
		t.Fatalf("initialize: %+v %v", init, err)
	}
	s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{}, AdditionalDirectories: []string{"/a", "/b"}})
	if err != nil || s.SessionID != "s-/w,/a,/b" {
		t.Fatalf("session/new: %+v %v", s, err)
	}
	// An http MCP server was not advertised: refused before sending.
	_, err = cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{acp.NewMCPServerHTTP(acp.MCPServerHTTP{Name: "h", URL: "https://x", Headers: []acp.HTTPHeader{}})}})
	var ge *wire.GateError
	if !errors.As(err, &ge) || ge.Violations[0].Capability != "agentCapabilities.mcpCapabilities.http" {
		t.Fatalf("http MCP server not gated: %v", err)
	}
	// A relative root is invalid params, checked before sending.
	if _, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{}, AdditionalDirectories: []string{"rel"}}); err == nil || !strings.Contains(err.Error(), "/additionalDirectories/0: must be an absolute path") {
		t.Fatalf("relative root: %v", err)
	}
	// Streamed updates arrive before the prompt's response.
	r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "one two three"})}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
	client.mu.Lock()
	got := strings.Join(client.updates, " ")
	client.mu.Unlock()
	if got != "one two three" {
		t.Fatalf("updates before the response: %q", got)
	}
	// session/cancel mid-turn: the prompt answers stopReason cancelled.
	done := make(chan *acp.PromptResponse)
	go func() {
		r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "wait"})}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-agent.waiting
	if err := cc.SessionCancel(ctx, &acp.CancelNotification{SessionID: s.SessionID}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r == nil || r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("cancelled prompt answered %+v", r)
	}
	// Raw sends bypass the checks; the agent's dispatcher answers them.
	_, err = cc.Send(ctx, acp.MethodSessionNew, wire.Raw(`{"cwd":"relative","mcpServers":[]}`))
	var rpc *wire.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32602 || !strings.Contains(rpc.Message, "/cwd") {
		t.Fatalf("invalid params over the wire: %v", err)
	}
	_, err = cc.Send(ctx, acp.MethodSessionLoad, wire.Raw(`{"sessionId":"s","cwd":"/w","mcpServers":[]}`))
	if !errors.As(err, &rpc) || rpc.Code != -32601 {
		t.Fatalf("session/load without loadSession: %v", err)
	}
	_, err = cc.Send(ctx, "_vendor/thing", wire.Raw(`{}`))
	if !errors.As(err, &rpc) || rpc.Code != -32601 {
		t.Fatalf("unknown extension method: %v", err)
	}
}

// Raw frames: errors as the official SDKs give them.
func TestDispatchFrames(t *testing.T) {
	in, toAgent := io.Pipe()
	fromAgent, out := io.Pipe()
	agent := &echoAgent{}
	agent.conn = acp.NewAgentConn(agent, in, out, acp.ConnOptions{})
	go agent.conn.Run(context.Background())
	defer toAgent.Close()
	lines := bufio.NewScanner(fromAgent)
	send := func(frame string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(toAgent, frame+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatal("no reply")
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	sendBatch := func(frame string) []map[string]any {
		t.Helper()
		if _, err := io.WriteString(toAgent, frame+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatal("no reply")
		}
		var m []map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", lines.Bytes(), err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	if m := send(`{not json`); code(m) != -32700 || m["id"] != nil {
		t.Fatalf("parse error: %v", m)
	}
	// A batch: each entry answered as a frame of its own, in one array.
	if m := sendBatch(`[{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}]`); len(m) != 1 || code(m[0]) != -32600 || m[0]["id"] != 1.0 {
		t.Fatalf("batch: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`); code(m) != -32600 {
		t.Fatalf("before initialize: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":"x","method":"no/such","params":{}}`); code(m) != -32601 || m["id"] != "x" {
		t.Fatalf("unknown method: %v", m)
	}
	m := send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text"}]}}`)
	data, _ := json.Marshal(m["error"])
	if code(m) != -32602 || !strings.Contains(string(data), `"pointer":"/prompt/0"`) {
		t.Fatalf("invalid params: %s", data)
	}
}

// blockingAgent holds every prompt turn until its context ends.
type blockingAgent struct {
	acp.UnimplementedAgentHandler
	started chan acp.SessionID
}

func (a *blockingAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{}, nil
}

func (a *blockingAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.started <- p.SessionID
	<-ctx.Done()
	return nil, ctx.Err()
}

// One session/cancel ends every prompt turn of the session, not only the
// newest; a turn of another session goes on.
func TestDispatchCancelEndsEveryTurnOfSession(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	agent := &blockingAgent{started: make(chan acp.SessionID, 8)}
	ac := acp.NewAgentConn(agent, ar, aw, acp.ConnOptions{})
	cc := acp.NewClientConn(&recordingClient{}, cr, cw, acp.ConnOptions{})
	runCtx, stopRun := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ac.Run(runCtx) }()
	go func() { defer wg.Done(); cc.Run(runCtx) }()
	defer func() { stopRun(); cw.Close(); aw.Close(); wg.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	prompt := func(s acp.SessionID, ctx context.Context) <-chan *acp.PromptResponse {
		done := make(chan *acp.PromptResponse, 1)
		go func() {
			r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "x"})}})
			if err != nil && ctx.Err() == nil {
				t.Error(err)
			}
			done <- r
		}()
		return done
	}
	const turns = 3
	var answers []<-chan *acp.PromptResponse
	for range turns {
		answers = append(answers, prompt("s1", ctx))
	}
	otherCtx, stopOther := context.WithCancel(ctx)
	other := prompt("s2", otherCtx)
	for range turns + 1 {
		select {
		case <-agent.started:
		case <-ctx.Done():
			t.Fatal("turns did not start")
		}
	}
	if err := cc.SessionCancel(ctx, &acp.CancelNotification{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	for i, ch := range answers {
		select {
		case r := <-ch:
			if r == nil || r.StopReason != acp.StopReasonCancelled {
				t.Fatalf("turn %d answered %+v", i, r)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("turn %d of %d was not ended by session/cancel", i+1, turns)
		}
	}
	select {
	case r := <-other:
		t.Fatalf("the other session's turn ended too: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	stopOther()
	<-other
}

// scriptedAgent is an agent on raw frames that ignores $/cancel_request, as
// some agents do, and records what it receives.
type scriptedAgent struct {
	prompts  chan string // ids of session/prompt requests
	cancels  chan string // sessionIds of session/cancel notifications
	requests chan string // ids of $/cancel_request notifications
}

func (a *scriptedAgent) serve(t *testing.T, in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string          `json:"sessionId"`
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("agent read %q: %v", sc.Text(), err)
			return
		}
		switch m.Method {
		case "initialize":
			io.WriteString(out, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":1}}`+"\n")
		case "session/prompt":
			a.prompts <- string(m.ID)
		case "$/cancel_request":
			a.requests <- string(m.Params.RequestID) // and otherwise ignored
		case "session/cancel":
			a.cancels <- m.Params.SessionID
		}
	}
}

// When the context of ClientConn.SessionPrompt ends, the client sends
// session/cancel for the session: an agent that ignores $/cancel_request
// still learns that the turn is over.
func TestDispatchPromptContextEndSendsSessionCancel(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	agent := &scriptedAgent{prompts: make(chan string, 1), cancels: make(chan string, 1), requests: make(chan string, 1)}
	go agent.serve(t, ar, aw)
	cc := acp.NewClientConn(&recordingClient{}, cr, cw, acp.ConnOptions{})
	runDone := make(chan struct{})
	go func() { defer close(runDone); cc.Run(context.Background()) }()
	defer func() { cw.Close(); aw.Close(); <-runDone }()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	turnCtx, endTurn := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cc.SessionPrompt(turnCtx, &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "x"})}})
		errc <- err
	}()
	var id string
	select {
	case id = <-agent.prompts:
	case <-ctx.Done():
		t.Fatal("no session/prompt")
	}
	endTurn()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("SessionPrompt returned %v", err)
		}
	case <-ctx.Done():
		t.Fatal("SessionPrompt did not return")
	}
	select {
	case got := <-agent.requests:
		if got != id {
			t.Fatalf("$/cancel_request for %s, want %s", got, id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no $/cancel_request")
	}
	select {
	case s := <-agent.cancels:
		if s != "s1" {
			t.Fatalf("session/cancel for %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no session/cancel after the prompt's context ended")
	}
}

// A handler that sends its last update on the turn's own context after
// session/cancel ended it (the obvious code) still gets it written, before
// the prompt's answer, and gets no error back.
func TestDispatchFinalUpdateAfterCancel(t *testing.T) {
	cc, client, agent, stop := pair(t)
	defer stop()
	agent.final, agent.finalErr = "stopped", make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	answer := make(chan *acp.PromptResponse, 1)
	go func() {
		r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.TextBlock("wait")}})
		if err != nil {
			t.Error(err)
		}
		answer <- r
	}()
	<-agent.waiting
	if err := cc.SessionCancel(ctx, &acp.CancelNotification{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := <-agent.finalErr; err != nil {
		t.Errorf("SessionUpdate on the cancelled turn's context: %v", err)
	}
	if r := <-answer; r == nil || r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("answer %+v, want stopReason cancelled", r)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if len(client.updates) != 1 || client.updates[0] != "stopped" {
		t.Errorf("updates before the answer: %q, want the final one", client.updates)
	}
}

// failingStore is a session store whose Append always fails.
type failingStore struct{ session.Store }

func (failingStore) Append(context.Context, string, ...session.Event) (uint64, error) {
	return 0, errors.New("disk full")
}

// With session.Recorder as its Record hook, an agent connection appends the
// update of every session/update it sends to the session's log before the
// frame is written, and session.Replay gives them back in order; an update
// the store cannot record is not sent, and SessionUpdate returns why.
func TestDispatchRecordsUpdatesBeforeSending(t *testing.T) {
	for _, c := range []struct {
		name  string
		store func(session.Store) session.Store
	}{{"recorded", func(s session.Store) session.Store { return s }}, {"store fails", func(s session.Store) session.Store { return failingStore{s} }}} {
		t.Run(c.name, func(t *testing.T) {
			mem := session.NewMemory()
			ctx := context.Background()
			if _, err := mem.Create(ctx, session.Info{ID: "s", Cwd: "/"}); err != nil {
				t.Fatal(err)
			}
			ar, cw := io.Pipe()
			cr, aw := io.Pipe()
			agent := &echoAgent{waiting: make(chan struct{})}
			agent.conn = acp.NewAgentConn(agent, ar, aw, acp.ConnOptions{Record: session.Recorder(c.store(mem))})
			client := &recordingClient{}
			cc := acp.NewClientConn(client, cr, cw, acp.ConnOptions{})
			runCtx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); agent.conn.Run(runCtx) }()
			go func() { defer wg.Done(); cc.Run(runCtx) }()
			defer func() { stop(); cw.Close(); aw.Close(); wg.Wait() }()
			if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			_, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.TextBlock("one two")}})
			var texts []string
			n, rerr := session.Replay(ctx, mem, "s", func(u json.RawMessage) error {
				var v acp.SessionUpdate
				if err := v.UnmarshalJSON(u); err != nil {
					return err
				}
				texts = append(texts, v.AgentMessageChunk.Content.Text.Text)
				return nil
			})
			if rerr != nil {
				t.Fatal(rerr)
			}
			client.mu.Lock()
			defer client.mu.Unlock()
			if c.name == "recorded" {
				if err != nil || n != 2 || strings.Join(texts, " ") != "one two" || len(client.updates) != 2 {
					t.Errorf("prompt %v; replayed %d %q; client got %q", err, n, texts, client.updates)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "disk full") || n != 0 || len(client.updates) != 0 {
				t.Errorf("prompt %v, want the store's error; replayed %d; client got %q", err, n, client.updates)
			}
		})
	}
}

// versionAgent answers initialize with version, recording the version the
// client's params carried.
type versionAgent struct {
	acp.UnimplementedAgentHandler
	version acp.ProtocolVersion
	got     chan acp.ProtocolVersion
}

func (a *versionAgent) Initialize(_ context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.got <- p.ProtocolVersion
	return &acp.InitializeResponse{ProtocolVersion: a.version}, nil
}

// The runtime negotiates the version (dispatch.Opening): params and a
// result that leave it 0 speak the package's, and a client refuses an
// agent of another version, whose connection then is not ready.
func TestDispatchNegotiatesVersion(t *testing.T) {
	for _, tc := range []struct {
		answer, want acp.ProtocolVersion
		refused      bool
	}{
		{0, acp.CurrentProtocolVersion, false},
		{acp.CurrentProtocolVersion, acp.CurrentProtocolVersion, false},
		{acp.CurrentProtocolVersion + 1, 0, true},
	} {
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		agent := &versionAgent{version: tc.answer, got: make(chan acp.ProtocolVersion, 1)}
		ac := acp.NewAgentConn(agent, ar, aw, acp.ConnOptions{})
		cc := acp.NewClientConn(&recordingClient{}, cr, cw, acp.ConnOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		go ac.Run(ctx)
		go cc.Run(ctx)
		res, err := cc.Initialize(ctx, &acp.InitializeRequest{})
		if sent := <-agent.got; sent != acp.CurrentProtocolVersion {
			t.Errorf("answer %d: the agent got version %d, want %d", tc.answer, sent, acp.CurrentProtocolVersion)
		}
		var ve *dispatch.VersionError
		switch {
		case tc.refused && (!errors.As(err, &ve) || ve.Got != uint64(tc.answer) || ve.Want != uint64(acp.CurrentProtocolVersion)):
			t.Errorf("answer %d: %v, want a VersionError", tc.answer, err)
		case tc.refused && cc.Negotiated().Response != nil:
			t.Errorf("answer %d: refused, yet negotiated", tc.answer)
		case !tc.refused && (err != nil || res.ProtocolVersion != tc.want || ac.Negotiated().Response.ProtocolVersion != tc.want):
			t.Errorf("answer %d: %+v, %v; want version %d on both sides", tc.answer, res, err, tc.want)
		}
		cancel()
		cw.Close()
		aw.Close()
	}
}
