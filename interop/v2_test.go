package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/wire"
)

// The TypeScript SDK's experimental v2 client drives the Go example agent,
// which serves v1 and v2 behind runtime/router.
func TestTypeScriptV2ClientDrivesGoAgent(t *testing.T) {
	requireSDK(t)
	agent, _ := binaries(t)
	cwd, dirs := roots(t)
	out, err := run(t, "node", append([]string{"ts-v2-client.mjs", agent, cwd}, dirs...)...)
	if err != nil {
		t.Fatalf("ts-v2-client.mjs: %v", err)
	}
	got := wantSteps(t, out, "initialize", "session/new", "session/prompt", "session/prompt text",
		"session/cancel", "invalid params", "exit")
	if want := "protocolVersion=2 agent=acpgen-example-agent"; !strings.Contains(got["initialize"], want) {
		t.Errorf("initialize: %q, want %q", got["initialize"], want)
	}
	if want := "roots=" + strings.Join(append([]string{cwd}, dirs...), ","); !strings.Contains(got["session/new"], want) {
		t.Errorf("session/new: %q, want %q", got["session/new"], want)
	}
	want := `messageId=user-1 updates=["user_message user-1 text:hello streamed world","running","chunk:hello","chunk: streamed","chunk: world","idle:end_turn"]`
	if got["session/prompt"] != want {
		t.Errorf("session/prompt: %q, want %q", got["session/prompt"], want)
	}
}

// v2Updates is a generated v2 ClientHandler that queues every session/update
// as a short description (see describeV2).
type v2Updates struct {
	acp2.UnimplementedClientHandler
	updates chan string
}

func (h *v2Updates) SessionUpdate(ctx context.Context, p *acp2.UpdateSessionNotification) {
	h.updates <- describeV2(p.Update)
}

// describeV2 names an update the way ts-v2-client.mjs does.
func describeV2(u acp2.SessionUpdate) string {
	switch {
	case u.UserMessage != nil:
		var text []string
		for _, b := range u.UserMessage.Content {
			if b.Text != nil {
				text = append(text, "text:"+b.Text.Text)
			}
		}
		return fmt.Sprintf("user_message %s %s", u.UserMessage.MessageID, strings.Join(text, ","))
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		return "chunk:" + u.AgentMessageChunk.Content.Text.Text
	case u.StateUpdate != nil && u.StateUpdate.Running != nil:
		return "running"
	case u.StateUpdate != nil && u.StateUpdate.Idle != nil:
		stop := u.StateUpdate.Idle.StopReason
		switch {
		case stop.EndTurn != nil:
			return "idle:end_turn"
		case stop.Cancelled != nil:
			return "idle:cancelled"
		}
		return "idle:" + stop.Kind().String()
	}
	b, _ := u.MarshalJSON()
	return "other " + string(b)
}

// untilIdle reads queued updates up to and including the next idle state.
func untilIdle(t *testing.T, updates <-chan string) []string {
	t.Helper()
	var got []string
	for {
		select {
		case u := <-updates:
			got = append(got, u)
			if strings.HasPrefix(u, "idle:") {
				return got
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no idle state within 10 s; updates so far %q", got)
		}
	}
}

// A generated v2 ClientConn drives an agent written with the TypeScript SDK's
// experimental v2 agent side.
func TestGoV2ClientDrivesTypeScriptAgent(t *testing.T) {
	requireSDK(t)
	cwd, dirs := roots(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "ts-v2-agent.mjs")
	cmd.Stderr = os.Stderr
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
	h := &v2Updates{updates: make(chan string, 64)}
	logs := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := acp2.NewClientConn(h, stdout, stdin, acp2.ConnOptions{RPC: acp2.RPCOptions{Logger: logs}})
	runDone := make(chan error, 1)
	go func() { runDone <- c.Run(ctx) }()

	init, err := c.Initialize(ctx, &acp2.InitializeRequest{Info: acp2.Implementation{Name: "acpgen-interop", Version: "0"}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ProtocolVersion != 2 || init.Info.Name != "typescript-sdk-v2-agent" ||
		init.Capabilities == nil || init.Capabilities.Session == nil || init.Capabilities.Session.AdditionalDirectories == nil {
		b, _ := init.MarshalJSON()
		t.Fatalf("initialize: %s", b)
	}

	sess, err := c.SessionNew(ctx, &acp2.NewSessionRequest{
		Cwd:                   acp2.AbsolutePath(cwd),
		AdditionalDirectories: []acp2.AbsolutePath{acp2.AbsolutePath(dirs[0]), acp2.AbsolutePath(dirs[1])},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	var roots []string
	if err := json.Unmarshal(sess.Meta["acpgen/roots"], &roots); err != nil || !reflect.DeepEqual(roots, append([]string{cwd}, dirs...)) {
		t.Errorf("session/new _meta roots %q (%v), want %q", roots, err, append([]string{cwd}, dirs...))
	}

	prompt := func(text string) acp2.MessageID {
		t.Helper()
		res, err := c.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: sess.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock(text)}})
		if err != nil {
			t.Fatalf("session/prompt %q: %v", text, err)
		}
		return res.MessageID
	}
	id := prompt("hello streamed world")
	want := []string{"user_message " + string(id) + " text:hello streamed world", "running",
		"chunk:hello", "chunk: streamed", "chunk: world", "idle:end_turn"}
	if got := untilIdle(t, h.updates); !reflect.DeepEqual(got, want) {
		t.Errorf("session/prompt updates:\n  %q\nwant\n  %q", got, want)
	}

	// session/cancel mid-turn: "wait" blocks the agent until cancelled.
	prompt("before wait after")
	for u := ""; u != "chunk:before"; {
		select {
		case u = <-h.updates:
		case <-time.After(10 * time.Second):
			t.Fatal("session/cancel: no chunk \"before\" within 10 s")
		}
	}
	if err := c.SessionCancel(ctx, &acp2.CancelSessionNotification{SessionID: sess.SessionID}); err != nil {
		t.Fatalf("session/cancel: %v", err)
	}
	if got := untilIdle(t, h.updates); !reflect.DeepEqual(got, []string{"idle:cancelled"}) {
		t.Errorf("after session/cancel: %q, want only idle:cancelled", got)
	}

	// The generated ClientConn refuses an invalid prompt before sending it;
	// sent raw, the TypeScript agent answers -32602.
	_, err = c.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: sess.SessionID, Prompt: []acp2.ContentBlock{}})
	var local *wire.LocalError
	if !errors.As(err, &local) {
		t.Errorf("session/prompt with no blocks: %v, want a LocalError (refused before sending)", err)
	}
	_, err = c.Send(ctx, acp2.MethodSessionPrompt, wire.Raw(`{"sessionId":"`+string(sess.SessionID)+`","prompt":[{"type":"text"}]}`))
	var rpcErr *wire.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeInvalidParams {
		t.Errorf("session/prompt without text: %v, want -32602", err)
	}

	// Closing its stdin ends the agent; Run sees its stdout end before
	// Wait closes the pipe (Wait must follow the last read).
	stdin.Close()
	if err := <-runDone; err != nil {
		t.Errorf("ClientConn.Run: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("ts-v2-agent.mjs: %v", err)
	}
}

// rawConn speaks raw JSON-RPC frames to a process.
type rawConn struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T, ctx context.Context, bin string) (*rawConn, *exec.Cmd) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &rawConn{t: t, in: in, out: bufio.NewReader(out)}, cmd
}

// call sends a request and returns its response, skipping notifications.
func (c *rawConn) call(id int, method, params string) map[string]any {
	c.t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	if _, err := io.WriteString(c.in, frame); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: reading the response: %v", method, err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("%s: %q: %v", method, line, err)
		}
		if m["id"] == float64(id) {
			return m
		}
	}
}

// One binary, one endpoint: a v1 initialize reaches the v1 agent and a v2
// initialize the v2 agent, each serving the rest of its connection.
func TestRoutedBinaryServesV1AndV2(t *testing.T) {
	requireSDK(t) // for the example binaries' build, like the other tests
	agent, _ := binaries(t)
	cwd, _ := roots(t)
	cases := []struct {
		name      string
		init      string
		version   float64
		infoKey   string // the member naming the agent: v1 agentInfo, v2 info
		newParams string
		resultKey string // what session/prompt answers with: v1 stopReason, v2 messageId
	}{
		{"v1", `{"protocolVersion":1,"clientCapabilities":{}}`, 1, "agentInfo", `{"cwd":%q,"mcpServers":[]}`, "stopReason"},
		{"v2", `{"protocolVersion":2,"info":{"name":"raw","version":"0"}}`, 2, "info", `{"cwd":%q}`, "messageId"},
		// A newer version than any configured one is served by the highest.
		{"v3 to v2", `{"protocolVersion":3,"info":{"name":"raw","version":"0"}}`, 2, "info", `{"cwd":%q}`, "messageId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			c, cmd := startRaw(t, ctx, agent)
			// An unsupported version is refused without closing the
			// connection: initialize may be sent again.
			m := c.call(0, "initialize", `{"protocolVersion":0}`)
			if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32022) ||
				!reflect.DeepEqual(e["data"], map[string]any{"requested": float64(0), "supported": []any{float64(1), float64(2)}}) {
				t.Fatalf("initialize with version 0: %v, want -32022 with requested 0, supported [1 2]", m)
			}
			m = c.call(1, "initialize", tc.init)
			res, _ := m["result"].(map[string]any)
			if res == nil || res["protocolVersion"] != tc.version || res[tc.infoKey] == nil {
				t.Fatalf("initialize: %v, want protocolVersion %v with %s", m, tc.version, tc.infoKey)
			}
			m = c.call(2, "session/new", fmt.Sprintf(tc.newParams, cwd))
			res, _ = m["result"].(map[string]any)
			if res == nil || res["sessionId"] == nil {
				t.Fatalf("session/new: %v", m)
			}
			m = c.call(3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}`, res["sessionId"]))
			res, _ = m["result"].(map[string]any)
			if res == nil || res[tc.resultKey] == nil {
				t.Fatalf("session/prompt: %v, want a result with %s", m, tc.resultKey)
			}
			c.in.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("agent: %v", err)
			}
		})
	}
}
