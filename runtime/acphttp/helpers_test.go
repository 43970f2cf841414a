package acphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/coder/websocket"
)

// guard bounds every wait so that a bug fails the test instead of hanging it.
const guard = 10 * time.Second

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testAgent answers "initialize"; "stream" {sessionId, n} sends n
// "session/update" notifications for the session, then answers {"n": n};
// "echo" answers its params.
type testAgent struct{ conn *jsonrpc.Conn }

func (a *testAgent) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	switch method {
	case "initialize":
		return wire.Raw(`{"protocolVersion":1}`), nil
	case "echo":
		return params, nil
	case "stream":
		var p struct {
			SessionID string `json:"sessionId"`
			N         int    `json:"n"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &wire.RPCError{Code: wire.CodeInvalidParams, Message: err.Error()}
		}
		for i := range p.N {
			b := fmt.Appendf(nil, `{"sessionId":%q,"i":%d}`, p.SessionID, i)
			if err := a.conn.Notify(ctx, "session/update", b); err != nil {
				return nil, err
			}
		}
		return fmt.Appendf(nil, `{"n":%d}`, p.N), nil
	}
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
}

func (a *testAgent) HandleNotification(context.Context, string, wire.Raw) {}

// serveTest is a ServeFunc running testAgent.
func serveTest(ctx context.Context, c *Conn) error {
	a := &testAgent{}
	a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
	return a.conn.Run(ctx)
}

// testClient collects the notifications it receives.
type testClient struct {
	mu    sync.Mutex
	notes []string
}

func (t *testClient) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
}

func (t *testClient) HandleNotification(_ context.Context, method string, params wire.Raw) {
	t.mu.Lock()
	t.notes = append(t.notes, method+" "+string(params))
	t.mu.Unlock()
}

func (t *testClient) taken() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.notes
	t.notes = nil
	return n
}

// startServer serves s on a test server and returns its /acp URL.
func startServer(t testing.TB, s *Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/acp", s)
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return ts.URL + "/acp"
}

// rawWebSocket opens a raw WebSocket to url, closed when the test ends.
func rawWebSocket(t *testing.T, ctx context.Context, url string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// dialRPC dials url and runs a jsonrpc.Conn on the connection, initialized.
func dialRPC(t *testing.T, url string, o DialOptions) (*jsonrpc.Conn, *testClient, *Conn) {
	t.Helper()
	o.Logger = quiet()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, err := Dial(ctx, url, o)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	tc := &testClient{}
	rpc := jsonrpc.NewConn(c, c, tc, jsonrpc.Options{Logger: quiet()})
	done := make(chan struct{})
	go func() { rpc.Run(context.Background()); close(done) }()
	t.Cleanup(func() {
		rpc.Close()
		c.Close()
		select {
		case <-done:
		case <-time.After(guard):
			t.Error("client connection did not end")
		}
	})
	if _, err := rpc.Call(ctx, "initialize", wire.Raw(`{"protocolVersion":1}`)); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return rpc, tc, c
}

// rawPost POSTs body with headers and returns the status, headers and body.
func rawPost(t *testing.T, url, body string, h map[string]string) (int, http.Header, string) {
	t.Helper()
	return rawDo(t, http.MethodPost, url, body, map[string]string{"Content-Type": "application/json"}, h)
}

func rawDo(t *testing.T, method, url, body string, hs ...map[string]string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		for k, v := range h {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`
