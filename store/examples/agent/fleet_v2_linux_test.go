package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// clientV2 keeps what a v2 agent sent: "user TEXT@ID", "agent TEXT@ID",
// "state running", "state idle STOPREASON" and "state idle error CODE".
type clientV2 struct {
	acp2.UnimplementedClientHandler
	mu      sync.Mutex
	updates []string
}

func (c *clientV2) SessionUpdate(_ context.Context, p *acp2.UpdateSessionNotification) {
	var s string
	switch u := p.Update; {
	case u.UserMessage != nil:
		s = fmt.Sprintf("user %s@%s", u.UserMessage.Content[0].Text.Text, u.UserMessage.MessageID)
	case u.AgentMessageChunk != nil:
		s = fmt.Sprintf("agent %s@%s", u.AgentMessageChunk.Content.Text.Text, u.AgentMessageChunk.MessageID)
	case u.StateUpdate != nil && u.StateUpdate.Running != nil:
		s = "state running"
	case u.StateUpdate != nil && u.StateUpdate.Idle != nil:
		r := u.StateUpdate.Idle.StopReason
		switch {
		case r.Error != nil && r.Error.Error != nil:
			s = fmt.Sprintf("state idle error %d", r.Error.Error.Code)
		case r.EndTurn != nil:
			s = "state idle end_turn"
		default:
			s = "state idle other"
		}
	default:
		return
	}
	c.mu.Lock()
	c.updates = append(c.updates, s)
	c.mu.Unlock()
}

func (c *clientV2) seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.updates)
}

// await waits until the updates received satisfy ok.
func (c *clientV2) await(t *testing.T, ctx context.Context, what string, ok func([]string) bool) []string {
	t.Helper()
	for {
		got := c.seen()
		if ok(got) {
			return got
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: received %q", what, got)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// dialV2 connects a v2 client through HAProxy with the cookie jar jar and
// initializes with protocol version 2.
func dialV2(t *testing.T, ctx context.Context, u string, profile acphttp.Profile, jar http.CookieJar) (*acp2.ClientConn, *clientV2) {
	t.Helper()
	conn, err := acphttp.Dial(ctx, u, acphttp.DialOptions{
		Profile:    profile,
		Header:     http.Header{"Authorization": {"Bearer fleet-token"}},
		HTTPClient: &http.Client{Jar: jar},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &clientV2{}
	cc := acp2.NewClientConn(c, conn, conn, acp2.ConnOptions{})
	go cc.Run(ctx)
	if _, err := cc.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "fleet-test", Version: "0"}}); err != nil {
		t.Fatal(err)
	}
	return cc, c
}

// The v2 fleet case: two agents on one PostgreSQL behind HAProxy, one
// principal. The agent serving a v2 turn is killed with SIGKILL after it
// has streamed (and recorded) some of it; the client reconnects through
// HAProxy to the other agent and resumes with replayFrom start: it
// receives every recorded message exactly once (with the message ids the
// dead agent gave them), then the interrupted turn's end (a state_update
// idle with stopReason error, code storeagent.InterruptedCode), before the
// answer; its next prompt runs there. On both profiles.
func TestFleetV2ResumesAfterKilledAgent(t *testing.T) {
	postgres(t) // skips (or fails under CI=true) before anything starts
	bin, dir := agentBinary(t), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(profile), func(t *testing.T) {
			pgURL := database(t, ctx, "fleet_v2_"+string(profile))
			agents := []*instance{startInstance(t, bin, "a1", pgURL), startInstance(t, bin, "a2", pgURL)}
			u := startHAProxy(t, t.TempDir(), agents)
			jar, _ := cookiejar.New(nil)

			conn, c := dialV2(t, ctx, u, profile, jar)
			s, err := conn.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: acp2.AbsolutePath(dir)})
			if err != nil {
				t.Fatal(err)
			}
			p, err := conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: s.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock("one two wait")}})
			if err != nil {
				t.Fatal(err)
			}
			agentID := "a" + strings.TrimPrefix(string(p.MessageID), "u")
			c.await(t, ctx, "the turn's stream", func(got []string) bool { return slices.Contains(got, "agent  two@"+agentID) })
			serving := servedBy(t, jar, u)
			for _, a := range agents {
				if a.name == serving {
					a.cmd.Process.Kill()
					a.cmd.Wait()
				}
			}
			var received []string
			for _, m := range c.seen() {
				if !strings.HasPrefix(m, "state ") {
					received = append(received, m)
				}
			}
			if len(received) == 0 {
				t.Fatal("nothing received before the kill")
			}

			conn2, c2 := dialV2(t, ctx, u, profile, jar)
			if now := servedBy(t, jar, u); now == serving {
				t.Fatalf("reconnected to the killed agent %s", now)
			}
			res, err := conn2.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: s.SessionID, Cwd: acp2.AbsolutePath(dir), ReplayFrom: &acp2.ReplayFrom{Start: &acp2.ReplayFromStart{}}})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"user one two wait@" + string(p.MessageID), "agent one@" + agentID, "agent  two@" + agentID,
				fmt.Sprintf("state idle error %d", storeagent.InterruptedCode),
			}
			if !slices.Equal(received, want[:3]) {
				t.Errorf("received %q before the kill, want %q", received, want[:3])
			}
			// Over Streamable HTTP the replay comes on the session's stream
			// and may trail the answer; nothing may come twice.
			got := c2.await(t, ctx, "the replay", func(got []string) bool { return len(got) >= len(want) })
			if !slices.Equal(got, want) {
				t.Errorf("resume sent %q, want %q", got, want)
			}
			if st := string(res.Meta[storeagent.TurnStateKey]); !strings.Contains(st, `"interrupted"`) {
				t.Errorf("turn state %s, want interrupted", st)
			}
			next, err := conn2.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: s.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock("next")}})
			if err != nil {
				t.Fatal(err)
			}
			nextAgent := "a" + strings.TrimPrefix(string(next.MessageID), "u")
			got = c2.await(t, ctx, "the next turn", func(got []string) bool { return slices.Contains(got, "state idle end_turn") })
			if !slices.Contains(got, "agent next@"+nextAgent) || next.MessageID == p.MessageID {
				t.Errorf("the next turn (%s) sent %q", next.MessageID, got[len(want):])
			}
		})
	}
}
