package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// guard bounds every wait so that a bug fails the test instead of hanging
// it; no assertion depends on it.
const guard = 30 * time.Second

// captured collects log lines at every level.
type captured struct {
	mu sync.Mutex
	b  strings.Builder
}

func (c *captured) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.Write(p)
}

func (c *captured) loud() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, l := range strings.Split(c.b.String(), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func (c *captured) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// The prompt every client sends: one word streamed, then a step that runs
// until the turn is cancelled.
const waitPrompt = "hello " + waitWord

// v1Client reports the first chunk of its turn.
type v1Client struct {
	acp.UnimplementedClientHandler
	streamed chan struct{}
	once     sync.Once
}

func (c *v1Client) SessionUpdate(_ context.Context, n *acp.SessionNotification) {
	if n.Update.AgentMessageChunk != nil {
		c.once.Do(func() { close(c.streamed) })
	}
}

// v2Client reports the first chunk of its turn and how the turn ended.
type v2Client struct {
	acp2.UnimplementedClientHandler
	streamed chan struct{}
	once     sync.Once
	idle     chan acp2.IdleStateUpdateStopReason
}

func (c *v2Client) SessionUpdate(_ context.Context, n *acp2.UpdateSessionNotification) {
	switch u := n.Update; {
	case u.AgentMessageChunk != nil:
		c.once.Do(func() { close(c.streamed) })
	case u.StateUpdate != nil && u.StateUpdate.Idle != nil:
		c.idle <- u.StateUpdate.Idle.StopReason
	}
}

// turn starts a client's waiting turn on r and w and returns, once the turn
// has streamed its first word, a channel with how the turn ends: "cancelled"
// when the agent ended it with stopReason cancelled.
func turn(t *testing.T, version int, r io.Reader, w io.Writer) <-chan string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	cwd := t.TempDir()
	ended := make(chan string, 1)
	if version == 1 {
		h := &v1Client{streamed: make(chan struct{})}
		conn := acp.NewClientConn(h, r, w, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quietLog()}})
		go conn.Run(ctx)
		if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion}); err != nil {
			t.Fatalf("v1 initialize: %v", err)
		}
		s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatalf("v1 session/new: %v", err)
		}
		go func() {
			res, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(waitPrompt)}})
			if err != nil {
				ended <- err.Error()
				return
			}
			ended <- string(res.StopReason)
		}()
		within(t, h.streamed, "v1 turn streaming")
		return ended
	}
	h := &v2Client{streamed: make(chan struct{}), idle: make(chan acp2.IdleStateUpdateStopReason, 1)}
	conn := acp2.NewClientConn(h, r, w, acp2.ConnOptions{RPC: acp2.RPCOptions{Logger: quietLog()}})
	go conn.Run(ctx)
	if _, err := conn.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "drain-test", Version: "1"}}); err != nil {
		t.Fatalf("v2 initialize: %v", err)
	}
	s, err := conn.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: acp2.AbsolutePath(cwd)})
	if err != nil {
		t.Fatalf("v2 session/new: %v", err)
	}
	if _, err := conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: s.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock(waitPrompt)}}); err != nil {
		t.Fatalf("v2 session/prompt: %v", err)
	}
	within(t, h.streamed, "v2 turn streaming")
	go func() {
		select {
		case stop := <-h.idle:
			if stop.Cancelled != nil {
				ended <- "cancelled"
			} else {
				ended <- fmt.Sprintf("idle %+v", stop)
			}
		case <-ctx.Done():
			ended <- "no idle state"
		}
	}()
	return ended
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// 20 clients, v1 and v2 on both profiles, each mid-turn in a step that only
// cancellation ends: Shutdown with a short grace ends every turn with
// stopReason cancelled (v2: the idle state), and every answer arrives.
func TestShutdownEndsTurnsCancelled(t *testing.T) {
	var logs captured
	log := logs.logger()
	st := &store{sessions: map[acp.SessionID]*session{}}
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		return serveConn(ctx, st, log, c, c)
	}, acphttp.Options{Logger: log})
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	const clients = 20
	ended := make([]<-chan string, clients)
	names := make([]string, clients)
	for i := range clients {
		profile := []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP}[i%2]
		version := 1 + i/2%2
		names[i] = fmt.Sprintf("client %d (%s, v%d)", i, profile, version)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		c, err := acphttp.Dial(ctx, ts.URL+"/acp", acphttp.DialOptions{Profile: profile, Logger: quietLog()})
		cancel()
		if err != nil {
			t.Fatalf("%s: dial: %v", names[i], err)
		}
		defer c.Close()
		ended[i] = turn(t, version, c, c)
	}

	grace, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(grace); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the grace's end", err)
	}
	for i, ch := range ended {
		if got := within(t, ch, names[i]+"'s answer"); got != "cancelled" {
			t.Errorf("%s: turn ended %q, want cancelled", names[i], got)
		}
	}
	if loud := logs.loud(); loud != "" {
		t.Errorf("the drain logged:\n%s", loud)
	}
}

// On stdio, the end of serveDrained's context (a signal) drains the
// connection the same way, and serveDrained returns once it has.
func TestStdioDrainOnSignal(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			var logs captured
			st := &store{sessions: map[acp.SessionID]*session{}}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			defer inW.Close()
			defer outR.Close()
			sig, signal := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- serveDrained(sig, 100*time.Millisecond, st, logs.logger(), inR, outW) }()
			ended := turn(t, version, outR, inW)
			signal()
			if got := within(t, ended, "the turn's end"); got != "cancelled" {
				t.Errorf("turn ended %q, want cancelled", got)
			}
			if err := within(t, served, "serveDrained"); err != nil {
				t.Errorf("serveDrained: %v", err)
			}
			if loud := logs.loud(); loud != "" {
				t.Errorf("the drain logged:\n%s", loud)
			}
		})
	}
}
