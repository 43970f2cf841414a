package main

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// The agent binary serves Options.ResumeState: a v2 client whose TCP
// connections are cut while a turn waits resumes its transport streams
// (acphttp.Dial by itself) and then receives a fresh state_update, running,
// from the agent; the turn ends on the resumed connection. On both
// profiles, with the transport's retained messages in memory and in the
// session store's database (-retain store).
func TestV2TransportResumeGetsStateFromAgent(t *testing.T) {
	bin := agentBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		profile acphttp.Profile
		retain  string
	}{{acphttp.WebSocket, "memory"}, {acphttp.StreamableHTTP, "memory"}, {acphttp.WebSocket, "store"}, {acphttp.StreamableHTTP, "store"}} {
		profile := tc.profile
		t.Run(string(profile)+"/retain="+tc.retain, func(t *testing.T) {
			inst := startInstance(t, bin, "a1", "sqlite:"+filepath.Join(t.TempDir(), "sessions.db"), "-retain", tc.retain)
			cut := &cutter{}
			conn, err := acphttp.Dial(ctx, "http://"+inst.addr+"/acp", acphttp.DialOptions{
				Profile:    profile,
				Header:     http.Header{"Authorization": {"Bearer fleet-token"}},
				HTTPClient: &http.Client{Transport: &http.Transport{DialContext: cut.dial}},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			c := &clientV2{}
			cc := acp2.NewClientConn(c, conn, conn, acp2.ConnOptions{})
			go cc.Run(ctx)
			if _, err := cc.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}}); err != nil {
				t.Fatal(err)
			}
			s, err := cc.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: acp2.AbsolutePath(t.TempDir())})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cc.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: s.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock("one wait")}})
			if err != nil {
				t.Fatal(err)
			}
			seq := string(res.MessageID[1:])
			want := []string{"user one wait@u" + seq, "state running", "agent one@a" + seq}
			c.await(t, ctx, "the turn's start", func(got []string) bool { return len(got) >= len(want) })
			if cut.cut() == 0 {
				t.Fatal("nothing to cut")
			}
			n := len(want)
			c.await(t, ctx, "the state after the resume", func(got []string) bool { return len(got) > n && got[len(got)-1] == "state running" })
			if err := cc.SessionCancel(ctx, &acp2.CancelSessionNotification{SessionID: s.SessionID}); err != nil {
				t.Fatal(err)
			}
			got := c.await(t, ctx, "the turn's end", func(got []string) bool { return len(got) > n+1 && got[len(got)-1] == "state idle other" })
			// Each resume restates the session (more than one when a request
			// reached the agent on a pooled connection the cut then closed).
			after := got[n : len(got)-1]
			if !slices.Equal(got[:n], want) || slices.ContainsFunc(after, func(u string) bool { return u != "state running" }) {
				t.Fatalf("the client received %q, want %q, then state running for each resume (at least one), then the cancelled idle", got, want)
			}
		})
	}
}
