package storeagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/examples/storeagent"
	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/session"
)

// serveNet serves a over the network with one principal per token.
func serveNet(t *testing.T, a *storeagent.Agent, tokens ...string) string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error { return a.Serve(ctx, c, c, log) },
		acphttp.Options{Auth: acphttp.BearerToken(tokens...), Logger: log})
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL + "/acp"
}

func dialNet(t *testing.T, url, token string) *acphttp.Conn {
	t.Helper()
	c, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: acphttp.WebSocket, Header: http.Header{"Authorization": {"Bearer " + token}}})
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
