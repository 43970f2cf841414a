package acphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// drainAgent is testAgent plus "slow", which runs until release is closed,
// and "wait", which runs until its context ends and reports whether a
// drain ended it.
type drainAgent struct {
	started chan string
	release chan struct{}
	drained chan bool
}

func newDrainAgent() *drainAgent {
	return &drainAgent{started: make(chan string, 16), release: make(chan struct{}), drained: make(chan bool, 16)}
}

func (a *drainAgent) serve(ctx context.Context, c *Conn) error {
	inner := &testAgent{}
	inner.conn = jsonrpc.NewConn(c, c, drainHandler{a, inner}, jsonrpc.Options{Logger: quiet()})
	return inner.conn.Run(ctx)
}

type drainHandler struct {
	a *drainAgent
	*testAgent
}

func (h drainHandler) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	switch method {
	case "slow":
		h.a.started <- method
		<-h.a.release
		return wire.Raw(`{"slow":true}`), nil
	case "wait":
		h.a.started <- method
		<-ctx.Done()
		h.a.drained <- jsonrpc.Drained(ctx)
		return nil, ctx.Err()
	}
	return h.testAgent.HandleRequest(ctx, method, params)
}

type callResult struct {
	res wire.Raw
	err error
}

func callAsync(rpc *jsonrpc.Conn, method string) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := rpc.Call(context.Background(), method, wire.Raw(`{}`))
		ch <- callResult{res, err}
	}()
	return ch
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// rpcCode returns err's JSON-RPC error code, 0 if it has none.
func rpcCode(err error) wire.ErrorCode {
	var re *wire.RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// Shutdown on both profiles: new connections get 503 and new requests
// -32001; a request finishing within the grace gets its own answer; at the
// deadline the one still running is cancelled, with cause ErrDrained, and
// answered; then the connection closes (an idle WebSocket at once, with
// 1001).
func TestShutdownDrains(t *testing.T) {
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		t.Run(string(p), func(t *testing.T) {
			a := newDrainAgent()
			s := NewServer(a.serve, Options{Logger: quiet()})
			url := startServer(t, s)
			rpc, _, _ := dialRPC(t, url, DialOptions{Profile: p})
			var idle *websocket.Conn
			if p == WebSocket {
				idle = dialInitialized(t, url)
			}
			slow, wait := callAsync(rpc, "slow"), callAsync(rpc, "wait")
			receive(t, a.started, "first handler")
			receive(t, a.started, "second handler")

			grace, endGrace := context.WithCancel(context.Background())
			shut := make(chan error, 1)
			go func() { shut <- s.Shutdown(grace) }()
			// Requests are answered until the drain starts, then refused.
			for {
				_, err := rpc.Call(context.Background(), "echo", wire.Raw(`{}`))
				if err == nil {
					continue
				}
				if rpcCode(err) != jsonrpc.CodeOverloaded || !strings.Contains(err.Error(), "shutting down") {
					t.Fatalf("request during the drain: %v, want -32001 shutting down", err)
				}
				break
			}
			if st, _, _ := rawPost(t, url, initBody, nil); st != http.StatusServiceUnavailable {
				t.Errorf("new connection during the drain: %d, want 503", st)
			}
			if idle != nil {
				ctx, cancel := context.WithTimeout(context.Background(), guard)
				_, _, err := idle.Read(ctx)
				cancel()
				if websocket.CloseStatus(err) != websocket.StatusGoingAway {
					t.Errorf("idle WebSocket: %v, want close 1001", err)
				}
			}

			close(a.release)
			if r := receive(t, slow, "slow answer"); r.err != nil || string(r.res) != `{"slow":true}` {
				t.Errorf("request finishing within the grace: %s, %v", r.res, r.err)
			}
			select {
			case err := <-shut:
				t.Fatalf("Shutdown returned with a request in flight: %v", err)
			default:
			}

			endGrace()
			if r := receive(t, wait, "cancelled answer"); rpcCode(r.err) != wire.CodeCancelled {
				t.Errorf("request cancelled at the deadline: %s, %v, want -32800", r.res, r.err)
			}
			if !receive(t, a.drained, "handler end") {
				t.Error("the handler's context does not report jsonrpc.Drained")
			}
			if err := receive(t, shut, "Shutdown"); !errors.Is(err, context.Canceled) {
				t.Errorf("Shutdown: %v, want the grace's end", err)
			}
			receive(t, rpc.Done(), "the connection's end")
		})
	}
}

// Shutdown without anything in flight returns nil once every connection
// has closed.
func TestShutdownIdle(t *testing.T) {
	s := NewServer(serveTest, Options{Logger: quiet()})
	url := startServer(t, s)
	rpc, _, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	receive(t, rpc.Done(), "the connection's end")
}

// dialInitialized opens a raw WebSocket and initializes it.
func dialInitialized(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	if err := ws.Write(ctx, websocket.MessageText, []byte(initBody)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"result"`) {
		t.Fatalf("initialize: %s, %v", b, err)
	}
	return ws
}

// A connection on which no jsonrpc.Conn runs has nothing to drain:
// Shutdown closes it at once, a WebSocket with 1001. Before its first
// message a WebSocket runs no ServeFunc (the message decides between a new
// connection and a resume); after it, the ServeFunc here reads without a
// jsonrpc.Conn, as a router waiting for initialize would.
func TestShutdownClosesConnectionsBeforeInitialize(t *testing.T) {
	for _, send := range []bool{false, true} {
		reading := make(chan struct{}, 1)
		s := NewServer(func(ctx context.Context, c *Conn) error {
			reading <- struct{}{}
			for {
				if _, err := c.ReadMessage(); err != nil {
					return err
				}
			}
		}, Options{Logger: quiet()})
		url := startServer(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		ws := rawWebSocket(t, ctx, url)
		if send {
			ws.Write(ctx, websocket.MessageText, []byte(initBody))
			receive(t, reading, "the ServeFunc")
		} else {
			for !s.has(onlyConn(s)) {
				time.Sleep(time.Millisecond)
			}
		}
		wsErr := make(chan error, 1)
		go func() { _, _, err := ws.Read(ctx); wsErr <- err }() // reading answers the close handshake
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if err := receive(t, wsErr, "the close"); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("WebSocket (initialize sent: %v): %v, want close 1001", send, err)
		}
	}
}

// onlyConn returns the id of one open connection of s, or "".
func onlyConn(s *Server) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.conns {
		return id
	}
	return ""
}
