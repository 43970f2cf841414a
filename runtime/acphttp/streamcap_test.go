package acphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// capAgent is testAgent plus "session/new" (answers {"sessionId":"n1"}),
// "slow" (waits delay, then does what "stream" does) and "ask" (asks the
// client "client/big" and answers {} whether or not an answer came within
// delay).
type capAgent struct {
	testAgent
	delay time.Duration
}

func (a *capAgent) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	switch method {
	case "session/new":
		return wire.Raw(`{"sessionId":"n1"}`), nil
	case "slow":
		time.Sleep(a.delay)
		method = "stream"
	case "ask":
		actx, cancel := context.WithTimeout(ctx, a.delay)
		defer cancel()
		a.conn.Call(actx, "client/big", wire.Raw(`{}`))
		return wire.Raw(`{}`), nil
	}
	return a.testAgent.HandleRequest(ctx, method, params)
}

func serveCap(delay time.Duration) ServeFunc {
	return func(ctx context.Context, c *Conn) error {
		a := &capAgent{delay: delay}
		a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
		return a.conn.Run(ctx)
	}
}

// getStream GETs an event stream with headers h; the response, open when
// 200, is closed when the test ends.
func getStream(t *testing.T, ctx context.Context, url string, h map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %v: %v", h, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Open event streams are bounded per connection (429), per principal
// across its connections (429) and across the server (503 with
// Retry-After); a refusal closes its TCP connection, and a stream that ends
// frees its place.
func TestStreamCaps(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{
		Auth:       BearerToken("a", "b"),
		MaxStreams: 4, MaxPrincipalStreams: 3, MaxConnectionStreams: 2,
		Logger: quiet(),
	}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	auth := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	conn := func(tok string) string {
		st, h, body := rawPost(t, url, initBody, auth(tok))
		if st != http.StatusOK {
			t.Fatalf("initialize: %d %s", st, body)
		}
		return h.Get(HeaderConnectionID)
	}
	a1, a2, b1 := conn("a"), conn("a"), conn("b")
	get := func(tok, id, session string) *http.Response {
		h := auth(tok)
		h[HeaderConnectionID] = id
		if session != "" {
			h[HeaderSessionID] = session
		}
		return getStream(t, ctx, url, h)
	}
	want := func(what string, resp *http.Response, status int) {
		t.Helper()
		if resp.StatusCode != status {
			t.Errorf("%s: %d, want %d", what, resp.StatusCode, status)
		}
		if status != http.StatusOK && !resp.Close {
			t.Errorf("%s: refused without closing its TCP connection", what)
		}
	}
	want("a1 connection stream", get("a", a1, ""), http.StatusOK)
	a1s1 := get("a", a1, "s1")
	want("a1 s1", a1s1, http.StatusOK)
	want("a1 s2, past MaxConnectionStreams", get("a", a1, "s2"), http.StatusTooManyRequests)
	want("a2 connection stream", get("a", a2, ""), http.StatusOK)
	want("a2 s1, past MaxPrincipalStreams", get("a", a2, "s1"), http.StatusTooManyRequests)
	want("b1 connection stream", get("b", b1, ""), http.StatusOK)
	full := get("b", b1, "s1")
	want("b1 s1, past MaxStreams", full, http.StatusServiceUnavailable)
	if full.Header.Get("Retry-After") == "" {
		t.Error("503 past MaxStreams without Retry-After")
	}
	a1s1.Body.Close()
	deadline := time.Now().Add(guard)
	for {
		resp := get("b", b1, "s1")
		if resp.StatusCode == http.StatusOK {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("b1 s1 after a1 s1 ended: %d, want 200", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond) // the server sees the close when its write fails
	}
}

// A session stream the connection does not know ends after
// SessionStreamGrace; one of a session the agent named (session/new's
// answer) stays open and delivers later output.
func TestUnknownSessionStreamEnds(t *testing.T) {
	const grace = 200 * time.Millisecond
	url := startServer(t, NewServer(serveCap(0), Options{SessionStreamGrace: grace, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	id := initConn(t, url)
	connStream := getStream(t, ctx, url, map[string]string{HeaderConnectionID: id})
	ghost := getStream(t, ctx, url, map[string]string{HeaderConnectionID: id, HeaderSessionID: "ghost"})
	if ghost.StatusCode != http.StatusOK {
		t.Fatalf("GET of an unknown session: %d, want 200", ghost.StatusCode)
	}
	ended := make(chan error, 1)
	go func() { _, err := countEvents(ghost); ended <- err }()
	conn := map[string]string{HeaderConnectionID: id}
	if st, _, body := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}`, conn); st != http.StatusAccepted {
		t.Fatalf("session/new: %d %s", st, body)
	}
	// session/new's answer, on the connection's stream, names n1.
	if line, err := bufio.NewReader(connStream.Body).ReadString('\n'); err != nil || !strings.Contains(line, `"sessionId":"n1"`) {
		t.Fatalf("session/new's answer: %q %v", line, err)
	}
	known := getStream(t, ctx, url, map[string]string{HeaderConnectionID: id, HeaderSessionID: "n1"})
	if known.StatusCode != http.StatusOK {
		t.Fatalf("GET of n1: %d, want 200", known.StatusCode)
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the unknown session's stream: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("the unknown session's stream did not end")
	}
	time.Sleep(3 * grace)
	conn[HeaderSessionID] = "n1"
	if st, _, body := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"stream","params":{"sessionId":"n1","n":1}}`, conn); st != http.StatusAccepted {
		t.Fatalf("stream: %d %s", st, body)
	}
	line, err := bufio.NewReader(known.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `data: {"jsonrpc":"2.0","method":"session/update"`) {
		t.Fatalf("the known session's stream after 3 graces: %q %v", line, err)
	}
}

// A session's stream opened before a request naming it (as the client does
// for session/load) stays open past SessionStreamGrace while the request
// awaits its answer, and delivers the session's output. The grace leaves
// the request time to reach the server after its stream on a loaded
// machine; the answer comes after 2.5 graces.
func TestAwaitedSessionStreamStaysOpen(t *testing.T) {
	const grace = 500 * time.Millisecond
	url := startServer(t, NewServer(serveCap(5*grace/2), Options{SessionStreamGrace: grace, Logger: quiet()}))
	rpc, tc, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	res, err := rpc.Call(ctx, "slow", wire.Raw(`{"sessionId":"loaded","n":2}`))
	if err != nil || string(res) != `{"n":2}` {
		t.Fatalf("slow: %s %v", res, err)
	}
	if got := tc.taken(); len(got) != 2 {
		t.Fatalf("%d session updates, want 2: %q", len(got), got)
	}
}

// When the server refuses a session's stream with 429, the client answers
// that session's request itself (-32603, data.status 429), and the
// connection goes on.
func TestDialSurvivesRefusedSessionStream(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{MaxConnectionStreams: 2, Logger: quiet()}))
	rpc, _, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if _, err := rpc.Call(ctx, "stream", wire.Raw(`{"sessionId":"s1","n":1}`)); err != nil {
		t.Fatalf("s1: %v", err)
	}
	_, err := rpc.Call(ctx, "stream", wire.Raw(`{"sessionId":"s2","n":1}`))
	var re *wire.RPCError
	if !errors.As(err, &re) || re.Code != wire.CodeInternalError || !strings.Contains(string(mustJSON(t, re.Data)), `"status":429`) {
		t.Fatalf("s2, past MaxConnectionStreams: %v, want -32603 with status 429", err)
	}
	if res, err := rpc.Call(ctx, "echo", wire.Raw(`{"ok":1}`)); err != nil || string(res) != `{"ok":1}` {
		t.Fatalf("echo after the refusal: %s %v", res, err)
	}
}

// A notification the server refuses (400: no Acp-Session-Id for a session
// method) and a response it refuses (413: over MaxMessage) are dropped; the
// connection goes on.
func TestDialSurvivesRefusedNotificationAndResponse(t *testing.T) {
	url := startServer(t, NewServer(serveCap(300*time.Millisecond), Options{MaxMessage: 1 << 10, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, err := Dial(ctx, url, DialOptions{Profile: StreamableHTTP, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rpc := jsonrpc.NewConn(c, c, &bigAnswers{}, jsonrpc.Options{Logger: quiet()})
	go rpc.Run(context.Background())
	defer rpc.Close()
	if _, err := rpc.Call(ctx, "initialize", wire.Raw(`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := rpc.Notify(ctx, "session/cancel", wire.Raw(`{}`)); err != nil {
		t.Fatalf("notification refused with 400: %v", err)
	}
	if res, err := rpc.Call(ctx, "echo", wire.Raw(`{"ok":1}`)); err != nil || string(res) != `{"ok":1}` {
		t.Fatalf("echo after a notification refused with 400: %s %v", res, err)
	}
	if res, err := rpc.Call(ctx, "ask", wire.Raw(`{}`)); err != nil || string(res) != `{}` {
		t.Fatalf("ask, whose answer is refused with 413: %s %v", res, err)
	}
	if res, err := rpc.Call(ctx, "echo", wire.Raw(`{"ok":2}`)); err != nil || string(res) != `{"ok":2}` {
		t.Fatalf("echo after a response refused with 413: %s %v", res, err)
	}
}

// bigAnswers answers every request with a result over 1 KiB.
type bigAnswers struct{ testClient }

func (*bigAnswers) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return wire.Raw(`{"pad":"` + strings.Repeat("x", 2<<10) + `"}`), nil
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The bounds that hold file descriptors share one budget, the process's
// limit F: connections in use, connections not in use yet and event streams
// together leave at least an eighth of F for POSTs, keep-alive sockets and
// the agent's own files; connections stay within the cap the memory figures
// set, and a connection's streams within its principal's, within the
// server's.
func TestFDLimitsShareOneBudget(t *testing.T) {
	for _, fds := range []int{256, 1024, 4096, 20000, 1 << 20} {
		l := fdLimitsFor(fds)
		if used := l.conns + l.pending + l.streams; used > fds-fds/8 {
			t.Errorf("F=%d: %d connections, %d pending and %d streams leave less than F/8", fds, l.conns, l.pending, l.streams)
		}
		if l.conns > DefaultMaxConnections || l.pending > DefaultMaxPendingConnections {
			t.Errorf("F=%d: %d connections, %d pending: past the caps", fds, l.conns, l.pending)
		}
		if l.connStreams > l.principal || l.principal > l.streams {
			t.Errorf("F=%d: streams per connection %d, per principal %d, per server %d", fds, l.connStreams, l.principal, l.streams)
		}
	}
	if l := fdLimitsFor(1 << 20); l.conns != DefaultMaxConnections {
		t.Errorf("with Go's usual limit, %d connections, want the cap %d", l.conns, DefaultMaxConnections)
	}
	s := NewServer(serveTest, Options{Logger: quiet()})
	if l := fdLimitsFor(fdBudget()); s.o.MaxConnections != l.conns || s.o.MaxPendingConnections != l.pending || s.o.MaxStreams != l.streams {
		t.Errorf("NewServer's defaults %d, %d, %d; the budget's %d, %d, %d", s.o.MaxConnections, s.o.MaxPendingConnections, s.o.MaxStreams, l.conns, l.pending, l.streams)
	}
}
