package storeagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/session"
)

// serveNet serves a over the network with one principal per token.
func serveNet(t *testing.T, a *storeagent.Agent, tokens ...string) string {
	return serveNetWith(t, a, acphttp.Options{}, tokens...)
}

func serveNetWith(t *testing.T, a *storeagent.Agent, o acphttp.Options, tokens ...string) string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	o.Auth, o.Logger = acphttp.BearerToken(tokens...), log
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error { return a.Serve(ctx, c, c, log) }, o)
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL + "/acp"
}

func dialNet(t *testing.T, url, token string) *acphttp.Conn {
	return dialProfile(t, url, token, acphttp.WebSocket)
}

func dialProfile(t *testing.T, url, token string, p acphttp.Profile) *acphttp.Conn {
	t.Helper()
	c, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: p, Header: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// errorShape is err as the client received it, with the session id it
// names replaced, so that the answers for two ids compare.
func errorShape(t *testing.T, err error, id string) string {
	t.Helper()
	var re *acp.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("answer %v, want a JSON-RPC error", err)
	}
	b, _ := json.Marshal(re)
	return strings.ReplaceAll(string(b), id, "ID")
}

// unknownID is a session id no one has, shaped like the agent's.
const unknownID = "sess-00000000000000000000000000000000"

// v1Net and v2Net open an initialized client connection as token's
// principal.
func v1Net(t *testing.T, url, token string) *acp.ClientConn {
	t.Helper()
	c := dialNet(t, url, token)
	cc := acp.NewClientConn(acp.UnimplementedClientHandler{}, c, c, acp.ConnOptions{})
	go cc.Run(t.Context())
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return cc
}

func v2Net(t *testing.T, url, token string) *acp2.ClientConn {
	t.Helper()
	c := dialNet(t, url, token)
	cc := acp2.NewClientConn(acp2.UnimplementedClientHandler{}, c, c, acp2.ConnOptions{})
	go cc.Run(t.Context())
	if _, err := cc.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}}); err != nil {
		t.Fatal(err)
	}
	return cc
}

// Another principal's session id is answered exactly as an unknown one
// (-32002, the same error but for the id) by every method that names a
// session, on v1 (load, resume, close, delete, fork, prompt) and v2
// (resume, close, delete, fork, prompt); the owner's session is untouched
// and the other principal's list is empty.
func TestOtherPrincipalsSessionAnsweredAsUnknown(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	url := serveNet(t, a, "alpha-token", "beta-token")
	same := func(t *testing.T, method, theirs string, call func(id string) error) {
		t.Helper()
		foreign, unknown := call(theirs), call(unknownID)
		var re *acp.RPCError
		if !errors.As(unknown, &re) || re.Code != -32002 {
			t.Fatalf("%s of an unknown session: %v, want -32002", method, unknown)
		}
		if f, u := errorShape(t, foreign, theirs), errorShape(t, unknown, unknownID); f != u {
			t.Errorf("%s of another principal's session: %s; of an unknown one: %s", method, f, u)
		}
	}

	t.Run("v1", func(t *testing.T) {
		owner, other := v1Net(t, url, "alpha-token"), v1Net(t, url, "beta-token")
		s, err := owner.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/work", MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := owner.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("mine")}}); err != nil {
			t.Fatal(err)
		}
		sid := func(id string) acp.SessionID { return acp.SessionID(id) }
		calls := map[string]func(id string) error{
			"session/load": func(id string) error {
				_, err := other.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: sid(id), Cwd: "/work", MCPServers: []acp.MCPServer{}})
				return err
			},
			"session/resume": func(id string) error {
				_, err := other.SessionResume(ctx, &acp.ResumeSessionRequest{SessionID: sid(id), Cwd: "/work"})
				return err
			},
			"session/fork": func(id string) error {
				_, err := other.SessionFork(ctx, &acp.ForkSessionRequest{SessionID: sid(id), Cwd: "/work"})
				return err
			},
			"session/prompt": func(id string) error {
				_, err := other.SessionPrompt(ctx, &acp.PromptRequest{SessionID: sid(id), Prompt: []acp.ContentBlock{acp.TextBlock("theirs")}})
				return err
			},
			"session/close": func(id string) error {
				_, err := other.SessionClose(ctx, &acp.CloseSessionRequest{SessionID: sid(id)})
				return err
			},
			"session/delete": func(id string) error {
				_, err := other.SessionDelete(ctx, &acp.DeleteSessionRequest{SessionID: sid(id)})
				return err
			},
		}
		for _, m := range []string{"session/load", "session/resume", "session/fork", "session/prompt", "session/close", "session/delete"} {
			same(t, m, string(s.SessionID), calls[m])
		}
		if l, err := other.SessionList(ctx, &acp.ListSessionsRequest{}); err != nil || len(l.Sessions) != 0 {
			t.Errorf("the other principal lists %+v, %v", l, err)
		}
		st, err := a.Store().Get(ctx, string(s.SessionID))
		if err != nil || st.Closed || st.Turn.State != session.TurnEnded || st.LastSeq != 4 {
			t.Errorf("the owner's session after the other's calls: %+v, %v", st, err)
		}
	})

	t.Run("v2", func(t *testing.T) {
		owner, other := v2Net(t, url, "alpha-token"), v2Net(t, url, "beta-token")
		s, err := owner.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: "/work"})
		if err != nil {
			t.Fatal(err)
		}
		sid := func(id string) acp2.SessionID { return acp2.SessionID(id) }
		calls := map[string]func(id string) error{
			"session/resume": func(id string) error {
				_, err := other.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: sid(id), Cwd: "/work", ReplayFrom: startCursor})
				return err
			},
			"session/fork": func(id string) error {
				_, err := other.SessionFork(ctx, &acp2.ForkSessionRequest{SessionID: sid(id), Cwd: "/work"})
				return err
			},
			"session/prompt": func(id string) error {
				_, err := other.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: sid(id), Prompt: []acp2.ContentBlock{acp2.TextBlock("theirs")}})
				return err
			},
			"session/close": func(id string) error {
				_, err := other.SessionClose(ctx, &acp2.CloseSessionRequest{SessionID: sid(id)})
				return err
			},
			"session/delete": func(id string) error {
				_, err := other.SessionDelete(ctx, &acp2.DeleteSessionRequest{SessionID: sid(id)})
				return err
			},
		}
		for _, m := range []string{"session/resume", "session/fork", "session/prompt", "session/close", "session/delete"} {
			same(t, m, string(s.SessionID), calls[m])
		}
		if l, err := other.SessionList(ctx, &acp2.ListSessionsRequest{}); err != nil || len(l.Sessions) != 0 {
			t.Errorf("the other principal lists %+v, %v", l, err)
		}
		st, err := a.Store().Get(ctx, string(s.SessionID))
		if err != nil || st.Closed || st.LastSeq != 0 {
			t.Errorf("the owner's session after the other's calls: %+v, %v", st, err)
		}
	})
}

// v1 session/fork (unstable) copies the session's record into a new session
// of the caller; the fork's turns stay out of the original.
func TestV1ForkCopiesRecord(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	url := serveNet(t, a, "alpha-token")
	c := dialNet(t, url, "alpha-token")
	cc := acp.NewClientConn(acp.UnimplementedClientHandler{}, c, c, acp.ConnOptions{})
	go cc.Run(t.Context())
	init, err := cc.Initialize(ctx, &acp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if sc := init.AgentCapabilities.SessionCapabilities; sc == nil || sc.Fork == nil {
		t.Fatalf("session capabilities %+v", sc)
	}
	s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("one two")}}); err != nil {
		t.Fatal(err)
	}
	f, err := cc.SessionFork(ctx, &acp.ForkSessionRequest{SessionID: s.SessionID, Cwd: "/other"})
	if err != nil {
		t.Fatal(err)
	}
	events := func(id acp.SessionID) []string {
		evs, err := a.Store().Events(ctx, string(id), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			out = append(out, e.Kind.String()+" "+string(e.Data))
		}
		return out
	}
	orig := events(s.SessionID)
	if fork := events(f.SessionID); len(orig) != 5 || strings.Join(fork, "\n") != strings.Join(orig, "\n") {
		t.Errorf("fork's log %q, original's %q", fork, orig)
	}
	if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: f.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("more")}}); err != nil {
		t.Fatal(err)
	}
	if got := events(s.SessionID); len(got) != len(orig) {
		t.Errorf("the fork's turn reached the original: %q", got)
	}
	fs, err := a.Store().Get(ctx, string(f.SessionID))
	if err != nil || fs.Cwd != "/other" || fs.Owner == "" {
		t.Errorf("fork %+v, %v", fs, err)
	}
}

// cursorClient keeps the agent's chunks and the transport cursor of each.
type cursorClient struct {
	acp.UnimplementedClientHandler
	mu      sync.Mutex
	texts   []string
	cursors []string
}

func (c *cursorClient) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur string
	json.Unmarshal(p.Meta[acphttp.MetaCursor], &cur)
	switch u := p.Update; {
	case u.UserMessageChunk != nil:
		c.texts = append(c.texts, "user "+u.UserMessageChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil:
		c.texts = append(c.texts, "agent "+u.AgentMessageChunk.Content.Text.Text)
	}
	c.cursors = append(c.cursors, cur)
}

// A session whose transport log is past its bound: resuming the event
// stream from a cursor the server no longer retains is refused (409
// expired_cursor), and session/load (v1) and session/resume with replayFrom
// (v2) still replay the whole conversation from the store.
func TestLogPastBoundResumeRefusedLoadWorks(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	url := serveNetWith(t, a, acphttp.Options{RetainMessages: 2}, "alpha-token")
	tc := dialProfile(t, url, "alpha-token", acphttp.StreamableHTTP)
	c := &cursorClient{}
	cc := acp.NewClientConn(c, tc, tc, acp.ConnOptions{})
	go cc.Run(t.Context())
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	const words = "w1 w2 w3 w4 w5 w6 w7 w8"
	if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(words)}}); err != nil {
		t.Fatal(err)
	}
	var first string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		n := len(c.cursors)
		if n > 0 {
			first = c.cursors[0]
		}
		c.mu.Unlock()
		if n == 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d updates received, want 8", n)
		}
	}
	if first == "" {
		t.Fatal("the updates carry no cursor")
	}
	resumeRefused(t, url, tc.ID(), string(s.SessionID), first)

	c2 := &cursorClient{}
	tc2 := dialProfile(t, url, "alpha-token", acphttp.WebSocket)
	cc2 := acp.NewClientConn(c2, tc2, tc2, acp.ConnOptions{})
	go cc2.Run(t.Context())
	if _, err := cc2.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cc2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: "/work", MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"user " + words, "agent w1"}
	for _, w := range strings.Fields(words)[1:] {
		want = append(want, "agent  "+w)
	}
	c2.mu.Lock()
	got := c2.texts
	c2.mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("session/load replayed %q, want %q", got, want)
	}

}

// A session's log holds the updates of the ACP version that created it:
// the other version's load, resume, fork and prompt refuse it (-32602,
// naming the versions) rather than replaying what it cannot decode.
func TestSessionOfOtherVersionRefused(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	url := serveNet(t, a, "alpha-token")
	v1, v2 := v1Net(t, url, "alpha-token"), v2Net(t, url, "alpha-token")
	s1, err := v1.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/work", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v1.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s1.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("v1 words")}}); err != nil {
		t.Fatal(err)
	}
	s2, err := v2.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		var re *acp.RPCError
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(dataString(re.Data), "ACP version") {
			t.Errorf("%s: %v, want -32602 naming the versions", what, err)
		}
	}
	id1, id2 := acp2.SessionID(s1.SessionID), acp.SessionID(s2.SessionID)
	_, err = v2.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: id1, Cwd: "/work", ReplayFrom: startCursor})
	refused("v2 resume of a v1 session", err)
	_, err = v2.SessionFork(ctx, &acp2.ForkSessionRequest{SessionID: id1, Cwd: "/work"})
	refused("v2 fork of a v1 session", err)
	_, err = v2.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: id1, Prompt: []acp2.ContentBlock{acp2.TextBlock("x")}})
	refused("v2 prompt in a v1 session", err)
	_, err = v1.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: id2, Cwd: "/work", MCPServers: []acp.MCPServer{}})
	refused("v1 load of a v2 session", err)
	_, err = v1.SessionResume(ctx, &acp.ResumeSessionRequest{SessionID: id2, Cwd: "/work"})
	refused("v1 resume of a v2 session", err)
	_, err = v1.SessionPrompt(ctx, &acp.PromptRequest{SessionID: id2, Prompt: []acp.ContentBlock{acp.TextBlock("x")}})
	refused("v1 prompt in a v2 session", err)
	if st, _ := a.Store().Get(ctx, string(s1.SessionID)); st.LastSeq != 5 {
		t.Errorf("the v1 session's log has %d events after the refusals, want 5", st.LastSeq)
	}
}

func dataString(d any) string {
	b, _ := json.Marshal(d)
	return string(b)
}

// resumeRefused checks that resuming session's event stream on connection
// conn from cursor is refused: 409 expired_cursor.
func resumeRefused(t *testing.T, url, conn, session, cursor string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer alpha-token")
	req.Header.Set(acphttp.HeaderConnectionID, conn)
	req.Header.Set(acphttp.HeaderSessionID, session)
	req.Header.Set("Last-Event-ID", cursor)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), acphttp.ResumeExpired) {
		t.Fatalf("resume from %s: %d %s, want 409 %s", cursor, resp.StatusCode, body, acphttp.ResumeExpired)
	}
}

// cursorClientV2 keeps a v2 agent's messages and the cursor of each update.
type cursorClientV2 struct {
	acp2.UnimplementedClientHandler
	mu      sync.Mutex
	texts   []string
	cursors []string
}

func (c *cursorClientV2) SessionUpdate(_ context.Context, p *acp2.UpdateSessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur string
	json.Unmarshal(p.Meta[acphttp.MetaCursor], &cur)
	c.cursors = append(c.cursors, cur)
	switch u := p.Update; {
	case u.UserMessage != nil:
		c.texts = append(c.texts, "user "+u.UserMessage.Content[0].Text.Text)
	case u.AgentMessageChunk != nil:
		c.texts = append(c.texts, "agent "+u.AgentMessageChunk.Content.Text.Text)
	case u.StateUpdate != nil && u.StateUpdate.Idle != nil:
		c.texts = append(c.texts, "idle")
	}
}

func (c *cursorClientV2) seen() ([]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.texts), slices.Clone(c.cursors)
}

// The v2 case: the session's event stream past its bound is refused, and
// session/resume with replayFrom start on a new connection replays the
// whole conversation from the store.
func TestV2LogPastBoundResumeRefusedReplayWorks(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	url := serveNetWith(t, a, acphttp.Options{RetainMessages: 2}, "alpha-token")
	tc := dialProfile(t, url, "alpha-token", acphttp.StreamableHTTP)
	c := &cursorClientV2{}
	cc := acp2.NewClientConn(c, tc, tc, acp2.ConnOptions{})
	go cc.Run(t.Context())
	if _, err := cc.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}}); err != nil {
		t.Fatal(err)
	}
	s, err := cc.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	const words = "w1 w2 w3 w4 w5 w6 w7 w8"
	if _, err := cc.SessionPrompt(ctx, &acp2.PromptRequest{SessionID: s.SessionID, Prompt: []acp2.ContentBlock{acp2.TextBlock(words)}}); err != nil {
		t.Fatal(err)
	}
	var texts, cursors []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if texts, cursors = c.seen(); slices.Contains(texts, "idle") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %q, want the turn to its idle", texts)
		}
	}
	if cursors[0] == "" {
		t.Fatal("the updates carry no cursor")
	}
	resumeRefused(t, url, tc.ID(), string(s.SessionID), cursors[0])

	c2 := &cursorClientV2{}
	tc2 := dialProfile(t, url, "alpha-token", acphttp.WebSocket)
	cc2 := acp2.NewClientConn(c2, tc2, tc2, acp2.ConnOptions{})
	go cc2.Run(t.Context())
	if _, err := cc2.Initialize(ctx, &acp2.InitializeRequest{ProtocolVersion: acp2.CurrentProtocolVersion, Info: acp2.Implementation{Name: "test", Version: "0"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cc2.SessionResume(ctx, &acp2.ResumeSessionRequest{SessionID: s.SessionID, Cwd: "/work", ReplayFrom: startCursor}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c2.seen(); !slices.Equal(got, texts) {
		t.Errorf("session/resume replayed %q, want what the turn sent, %q", got, texts)
	}
}
