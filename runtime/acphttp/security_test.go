package acphttp

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/coder/websocket"
)

// tokens maps each bearer token to its principal.
func tokens(r *http.Request) (string, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer alice-token":
		return "alice", nil
	case "Bearer bob-token":
		return "bob", nil
	}
	return "", ErrUnauthorized
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// With an auth hook, nothing is reachable without credentials, on either
// profile; with them, both work.
func TestAuthRequired(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Auth: tokens, Logger: quiet()}))
	if st, _, _ := rawPost(t, url, initBody, nil); st != http.StatusUnauthorized {
		t.Errorf("initialize without credentials: %d, want 401", st)
	}
	if st, _, _ := rawPost(t, url, initBody, map[string]string{"Authorization": "Bearer wrong"}); st != http.StatusUnauthorized {
		t.Errorf("initialize with a wrong token: %d, want 401", st)
	}
	if st, _, _ := rawDo(t, http.MethodGet, url, "", map[string]string{"Accept": "text/event-stream"}); st != http.StatusUnauthorized {
		t.Errorf("GET without credentials: %d, want 401", st)
	}
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		c, err := Dial(ctx, url, DialOptions{Profile: p, Logger: quiet()})
		if err == nil {
			// Streamable HTTP dials lazily: initialize is what is refused.
			err = c.WriteMessage([]byte(initBody))
		}
		cancel()
		var he *HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusUnauthorized {
			t.Errorf("%s without credentials: %v, want a 401 HTTPError", p, err)
		}
		rpc, _, _ := dialRPC(t, url, DialOptions{Profile: p, Header: bearer("alice-token")})
		if res, err := rpc.Call(context.Background(), "echo", wire.Raw(`[1]`)); err != nil || string(res) != "[1]" {
			t.Errorf("%s with credentials: %s, %v", p, res, err)
		}
	}
}

// Another principal presenting a connection's Acp-Connection-Id is told it
// does not exist (404) and gets none of its messages; the owner's connection
// is unaffected.
func TestOtherPrincipalsConnection(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Auth: tokens, Logger: quiet()}))
	rpc, client, c := dialRPC(t, url, DialOptions{Profile: StreamableHTTP, Header: bearer("alice-token")})
	id := c.ID()
	bob := map[string]string{"Authorization": "Bearer bob-token", HeaderConnectionID: id}
	sse := map[string]string{"Accept": "text/event-stream"}
	if st, _, body := rawDo(t, http.MethodGet, url, "", bob, sse); st != http.StatusNotFound || strings.Contains(body, "data:") {
		t.Errorf("bob's GET of alice's stream: %d %q, want 404 and no events", st, body)
	}
	if st, _, body := rawDo(t, http.MethodGet, url, "", bob, sse, map[string]string{HeaderSessionID: "s1"}); st != http.StatusNotFound || strings.Contains(body, "data:") {
		t.Errorf("bob's GET of alice's session stream: %d %q, want 404 and no events", st, body)
	}
	if st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":9,"method":"stream","params":{"sessionId":"s1","n":3}}`, bob); st != http.StatusNotFound {
		t.Errorf("bob's POST on alice's connection: %d, want 404", st)
	}
	if st, _, _ := rawDo(t, http.MethodDelete, url, "", bob); st != http.StatusNotFound {
		t.Errorf("bob's DELETE of alice's connection: %d, want 404", st)
	}
	res, err := rpc.Call(context.Background(), "stream", wire.Raw(`{"sessionId":"s1","n":2}`))
	if err != nil || string(res) != `{"n":2}` || len(client.taken()) != 2 {
		t.Errorf("alice's connection after bob's attempts: %s, %v", res, err)
	}
}

// Browser pages from other origins are refused on both profiles unless
// listed; no CORS headers are sent.
func TestOrigins(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{OriginPatterns: []string{"https://trusted.example"}, Logger: quiet()}))
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/acp"), "http://")
	for origin, want := range map[string]int{
		"http://evil.example":     http.StatusForbidden,
		"http://" + host:          http.StatusOK,
		"https://trusted.example": http.StatusOK,
	} {
		st, h, _ := rawPost(t, url, initBody, map[string]string{"Origin": origin})
		if st != want {
			t.Errorf("POST from %s: %d, want %d", origin, st, want)
		}
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("POST from %s: CORS header %q", origin, v)
		}
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		ws, resp, err := websocket.Dial(ctx, "ws://"+host+"/acp", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		cancel()
		if want == http.StatusOK {
			if err != nil {
				t.Errorf("WebSocket from %s: %v", origin, err)
			} else {
				ws.CloseNow()
			}
		} else if err == nil || resp == nil || resp.StatusCode != want {
			t.Errorf("WebSocket from %s: %v, want %d", origin, err, want)
		}
	}
}

// Messages over MaxMessage are refused: 413 for a POST, close 1009 for a
// WebSocket message.
func TestMessageSizeLimit(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{MaxMessage: 1024, Logger: quiet()}))
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 1024) + `"}}`
	if st, _, _ := rawPost(t, url, big, nil); st != http.StatusRequestEntityTooLarge {
		t.Errorf("big POST: %d, want 413", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	if err := ws.Write(ctx, websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	_, _, err := ws.Read(ctx)
	if st := websocket.CloseStatus(err); st != websocket.StatusMessageTooBig {
		t.Errorf("big WebSocket message: %v, want close 1009", err)
	}
}

// The first WebSocket message must be initialize (close 1002 otherwise);
// a batch POST is refused with one -32600.
func TestProtocolRefusals(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`))
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusProtocolError {
		t.Errorf("echo before initialize: %v, want close 1002", err)
	}
	st, _, body := rawPost(t, url, `[`+initBody+`]`, nil)
	if st != http.StatusBadRequest || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, `"id":null`) {
		t.Errorf("batch: %d %s", st, body)
	}
	if st, _, _ := rawDo(t, http.MethodPost, url, initBody, map[string]string{"Content-Type": "text/plain"}); st != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain POST: %d, want 415", st)
	}
	if st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"echo"}`, nil); st != http.StatusBadRequest {
		t.Errorf("POST without Acp-Connection-Id: %d, want 400", st)
	}
}

// An HTTP connection whose client has no stream open and sends nothing is
// closed after IdleTimeout.
func TestIdleTimeout(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{IdleTimeout: 50 * time.Millisecond, Logger: quiet()}))
	st, h, _ := rawPost(t, url, initBody, nil)
	id := h.Get(HeaderConnectionID)
	if st != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q", st, id)
	}
	conn := map[string]string{HeaderConnectionID: id}
	deadline := time.Now().Add(guard)
	for {
		st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","method":"note"}`, conn)
		if st == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connection still open after %v idle", guard)
		}
		time.Sleep(100 * time.Millisecond) // the POST itself was activity
	}
}

// Output for a client that does not read is bounded by MaxBuffered: the
// agent's writes wait, and after StallTimeout the connection closes.
func TestOutputBoundedAndStalled(t *testing.T) {
	const maxBuffered = 8 << 10
	var written atomic.Int64
	ended := make(chan error, 1)
	serve := func(ctx context.Context, c *Conn) error {
		var rpc *jsonrpc.Conn
		h := &notifier{written: &written, ended: ended, conn: &rpc}
		rpc = jsonrpc.NewConn(c, c, h, jsonrpc.Options{Logger: quiet()})
		return rpc.Run(ctx)
	}
	url := startServer(t, NewServer(serve, Options{MaxBuffered: maxBuffered, StallTimeout: 300 * time.Millisecond, Logger: quiet()}))
	st, h, _ := rawPost(t, url, initBody, nil)
	if st != http.StatusOK {
		t.Fatalf("initialize: %d", st)
	}
	// Never open the connection's stream: the notifications queue there.
	if st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","method":"flood"}`, map[string]string{HeaderConnectionID: h.Get(HeaderConnectionID)}); st != http.StatusAccepted {
		t.Fatalf("flood: %d", st)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the agent's writes never failed")
		}
	case <-time.After(guard):
		t.Fatal("the agent's writes never stopped")
	}
	// Each note is noteSize bytes: at most one past the bound is held.
	if n := written.Load(); n*noteSize > maxBuffered+noteSize {
		t.Errorf("%d notifications (%d bytes) held for a client that reads nothing, bound %d", n, n*noteSize, maxBuffered)
	}
	if st, _, _ := rawDo(t, http.MethodGet, url, "", map[string]string{"Accept": "text/event-stream", HeaderConnectionID: h.Get(HeaderConnectionID)}); st != http.StatusNotFound {
		t.Errorf("stream after the stall: %d, want 404", st)
	}
}

const noteSize = 1024

// notifier answers initialize; "flood" makes it notify until a write fails.
type notifier struct {
	written *atomic.Int64
	ended   chan error
	conn    **jsonrpc.Conn
}

func (n *notifier) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return wire.Raw(`{"protocolVersion":1}`), nil
}

func (n *notifier) HandleNotification(ctx context.Context, method string, _ wire.Raw) {
	if method != "flood" {
		return
	}
	// {"jsonrpc":"2.0","method":"x","params":"..."} is 44 bytes plus the pad.
	params := wire.Raw(`"` + strings.Repeat("x", noteSize-44) + `"`)
	for {
		if err := (*n.conn).Notify(ctx, "x", params); err != nil {
			n.ended <- err
			return
		}
		n.written.Add(1)
	}
}

// A session stream takes one receiver: a second GET is answered 409.
func TestSecondReceiverConflict(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	_, _, c := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	// The client holds the connection's stream open already.
	st, _, _ := rawDo(t, http.MethodGet, url, "", map[string]string{"Accept": "text/event-stream", HeaderConnectionID: c.ID()})
	if st != http.StatusConflict {
		t.Errorf("second GET of the connection stream: %d, want 409", st)
	}
}

// Shutdown closes WebSockets with 1001 and event streams, waits for the
// ServeFuncs, and refuses new connections with 503.
func TestShutdown(t *testing.T) {
	s := NewServer(serveTest, Options{Logger: quiet()})
	url := startServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	ws.Write(ctx, websocket.MessageText, []byte(initBody))
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	st, h, _ := rawPost(t, url, initBody, nil)
	if st != http.StatusOK {
		t.Fatalf("initialize: %d", st)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderConnectionID, h.Get(HeaderConnectionID))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", resp, err)
	}
	defer resp.Body.Close()
	wsErr := make(chan error, 1)
	go func() { _, _, err := ws.Read(ctx); wsErr <- err }() // reading answers the close handshake
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-wsErr; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("WebSocket after Shutdown: %v, want close 1001", err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err == nil {
		t.Error("event stream still open after Shutdown")
	}
	if st, _, _ := rawPost(t, url, initBody, nil); st != http.StatusServiceUnavailable {
		t.Errorf("initialize after Shutdown: %d, want 503", st)
	}
}
