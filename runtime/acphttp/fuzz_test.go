package acphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// fuzzAgent answers every request with an empty object.
type fuzzAgent struct{}

func (fuzzAgent) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return wire.Raw(`{}`), nil
}
func (fuzzAgent) HandleNotification(context.Context, string, wire.Raw) {}

func serveFuzz(ctx context.Context, c *Conn) error {
	return jsonrpc.NewConn(c, c, fuzzAgent{}, jsonrpc.Options{Logger: slog.New(slog.DiscardHandler)}).Run(ctx)
}

// fuzzStatuses are the statuses a request may get: what the handler sends,
// and what net/http itself answers a malformed request with.
var fuzzStatuses = map[int]bool{
	101: true, 200: true, 202: true, 204: true, 400: true, 401: true, 403: true, 404: true, 405: true,
	406: true, 408: true, 409: true, 413: true, 415: true, 429: true, 431: true, 503: true,
}

const fuzzInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`

// panicLog records net/http's server log, where a handler's panic is
// reported (net/http recovers it).
type panicLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *panicLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *panicLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// FuzzHandler sends one request of any method, headers ("Name: value"
// lines; "Host" sets the request's host, "$ID" in a value becomes the id of
// a connection opened by initialize first when withConn) and body to a
// Server behind a real HTTP server, and checks: no handler panics; the
// status is one of fuzzStatuses; a 2xx initialize POST is answered with
// JSON and a connection id; a JSON error body is JSON; and once the Server
// is shut down, the goroutines return to where they were.
func FuzzHandler(f *testing.F) {
	for _, s := range []struct {
		method, header, body string
		withConn             bool
	}{
		{"POST", "Content-Type: application/json", fuzzInit, false},
		{"POST", "Content-Type: application/json\nAcp-Connection-Id: $ID", `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}`, true},
		{"POST", "Content-Type: application/json\nAcp-Connection-Id: $ID\nAcp-Session-Id: s", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, true},
		{"POST", "Content-Type: application/json\nAcp-Connection-Id: $ID", `{"jsonrpc":"2.0","id":7,"result":{}}`, true},
		{"POST", "Content-Type: application/json; charset=utf-8\nAcp-Connection-Id: $ID", fuzzInit, true},
		{"POST", "Content-Type: application/json", `[` + fuzzInit + `]`, false},
		{"POST", "Content-Type: application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize"`, false},
		{"POST", "Content-Type: text/plain", fuzzInit, false},
		{"POST", "Content-Type: application/json\nOrigin: http://evil.example", fuzzInit, false},
		{"POST", "Content-Type: application/json\nHost: evil.example", fuzzInit, false},
		{"GET", "Accept: text/event-stream\nAcp-Connection-Id: $ID", "", true},
		{"GET", "Accept: text/event-stream\nAcp-Connection-Id: $ID\nAcp-Session-Id: s", "", true},
		{"GET", "Upgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "", false},
		{"DELETE", "Acp-Connection-Id: $ID", "", true},
		{"DELETE", "Acp-Connection-Id: 00", "", false},
		{"PUT", "", "x", false},
		{"OPTIONS", "Origin: http://127.0.0.1", "", false},
	} {
		f.Add(s.method, s.header, []byte(s.body), s.withConn)
	}
	base := runtime.NumGoroutine()
	f.Fuzz(func(t *testing.T, method, header string, body []byte, withConn bool) {
		errs := &panicLog{}
		srv := NewServer(serveFuzz, Options{Logger: slog.New(slog.DiscardHandler)})
		ts := httptest.NewUnstartedServer(srv)
		ts.Config.ErrorLog = log.New(errs, "", 0)
		ts.Start()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: guard}
		id := ""
		if withConn {
			id = fuzzInitialize(t, client, ts.URL)
		}
		fuzzRequest(t, client, ts.URL, method, strings.ReplaceAll(header, "$ID", id), body)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		ts.Close()
		if strings.Contains(errs.String(), "panic") {
			t.Fatalf("the handler panicked: %s", errs.String())
		}
		fuzzSettled(t, base+16)
	})
}

// fuzzInitialize opens a Streamable HTTP connection and returns its id.
func fuzzInitialize(t *testing.T, client *http.Client, url string) string {
	t.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(fuzzInit))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(HeaderConnectionID)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s, id %q", resp.Status, id)
	}
	return id
}

// fuzzRequest sends the request and checks the answer. A request the client
// refuses to send (a method or header net/http deems invalid) is skipped.
func fuzzRequest(t *testing.T, client *http.Client, url, method, header string, body []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return
	}
	for i, line := range strings.Split(header, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || i >= 16 {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		req.Header.Add(name, value)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("%s with %q: no answer within %v", method, header, guard)
		}
		return // not sent: invalid method, header or host
	}
	defer resp.Body.Close()
	if !fuzzStatuses[resp.StatusCode] {
		t.Fatalf("%s with %q and %q: status %s", method, header, body, resp.Status)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols || resp.Header.Get("Content-Type") == "text/event-stream" {
		return // a WebSocket or an event stream: open until shutdown
	}
	got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	if isJSON && !json.Valid(got) {
		t.Fatalf("%s with %q and %q: a JSON answer that is not JSON: %q", method, header, body, got)
	}
	if method == http.MethodPost && resp.StatusCode/100 == 2 && fuzzIsInitialize(body) {
		if !isJSON || resp.Header.Get(HeaderConnectionID) == "" {
			t.Fatalf("initialize answered %s, Content-Type %q, id %q: %q", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get(HeaderConnectionID), got)
		}
	}
}

func fuzzIsInitialize(body []byte) bool {
	var m struct {
		Method string
		ID     json.RawMessage
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize" && m.ID != nil
}

// fuzzSettled waits until at most max goroutines run, and fails with their
// stacks if that does not happen within guard.
func fuzzSettled(t *testing.T, max int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for runtime.NumGoroutine() > max {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after shutdown, want at most %d:\n%s", runtime.NumGoroutine(), max, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
