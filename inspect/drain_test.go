//go:build unix

package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// heldAgent answers initialize and _fast at once, and _slow once release
// is closed, saying on got when a _slow request has arrived.
type heldAgent struct {
	got, release chan struct{}
	fast         *atomic.Int64      // _fast requests handled
	conns        chan *jsonrpc.Conn // when set, gets the agent's connection
}

func (a heldAgent) HandleRequest(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
	switch method {
	case "initialize":
		return wire.Raw(`{"protocolVersion":1,"agentCapabilities":{}}`), nil
	case "_fast":
		a.fast.Add(1)
	case "_slow":
		a.got <- struct{}{}
		<-a.release
	}
	return wire.Raw(`{}`), nil
}

func (heldAgent) HandleNotification(context.Context, string, wire.Raw) {}

// startHeldAgent serves a heldAgent over WebSocket and returns its URL.
func startHeldAgent(t *testing.T, a heldAgent) string {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		rpc := jsonrpc.NewConn(c, c, a, jsonrpc.Options{})
		select {
		case a.conns <- rpc:
		default:
		}
		return rpc.Run(ctx)
	}, acphttp.Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go acphttp.Serve(ctx, ln, srv, acphttp.ServeOptions{})
	t.Cleanup(cancel)
	return "ws://" + ln.Addr().String() + "/acp"
}

// Stopped (SIGTERM, Ctrl-C: the end of its context), the network inspector
// drains as examples/agent -listen does: a request in flight gets its
// answer through, a request sent after the stop is answered -32001 without
// reaching the agent, and ServeNetwork returns once nothing is
// outstanding, counting the connections it served.
func TestNetworkDrain(t *testing.T) {
	agent := heldAgent{got: make(chan struct{}, 1), release: make(chan struct{}), fast: new(atomic.Int64)}
	in := startNetInspector(t, startHeldAgent(t, agent))
	rpc, _ := netClient(t, in.url)
	mustCall(t, rpc, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	slow := make(chan error, 1)
	go func() {
		_, err := call(t, rpc, "_slow", `{}`)
		slow <- err
	}()
	select {
	case <-agent.got:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent never got the request")
	}
	in.cancel()
	// Requests sent before the drain begins reach the agent and are
	// answered; once it has begun they are refused.
	answered := 0
	for ; ; answered++ {
		_, err := call(t, rpc, "_fast", `{}`)
		var re *wire.RPCError
		if errors.As(err, &re) && re.Code == jsonrpc.CodeOverloaded {
			break
		}
		if err != nil || answered == 1000 {
			t.Fatalf("a request after the stop: %v, want it answered -32001", err)
		}
	}
	close(agent.release)
	if err := <-slow; err != nil {
		t.Errorf("the request in flight at the stop: %v, want its answer", err)
	}
	select {
	case err := <-in.done:
		if err != nil {
			t.Fatalf("ServeNetwork: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ServeNetwork still running 30 s after the last answer")
	}
	if in.res == nil || in.res.Connections != 1 {
		t.Errorf("result %+v, want 1 connection", in.res)
	}
	if n := agent.fast.Load(); n != int64(answered) {
		t.Errorf("the agent handled %d _fast requests, the client had %d answered: the refused one reached it", n, answered)
	}
}

// notified is a client that says on got each notification's params.
type notified struct {
	refuseRequests
	got chan string
}

func (n notified) HandleNotification(_ context.Context, _ string, params wire.Raw) {
	n.got <- string(params)
}

// sameWithoutCursor compares two params objects, the transport's cursor
// (_meta["acp/cursor"], which the network profiles add) aside.
func sameWithoutCursor(got, want string) bool {
	var g, w map[string]any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	if m, ok := g["_meta"].(map[string]any); ok {
		delete(m, acphttp.MetaCursor)
		if len(m) == 0 {
			delete(g, "_meta")
		}
	}
	return reflect.DeepEqual(g, w)
}

// A drain waits for a v2 turn that reported running (a session/update
// state_update) until it reports idle, although no request is in flight:
// the idle update reaches the client after the stop.
func TestNetworkDrainWaitsForRunningTurn(t *testing.T) {
	agent := heldAgent{fast: new(atomic.Int64), conns: make(chan *jsonrpc.Conn, 1)}
	in := startNetInspector(t, startHeldAgent(t, agent))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := acphttp.Dial(ctx, in.url, acphttp.DialOptions{Profile: acphttp.WebSocket})
	if err != nil {
		t.Fatal(err)
	}
	client := notified{got: make(chan string, 4)}
	rpc := jsonrpc.NewConn(c, c, client, jsonrpc.Options{})
	go rpc.Run(context.Background())
	t.Cleanup(func() { rpc.Close(); c.Close() })
	mustCall(t, rpc, "initialize", `{"protocolVersion":2,"info":{"name":"t","version":"1"},"capabilities":{}}`)
	up := <-agent.conns
	state := func(s string) {
		t.Helper()
		params := `{"sessionId":"s1","update":{"sessionUpdate":"state_update","state":"` + s + `"}}`
		if err := up.Notify(ctx, "session/update", wire.Raw(params)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-client.got:
			if !sameWithoutCursor(got, params) {
				t.Fatalf("the client got %s, want %s", got, params)
			}
		case <-ctx.Done():
			t.Fatalf("the client never got the %s update", s)
		}
	}
	state("running")
	in.cancel()
	for i := 0; ; i++ {
		_, err := call(t, rpc, "_fast", `{}`)
		var re *wire.RPCError
		if errors.As(err, &re) && re.Code == jsonrpc.CodeOverloaded {
			break
		}
		if err != nil || i == 1000 {
			t.Fatalf("a request after the stop: %v, want it answered -32001", err)
		}
	}
	state("idle")
	select {
	case err := <-in.done:
		if err != nil {
			t.Fatalf("ServeNetwork: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeNetwork still running after the turn's idle")
	}
}
