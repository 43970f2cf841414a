package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// cutter dials TCP connections it can cut all at once, as a network
// failure between the client and HAProxy would.
type cutter struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (c *cutter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.mu.Lock()
		c.conns = append(c.conns, conn)
		c.mu.Unlock()
	}
	return conn, err
}

func (c *cutter) cut() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.conns)
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
	return n
}

// Two agents on one PostgreSQL behind HAProxy; the client's connection to
// HAProxy is cut twice mid-turn while the agent serving it lives (once as
// the turn streams, once as it waits): the client reconnects through
// HAProxy to the same agent (the affinity cookie) and resumes, and the
// application receives every update of the turn exactly once, in order;
// the turn then ends (session/cancel) on the resumed connection. On both
// profiles.
func TestFleetResumesCutConnection(t *testing.T) {
	postgres(t) // skips (or fails under CI=true) before anything starts
	bin := agentBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const words = 300
	var prompt []string
	for i := range words {
		prompt = append(prompt, fmt.Sprintf("w%d", i))
	}
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(profile), func(t *testing.T) {
			pgURL := database(t, ctx, "cut_"+string(profile))
			agents := []*instance{startInstance(t, bin, "a1", pgURL), startInstance(t, bin, "a2", pgURL)}
			u := startHAProxy(t, t.TempDir(), agents)
			jar, _ := cookiejar.New(nil)
			cut := &cutter{}
			conn, err := acphttp.Dial(ctx, u, acphttp.DialOptions{
				Profile:    profile,
				Header:     http.Header{"Authorization": {"Bearer fleet-token"}},
				HTTPClient: &http.Client{Jar: jar, Transport: &http.Transport{DialContext: cut.dial}},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			c := &client{got: make(chan struct{}, 64)}
			cc := acp.NewClientConn(c, conn, conn, acp.ConnOptions{})
			go cc.Run(ctx)
			if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			serving := servedBy(t, jar, u)
			type answer struct {
				r   *acp.PromptResponse
				err error
			}
			done := make(chan answer, 1)
			go func() {
				r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(strings.Join(prompt, " ") + " wait")}})
				done <- answer{r, err}
			}()
			await := func(n int) {
				t.Helper()
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
					c.mu.Lock()
					got := len(c.updates)
					c.mu.Unlock()
					if got >= n {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("%d updates, want %d", got, n)
					}
				}
			}
			await(20)
			if cut.cut() == 0 {
				t.Fatal("nothing to cut")
			}
			await(words) // the rest of the streamed words, across the cut
			cut.cut()    // the turn waiting
			if err := cc.SessionCancel(ctx, &acp.CancelNotification{SessionID: s.SessionID}); err != nil {
				t.Fatalf("session/cancel after the cut: %v", err)
			}
			a := <-done
			if a.err != nil || a.r.StopReason != acp.StopReasonCancelled {
				t.Fatalf("the turn: %+v %v, want stopReason cancelled", a.r, a.err)
			}
			if now := servedBy(t, jar, u); now != serving {
				t.Errorf("served by %s after the cuts, want %s", now, serving)
			}
			want := []string{"agent w0"}
			for i := 1; i < words; i++ {
				want = append(want, fmt.Sprintf("agent  w%d", i))
			}
			want = append(want, "agent  stopped")
			c.mu.Lock()
			got := append([]string(nil), c.updates...)
			c.mu.Unlock()
			if len(got) != len(want) {
				t.Errorf("%d updates, want %d exactly once", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("update %d: %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}
