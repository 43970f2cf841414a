package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
)

// guard bounds every wait, generous for a loaded machine; no assertion
// depends on it.
const guard = 2 * time.Minute

// agentEnv makes the test binary the agent of testAgent instead of
// running tests.
const agentEnv = "EXAMPLE_PROXY_TEST_AGENT"

var (
	bin      string // where needBinaries built proxy, agent and client
	buildErr error
	build    sync.Once
)

func TestMain(m *testing.M) {
	if os.Getenv(agentEnv) != "" {
		serveTestAgent()
		return
	}
	code := m.Run()
	if bin != "" {
		os.RemoveAll(bin)
	}
	os.Exit(code)
}

// needBinaries builds the proxy, examples/agent and examples/client once.
func needBinaries(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	build.Do(func() {
		if bin, buildErr = os.MkdirTemp("", "example-proxy"); buildErr != nil {
			return
		}
		for name, pkg := range map[string]string{"proxy": ".", "agent": "../agent", "client": "../client"} {
			if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg).CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// testAgent is an agent that ignores its capabilities: each turn reports
// whether initialize offered it terminals, sends terminal/create anyway
// and reports the answer's error code, sends a usage_update of 100 tokens
// more than the last, and answers with a usage of 20 input and 10 output
// tokens.
type testAgent struct {
	acp.UnimplementedAgentHandler
	conn    *acp.AgentConn
	offered bool
	used    uint64
}

func serveTestAgent() {
	a := &testAgent{}
	a.conn = acp.NewAgentConn(a, os.Stdin, os.Stdout, acp.ConnOptions{})
	if err := a.conn.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "test agent:", err)
		os.Exit(1)
	}
}

func (a *testAgent) Initialize(_ context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	a.offered = p.ClientCapabilities != nil && p.ClientCapabilities.Terminal != nil && *p.ClientCapabilities.Terminal
	return &acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion}, nil
}

func (a *testAgent) SessionNew(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *testAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	say := func(text string) error {
		return a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunkText(text)})
	}
	if len(p.Prompt) > 0 && p.Prompt[0].Text != nil && p.Prompt[0].Text.Text == "ask" {
		return a.ask(ctx, p.SessionID, say)
	}
	if err := say(fmt.Sprintf("offered=%t", a.offered)); err != nil {
		return nil, err
	}
	// Send skips the gates that TerminalCreate would apply.
	_, err := a.conn.Send(ctx, acp.MethodTerminalCreate, acp.Raw(`{"sessionId":"`+string(p.SessionID)+`","command":"ls"}`))
	if err := say(fmt.Sprintf("create=%v", errCode(err))); err != nil {
		return nil, err
	}
	a.used += 100
	u := acp.NewSessionUpdateUsageUpdate(acp.UsageUpdate{Used: a.used, Size: 1000})
	if err := a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: u}); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: &acp.Usage{InputTokens: 20, OutputTokens: 10, TotalTokens: 30}}, nil
}

// ask is the turn of the prompt "ask": it asks the editor for permission
// and reports the option chosen.
func (a *testAgent) ask(ctx context.Context, session acp.SessionID, say func(string) error) (*acp.PromptResponse, error) {
	res, err := a.conn.SessionRequestPermission(ctx, &acp.RequestPermissionRequest{SessionID: session, ToolCall: acp.ToolCallUpdate{ToolCallID: "t1"},
		Options: []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}}})
	if err != nil {
		return nil, err
	}
	chosen := "cancelled"
	if s := res.Outcome.Selected; s != nil {
		chosen = string(s.OptionID)
	}
	if err := say("chose " + chosen); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func errCode(err error) any {
	if e, ok := err.(*acp.RPCError); ok {
		return int(e.Code)
	}
	return err
}

// editor is the client side: it offers terminals, records the turn's text
// and the updates it gets, and counts the terminals it is asked for.
type editor struct {
	acp.UnimplementedClientHandler
	mu        sync.Mutex
	text      []string
	kinds     []string
	terminals int
}

func (e *editor) SessionUpdate(_ context.Context, n *acp.SessionNotification) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.kinds = append(e.kinds, string(n.Update.Kind()))
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		e.text = append(e.text, m.Content.Text.Text)
	}
}

func (e *editor) TerminalCreate(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.terminals++
	return &acp.CreateTerminalResponse{TerminalID: "t1"}, nil
}

func (e *editor) TerminalRelease(context.Context, *acp.ReleaseTerminalRequest) (*acp.ReleaseTerminalResponse, error) {
	return &acp.ReleaseTerminalResponse{}, nil
}

// turns returns the text of the turns so far, one string each, and clears
// it.
func (e *editor) turn() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := strings.Join(e.text, "")
	e.text = nil
	return s
}

// session is an editor connected to a process (the proxy, or the agent
// itself), with one session open.
type session struct {
	conn   *acp.ClientConn
	id     acp.SessionID
	stdin  io.Closer
	cmd    *exec.Cmd
	stderr *bytes.Buffer
}

// open starts args with env added, initializes offering terminals and
// opens a session.
func open(t *testing.T, ctx context.Context, e *editor, env []string, args ...string) *session {
	t.Helper()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	s := &session{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s.stdin = stdin
	s.conn = acp.NewClientConn(e, stdout, stdin, acp.ConnOptions{})
	go s.conn.Run(ctx)
	yes := true
	if _, err := s.conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion, ClientCapabilities: &acp.ClientCapabilities{Terminal: &yes}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	ns, err := s.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	s.id = ns.SessionID
	return s
}

func (s *session) prompt(t *testing.T, ctx context.Context, text string) *acp.PromptResponse {
	t.Helper()
	res, err := s.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v, %v", res, err)
	}
	return res
}

// close closes the process's stdin and returns how it exited and its
// stderr.
func (s *session) close() (error, string) {
	s.stdin.Close()
	err := s.cmd.Wait()
	return err, s.stderr.String()
}

// An agent that sends terminal/create although initialize (through the
// proxy) did not offer terminals is refused by the proxy: the editor,
// which offers terminals, is never asked. The usage it reports reaches the
// editor unchanged, and the proxy logs each session's tokens on stderr.
func TestRefusesTerminalsAndCountsTokens(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := &editor{}
	s := open(t, ctx, e, []string{agentEnv + "=1"}, filepath.Join(bin, "proxy"), "--", self)
	for range 2 {
		res := s.prompt(t, ctx, "go")
		if got := e.turn(); got != "offered=falsecreate=-32601" {
			t.Errorf("turn streamed %q, want the capability hidden and terminal/create refused -32601", got)
		}
		if res.Usage == nil || res.Usage.TotalTokens != 30 {
			t.Errorf("the turn's usage did not reach the editor: %+v", res.Usage)
		}
	}
	err, stderr := s.close()
	if err != nil {
		t.Fatalf("proxy: %v\n%s", err, stderr)
	}
	if e.terminals != 0 {
		t.Errorf("the editor was asked for %d terminals", e.terminals)
	}
	if got := strings.Join(e.kinds, ","); got != "agent_message_chunk,agent_message_chunk,usage_update,agent_message_chunk,agent_message_chunk,usage_update" {
		t.Errorf("updates %s", got)
	}
	for _, want := range []string{
		`msg="turn tokens" sessionId=s1 turns=1 input=20 output=10 total=30 contextUsed=100 contextSize=1000`,
		`msg="turn tokens" sessionId=s1 turns=2 input=40 output=20 total=60 contextUsed=200 contextSize=1000`,
		`msg="session tokens" sessionId=s1 turns=2 input=40 output=20 total=60 contextUsed=200 contextSize=1000`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
}

// examples/agent runs a terminal for an editor that offers them; behind
// the proxy the same editor's offer never reaches it, so the turn says so
// and the editor is never asked.
func TestExampleAgentSeesNoTerminal(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	for _, tc := range []struct {
		name      string
		args      []string
		want      string
		terminals int
	}{
		{"direct", []string{filepath.Join(bin, "agent")}, "hello [terminal t1] world", 1},
		{"proxied", []string{filepath.Join(bin, "proxy"), "--", filepath.Join(bin, "agent")}, "hello [no terminal] world", 0},
	} {
		e := &editor{}
		s := open(t, ctx, e, nil, tc.args...)
		s.prompt(t, ctx, "hello terminal world")
		if got := e.turn(); got != tc.want || e.terminals != tc.terminals {
			t.Errorf("%s: streamed %q with %d terminals, want %q with %d", tc.name, got, e.terminals, tc.want, tc.terminals)
		}
		if err, stderr := s.close(); err != nil {
			t.Errorf("%s: %v\n%s", tc.name, err, stderr)
		}
	}
}

// examples/client's whole flow (initialize, session/new, a streamed turn, a
// cancelled one, invalid params, an extension method, the exit) prints the
// same through the proxy as against examples/agent directly.
func TestExampleClientThroughProxy(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	flow := func(agent ...string) string {
		args := append([]string{"-echo", "-cwd", t.TempDir()}, agent...)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("client %v: %v\n%s%s", agent, err, out, stderr.String())
		}
		return anyRun.ReplaceAllString(string(out), "X")
	}
	direct := flow(filepath.Join(bin, "agent"))
	proxied := flow(filepath.Join(bin, "proxy"), "--", filepath.Join(bin, "agent"))
	if proxied != direct || !strings.Contains(direct, "ok exit:") {
		t.Errorf("through the proxy:\n%s\ndirect:\n%s", proxied, direct)
	}
}

// anyRun matches what differs between two runs: session ids and temporary
// folders.
var anyRun = regexp.MustCompile(`sess-[0-9a-f]{32}|` + regexp.QuoteMeta(os.TempDir()) + `/[^ ,"]*`)
