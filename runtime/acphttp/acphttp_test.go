package acphttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Both profiles carry a request whose answer follows the session updates it
// streamed, in order; Streamable HTTP over HTTP/1.1 and h2c.
func TestProfilesStreamInOrder(t *testing.T) {
	h2c := &http.Client{Transport: &http.Transport{Protocols: new(http.Protocols)}}
	h2c.Transport.(*http.Transport).Protocols.SetUnencryptedHTTP2(true)
	for _, tc := range []struct {
		name string
		o    DialOptions
	}{
		{"websocket", DialOptions{Profile: WebSocket}},
		{"streamable-http", DialOptions{Profile: StreamableHTTP}},
		{"streamable-http-h2c", DialOptions{Profile: StreamableHTTP, HTTPClient: h2c}},
		{"default", DialOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
			rpc, client, c := dialRPC(t, url, tc.o)
			if want := tc.o.Profile; want != "" && c.Profile() != want {
				t.Errorf("profile %s, want %s", c.Profile(), want)
			}
			if tc.o.Profile == "" && c.Profile() != WebSocket {
				t.Errorf("default profile %s, want WebSocket first", c.Profile())
			}
			if c.ID() == "" {
				t.Error("no Acp-Connection-Id")
			}
			for _, sid := range []string{"s1", "s2"} {
				res, err := rpc.Call(context.Background(), "stream", wire.Raw(fmt.Sprintf(`{"sessionId":%q,"n":50}`, sid)))
				if err != nil || string(res) != `{"n":50}` {
					t.Fatalf("stream %s: %s, %v", sid, res, err)
				}
				notes := client.taken()
				if len(notes) != 50 {
					t.Fatalf("%s: %d updates before the answer, want 50", sid, len(notes))
				}
				last := uint64(0)
				for i, n := range notes {
					n, cursor := cutCursor(n)
					if want := fmt.Sprintf(`session/update {"sessionId":%q,"i":%d}`, sid, i); n != want {
						t.Fatalf("update %d: %s, want %s", i, n, want)
					}
					if c.Profile() == StreamableHTTP && (cursor <= last) {
						t.Fatalf("update %d: cursor %d after %d", i, cursor, last)
					}
					last = cursor
				}
			}
			if _, err := rpc.Call(context.Background(), "nope", nil); err == nil || !strings.Contains(err.Error(), "Method not found") {
				t.Errorf("unknown method: %v", err)
			}
		})
	}
}

// The default dial falls back to Streamable HTTP when the upgrade is refused.
func TestDialFallsBackToStreamableHTTP(t *testing.T) {
	s := NewServer(serveTest, Options{Logger: quiet()})
	noWS := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isUpgrade(r) {
			http.Error(w, "no upgrades here", http.StatusUpgradeRequired)
			return
		}
		s.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/acp", noWS)
	url := startServer(t, s)
	// startServer mounts s itself; mount the wrapper on a second server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	_ = url
	rpc, _, c := dialRPC(t, "http://"+ln.Addr().String()+"/acp", DialOptions{})
	if c.Profile() != StreamableHTTP {
		t.Errorf("profile %s, want the fallback to Streamable HTTP", c.Profile())
	}
	if res, err := rpc.Call(context.Background(), "echo", wire.Raw(`{"a":1}`)); err != nil || string(res) != `{"a":1}` {
		t.Errorf("echo: %s, %v", res, err)
	}
}

// Dial's default client returns the cookies the server sets on every later
// request: each POST and GET after initialize carries the affinity cookie.
func TestDialKeepsCookies(t *testing.T) {
	s := NewServer(serveTest, Options{Logger: quiet()})
	var missing []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.Handle("/acp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := r.Cookie("affinity"); err != nil {
			if r.Header.Get(HeaderConnectionID) != "" || r.Method == http.MethodGet {
				mu.Lock()
				missing = append(missing, r.Method)
				mu.Unlock()
			}
			http.SetCookie(w, &http.Cookie{Name: "affinity", Value: "node-7"})
		}
		s.ServeHTTP(w, r)
	}))
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { s.Close(); ts.Close() })
	rpc, client, _ := dialRPC(t, ts.URL+"/acp", DialOptions{Profile: StreamableHTTP})
	if _, err := rpc.Call(context.Background(), "stream", wire.Raw(`{"sessionId":"s1","n":1}`)); err != nil || len(client.taken()) != 1 {
		t.Fatalf("stream: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(missing) > 0 {
		t.Errorf("requests after the cookie was set came without it: %v", missing)
	}
}

// Closing the transport connection itself (not the jsonrpc.Conn on it) while
// the reader waits ends input cleanly: the jsonrpc.Conn's Run returns nil,
// on both profiles, however the close and the pending read interleave.
func TestTransportCloseEndsInputCleanly(t *testing.T) {
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		t.Run(string(p), func(t *testing.T) {
			url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
			for i := 0; i < 30; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), guard)
				c, err := Dial(ctx, url, DialOptions{Profile: p, Logger: quiet()})
				if err != nil {
					cancel()
					t.Fatalf("Dial: %v", err)
				}
				rpc := jsonrpc.NewConn(c, c, &testClient{}, jsonrpc.Options{Logger: quiet()})
				done := make(chan error, 1)
				go func() { done <- rpc.Run(context.Background()) }()
				if _, err := rpc.Call(ctx, "initialize", wire.Raw(`{"protocolVersion":1}`)); err != nil {
					cancel()
					t.Fatalf("initialize: %v", err)
				}
				c.Close()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("run %d: Run returned %v after the transport was closed, want nil", i, err)
					}
				case <-ctx.Done():
					t.Fatalf("run %d: Run did not end after the transport was closed", i)
				}
				cancel()
			}
		})
	}
}

// A POST answered 503 with Retry-After (the server's bound on POSTs waiting
// for memory) is sent again after the delay: a notification and a request
// refused once both arrive, and the request is answered.
func TestDialRetriesServiceUnavailable(t *testing.T) {
	notes := make(chan string, 4)
	srv := NewServer(func(ctx context.Context, c *Conn) error {
		a := &noteAgent{notes: notes}
		a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
		return a.conn.Run(ctx)
	}, Options{Logger: quiet()})
	var refused sync.Map // bodies refused once
	mux := http.NewServeMux()
	mux.HandleFunc("/acp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get(HeaderConnectionID) != "" {
			body, _ := io.ReadAll(r.Body)
			if _, again := refused.LoadOrStore(string(body), true); !again {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer srv.Close()
	rpc, _, _ := dialRPC(t, ts.URL+"/acp", DialOptions{Profile: StreamableHTTP})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := rpc.Notify(ctx, "note", wire.Raw(`{"n":1}`)); err != nil {
		t.Fatalf("notification: %v", err)
	}
	select {
	case n := <-notes:
		if n != `{"n":1}` {
			t.Errorf("notification params %s", n)
		}
	case <-ctx.Done():
		t.Fatal("the refused notification never arrived")
	}
	if res, err := rpc.Call(ctx, "echo", wire.Raw(`[2]`)); err != nil || string(res) != "[2]" {
		t.Errorf("request refused once: %s, %v", res, err)
	}
}

// noteAgent is testAgent that also reports notifications.
type noteAgent struct {
	testAgent
	notes chan string
}

func (a *noteAgent) HandleNotification(_ context.Context, _ string, params wire.Raw) {
	a.notes <- string(params)
}

// cursorMeta matches the _meta a Streamable HTTP event stream adds to params.
var cursorMeta = regexp.MustCompile(`"_meta":\{"acp/cursor":"[0-9a-f]{12}\.([0-9]+)"\},?`)

// cutCursor removes a received notification's cursor and returns its
// number (0 without one).
func cutCursor(note string) (string, uint64) {
	m := cursorMeta.FindStringSubmatch(note)
	if m == nil {
		return note, 0
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	return strings.Replace(note, m[0], "", 1), n
}
