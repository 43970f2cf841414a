package acphttp

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/coder/websocket"
)

// 1,100 connections left unused (WebSocket upgrades that send nothing,
// Streamable HTTP initializes never followed by a request) do not lock out
// a client that uses its connection: it is served on both profiles.
func TestUnusedConnectionsFreeSlots(t *testing.T) {
	raiseFDLimit(t, 4096)
	s := NewServer(serveTest, Options{Logger: quiet()})
	url := startServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 12*guard)
	defer cancel()
	var mu sync.Mutex
	var sockets []*websocket.Conn
	defer func() {
		for _, ws := range sockets {
			ws.CloseNow()
		}
	}()
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Go(func() {
			for i := range 110 {
				if (g+i)%2 == 0 {
					if ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil); err == nil {
						mu.Lock()
						sockets = append(sockets, ws)
						mu.Unlock()
					}
					continue
				}
				rawPost(t, url, initBody, nil) // and walk away
			}
		})
	}
	wg.Wait()
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		served, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := Dial(served, url, DialOptions{Profile: p, Logger: quiet()})
		if err != nil {
			t.Fatalf("%s: Dial: %v", p, err)
		}
		rpc, _ := newTestRPC(c)
		if _, err := rpc.Call(served, "initialize", wire.Raw(`{"protocolVersion":1}`)); err != nil {
			t.Errorf("%s: initialize: %v", p, err)
		} else if res, err := rpc.Call(served, "echo", wire.Raw(`{"ok":1}`)); err != nil || string(res) != `{"ok":1}` {
			t.Errorf("%s: echo: %s %v", p, res, err)
		}
		cancel()
		rpc.Close()
		c.Close()
	}
}

// A WebSocket with no initialize and a Streamable HTTP connection with no
// request after initialize are closed after InitTimeout; a connection in
// use is not.
func TestInitTimeout(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{InitTimeout: 200 * time.Millisecond, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("WebSocket without initialize: %v, want close 1008", err)
	}
	unused := initConn(t, url)
	rpc, _, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	time.Sleep(time.Second) // several InitTimeouts
	if st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","method":"note"}`, map[string]string{HeaderConnectionID: unused}); st != http.StatusNotFound {
		t.Errorf("POST on a connection unused past InitTimeout: %d, want 404", st)
	}
	if _, err := rpc.Call(ctx, "echo", wire.Raw(`{}`)); err != nil {
		t.Errorf("connection in use: %v", err)
	}
}

// newTestRPC runs a client jsonrpc.Conn on c until it is closed.
func newTestRPC(c *Conn) (*jsonrpc.Conn, *testClient) {
	tc := &testClient{}
	rpc := jsonrpc.NewConn(c, c, tc, jsonrpc.Options{Logger: quiet()})
	go rpc.Run(context.Background())
	return rpc, tc
}
