package storeagent_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/session"
)

// cutter dials TCP connections it can cut all at once, as a network
// failure would, while the agent lives on.
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

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// awaitUpdates waits until c holds want's updates and returns them; past
// the deadline the test fails with what arrived.
func awaitUpdates(t *testing.T, c *clientV2, want []string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		got := slices.Clone(c.updates)
		c.mu.Unlock()
		if len(got) >= len(want) || time.Now().After(deadline) {
			if !slices.Equal(got, want) {
				t.Fatalf("the client received %q, want %q", got, want)
			}
			return got
		}
		time.Sleep(time.Millisecond)
	}
}

// awaitLast waits until c holds more than n updates, the last of them
// last, and returns them.
func awaitLast(t *testing.T, c *clientV2, n int, last string) []string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		got := slices.Clone(c.updates)
		c.mu.Unlock()
		if len(got) > n && got[len(got)-1] == last {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client received %q, want %q after its first %d", got, last, n)
		}
	}
}

// A v2 client whose connection is cut mid-turn resumes its transport
// streams (acphttp.Dial does by itself) and, after the replay, receives a
// fresh state_update from the agent (Agent.ResumeState, wired as the
// server's Options.ResumeState): running while the turn runs. The turn
// then ends as usual on session/cancel. Over WebSocket (the connection's
// resume restates the sessions it serves) and Streamable HTTP (the session
// stream's resume restates its session).
func TestV2TransportResumeSendsStateUpdate(t *testing.T) {
	for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(p), func(t *testing.T) {
			c, cut := dialCutV2(t, p, true)
			id := newSessionV2(t, c)
			res, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("one wait two")}})
			if err != nil {
				t.Fatal(err)
			}
			seq := string(res.MessageID[1:])
			before := []string{"user one wait two@u" + seq, "state running", "agent one@a" + seq}
			awaitUpdates(t, c, before)
			cut.cut() // the turn waits: nothing is in flight but the streams
			awaitLast(t, c, len(before), "state running")
			if err := c.conn.SessionCancel(ctx, &acp2.CancelSessionNotification{SessionID: id}); err != nil {
				t.Fatal(err)
			}
			got := awaitLast(t, c, len(before)+1, "state idle cancelled")
			// Each resume restates the session: a request that reached the
			// server on a pooled connection the cut then closed resumes
			// again, so there may be more than one.
			after := got[len(before):]
			if !slices.Equal(got[:len(before)], before) || len(after) < 2 || after[len(after)-1] != "state idle cancelled" ||
				slices.ContainsFunc(after[:len(after)-1], func(u string) bool { return u != "state running" }) {
				t.Fatalf("the client received %q, want %q, then state running once for each resume (at least one), then state idle cancelled", got, before)
			}
		})
	}
}

// Without Options.ResumeState the same resume sends no state_update:
// what TestV2TransportResumeSendsStateUpdate sees comes from the agent's
// ResumeState, not from the turn.
func TestV2TransportResumeWithoutResumeStateSendsNone(t *testing.T) {
	c, cut := dialCutV2(t, acphttp.WebSocket, false)
	id := newSessionV2(t, c)
	res, err := c.conn.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id, Prompt: []acp2.ContentBlock{acp2.TextBlock("one wait two")}})
	if err != nil {
		t.Fatal(err)
	}
	seq := string(res.MessageID[1:])
	before := []string{"user one wait two@u" + seq, "state running", "agent one@a" + seq}
	awaitUpdates(t, c, before)
	cut.cut()
	// A request answered after the cut shows the connection resumed.
	if _, err := c.conn.SessionList(ctx, &acp2.ListSessionsRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := c.conn.SessionCancel(ctx, &acp2.CancelSessionNotification{SessionID: id}); err != nil {
		t.Fatal(err)
	}
	awaitUpdates(t, c, append(before, "state idle cancelled"))
}

// dialCutV2 serves a memory-backed store agent over the network (with its
// ResumeState when withState) and returns an initialized v2 client on
// profile p whose TCP connections the cutter can cut.
func dialCutV2(t *testing.T, p acphttp.Profile, withState bool) (*clientV2, *cutter) {
	t.Helper()
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	o := acphttp.Options{}
	if withState {
		o.ResumeState = a.ResumeState
	}
	url := serveNetWith(t, a, o, "alpha-token")
	cut := &cutter{}
	hc, err := acphttp.Dial(ctx, url, acphttp.DialOptions{
		Profile:    p,
		Header:     http.Header{"Authorization": {"Bearer alpha-token"}},
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: cut.dial}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hc.Close() })
	c := &clientV2{idle: make(chan string, 16)}
	c.conn = acp2.NewClientConn(c, hc, hc, acp2.ConnOptions{})
	go c.conn.Run(t.Context())
	if _, err := c.conn.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}}); err != nil {
		t.Fatal(err)
	}
	return c, cut
}
