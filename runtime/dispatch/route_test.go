package dispatch_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

func method(wire string, notification bool) dispatch.Method {
	return dispatch.Method{Wire: wire, Side: "agent", Notification: notification}
}

func gated(m dispatch.Method, g *dispatch.MethodGates) dispatch.Method {
	m.Gates = g
	return m
}

var (
	openM   = dispatch.NewRequest[msg, msg](method("open", false), wire.OwnCodec{}, wire.OwnCodec{})
	doM     = dispatch.NewRequest[msg, msg](method("do", false), wire.OwnCodec{}, wire.OwnCodec{})
	gatedM  = dispatch.NewRequest[msg, msg](gated(method("m", false), &mGates), wire.OwnCodec{}, wire.OwnCodec{})
	turnM   = dispatch.NewRequest[msg, msg](method("turn", false), wire.OwnCodec{}, wire.OwnCodec{})
	tellM   = dispatch.NewNotification[msg](gated(method("tell", true), &tellGates), wire.OwnCodec{})
	cancelM = dispatch.NewNotification[msg](method("cancel", true), wire.OwnCodec{})
)

// opening is open's negotiation: over table, whose capabilities the
// tests' open messages never advertise.
var opening = dispatch.Opening{Method: openM.Wire, Gates: &table}

// routes are the server's methods, numbered as route numbers them.
var routes = &dispatch.Routes{Open: &opening, Methods: []dispatch.Handled{
	{Method: &openM.Method, Params: (*msg)(nil)},
	{Method: &doM.Method, Params: (*msg)(nil)},
	{Method: &gatedM.Method, Params: (*msg)(nil)},
	{Method: &turnM.Method, Params: (*msg)(nil)},
	{Method: &tellM.Method, Params: (*msg)(nil)},
	{Method: &cancelM.Method, Params: (*msg)(nil)},
}}

// route calls s's handler of routes' method i, as a generated package's
// routing function does: a typed nil result is no result.
func (s *server) route(ctx context.Context, i int, p any) (any, error) {
	var res *msg
	var err error
	switch m := p.(*msg); i {
	case 0:
		res, err = s.Open(ctx, m)
	case 1:
		res, err = s.Do(ctx, m)
	case 2:
		res, err = s.M(ctx, m)
	case 3:
		res, err = s.Turn(ctx, m)
	case 4:
		s.Tell(ctx, m)
	case 5:
		s.Cancel(ctx, m)
	}
	if res == nil {
		return nil, err
	}
	return res, err
}

// call is a typed call of m, as a generated package's outbound method makes it.
func call(ctx context.Context, c *dispatch.End, m *dispatch.Request[*msg, *msg], p *msg) (*msg, error) {
	res := &msg{}
	if err := c.Call(ctx, &m.Method, p, res); err != nil {
		return nil, err
	}
	return res, nil
}

// server answers do with x "ok:" and the params' x (x "nil": no result), records what
// it is told, and holds turn until its context ends.
type server struct {
	end     dispatch.End
	events  chan string
	turning chan struct{}
}

func (s *server) Open(_ context.Context, p *msg) (*msg, error) {
	return p, nil // the runtime negotiates
}

func (s *server) Do(ctx context.Context, p *msg) (*msg, error) {
	switch p.X {
	case "nil":
		return nil, nil
	case "ctx":
		v, _ := ctx.Value(observed{}).(string)
		return &msg{X: v}, nil
	}
	return &msg{X: "ok:" + p.X}, nil
}

func (s *server) M(context.Context, *msg) (*msg, error) { return &msg{}, nil }

func (s *server) Turn(ctx context.Context, p *msg) (*msg, error) {
	close(s.turning)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s *server) Tell(_ context.Context, p *msg)   { s.events <- "tell " + p.X }
func (s *server) Cancel(_ context.Context, p *msg) { s.events <- "cancel " + p.S }

func (s *server) ExtRequest(_ context.Context, method string, _ wire.Raw) (wire.Raw, error) {
	return wire.Raw(`"` + method + `"`), nil
}
func (s *server) ExtNotification(context.Context, string, wire.Raw) {}

// connect runs a server and a client end over pipes until the test ends.
func connect(t testing.TB) (*server, *dispatch.End) { return connectObserved(t, nil, nil) }

// connectObserved is connect with an Observer on each end (nil: none).
func connectObserved(t testing.TB, serverObs, clientObs dispatch.Observer) (*server, *dispatch.End) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &server{events: make(chan string, 8), turning: make(chan struct{})}
	c := &dispatch.End{}
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	drop := func(method string, err error) { s.events <- "dropped " + method + ": " + err.Error() }
	dispatch.Connect(&s.end, routes, s.route, s, sr, sw, dispatch.Options{RPC: jsonrpc.Options{Logger: quiet}, OnDrop: drop, Observer: serverObs})
	dispatch.Connect(c, &dispatch.Routes{Open: &opening}, nil, nil, cr, cw, dispatch.Options{RPC: jsonrpc.Options{Logger: quiet}, Observer: clientObs})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.end.Conn.Run(ctx) }()
	go func() { defer wg.Done(); c.Conn.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		sw.Close()
		wg.Wait()
	})
	return s, c
}

// code returns the JSON-RPC error code of err, 0 when it is none.
func code(err error) wire.ErrorCode {
	var re *wire.RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

func event(t *testing.T, s *server) string {
	select {
	case e := <-s.events:
		return e
	case <-time.After(time.Minute):
		t.Fatal("no event")
		return ""
	}
}

func TestRouting(t *testing.T) {
	s, c := connect(t)
	ctx := context.Background()
	if _, err := call(ctx, c, doM, &msg{}); err == nil || !strings.Contains(err.Error(), "initialize first") {
		t.Errorf("a call before open: %v", err)
	}
	if _, err := c.Conn.Call(ctx, "do", wire.Raw(`{}`)); code(err) != wire.CodeInvalidRequest {
		t.Errorf("a request before open: %v, want -32600", err)
	}
	c.Conn.Notify(ctx, "tell", wire.Raw(`{}`))
	if e := event(t, s); e != "dropped tell: received before initialize" {
		t.Errorf("a notification before open: %s", e)
	}
	if err := c.Open(ctx, &openM.Method, &msg{X: "hello"}, &msg{}); err != nil {
		t.Fatal(err)
	}
	c.SetNegotiated(nil, grants(`{"a":true,"b":true}`))

	if res, err := call(ctx, c, doM, &msg{X: "echo"}); err != nil || res.X != "ok:echo" {
		t.Errorf("do: %v, %v", res, err)
	}
	var le *wire.LocalError
	if _, err := call(ctx, c, doM, &msg{X: "bad"}); !errors.As(err, &le) || le.What != "params" {
		t.Errorf("invalid params sent: %v, want a LocalError", err)
	}
	if res, err := c.Conn.Call(ctx, "do", wire.Raw(`{"x":"new"}`)); err != nil || string(res) != `{"sessionId":"","x":"ok:new"}` {
		t.Errorf("an unknown variant is accepted leniently: %s, %v", res, err)
	}
	if _, err := c.Conn.Call(ctx, "do", wire.Raw(`{"x":1}`)); code(err) != wire.CodeInvalidParams {
		t.Errorf("undecodable params: %v, want -32602", err)
	}
	if _, err := c.Conn.Call(ctx, "do", wire.Raw(`{"x":"bad"}`)); code(err) != wire.CodeInvalidParams {
		t.Errorf("invalid params: %v, want -32602", err)
	}
	if _, err := c.Conn.Call(ctx, "do", wire.Raw(`{"x":"nil"}`)); code(err) != wire.CodeInternalError {
		t.Errorf("no result: %v, want -32603", err)
	}
	if _, err := c.Conn.Call(ctx, "m", wire.Raw(`{}`)); code(err) != wire.CodeMethodNotFound {
		t.Errorf("a method the server did not advertise: %v, want -32601", err)
	}
	if _, err := c.Conn.Call(ctx, "tell", wire.Raw(`{}`)); code(err) != wire.CodeMethodNotFound {
		t.Errorf("a notification's method as a request: %v, want -32601", err)
	}
	if _, err := c.Conn.Call(ctx, "nope", nil); code(err) != wire.CodeMethodNotFound {
		t.Errorf("an unknown method: %v, want -32601", err)
	}
	if res, err := c.Conn.Call(ctx, "_x/y", nil); err != nil || string(res) != `"_x/y"` {
		t.Errorf("an extension method: %s, %v", res, err)
	}
	if err := c.Notify(ctx, &tellM.Method, &msg{X: "w"}); err != nil {
		t.Fatal(err)
	}
	if e := event(t, s); e != "tell w" {
		t.Errorf("told %q, want tell w", e)
	}
	c.Conn.Notify(ctx, "tell", wire.Raw(`{"x":"v"}`))
	if e := event(t, s); !strings.HasPrefix(e, "dropped tell: tell /x (v) needs b") {
		t.Errorf("a gated variant the server did not advertise: %s", e)
	}
}

func TestCallTurnSendsItsCancel(t *testing.T) {
	s, c := connect(t)
	ctx := context.Background()
	if err := c.Open(ctx, &openM.Method, &msg{}, &msg{}); err != nil {
		t.Fatal(err)
	}
	c.SetNegotiated(nil, grants(`{"a":true}`))
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.CallTurn(ended, &turnM.Method, &msg{S: "s1"}, &msg{}, cancelM.Wire, &msg{S: "s1"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a turn whose context had ended: %v", err)
	}
	turn, cancel := context.WithCancel(ctx)
	go func() { <-s.turning; cancel() }()
	if err := c.CallTurn(turn, &turnM.Method, &msg{S: "s2"}, &msg{}, cancelM.Wire, &msg{S: "s2"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled turn: %v", err)
	}
	// The first turn sent nothing: the first cancel told is the second's.
	if e := event(t, s); e != "cancel s2" {
		t.Errorf("told %q, want cancel s2", e)
	}
}
