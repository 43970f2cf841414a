package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// decoding is a Dispatcher whose DecodeParams reads an object's members as
// raw values, failing on a member named "bad" (after consuming part of the
// params), and whose requests answer what reached them: the method, the
// params as received, and the method the decoded value was made for.
type decoding struct {
	result string // when set, appended as the result instead
}

type decodedFor string

func (decoding) Mode() wire.Mode { return wire.Strict }

func (decoding) DecodeParams(method string, d *wire.Decoder) any {
	if d.BeginObject() != nil {
		return nil
	}
	for {
		key, more, err := d.NextKey()
		if err != nil || string(key) == "bad" {
			return nil
		}
		if !more {
			return decodedFor(method)
		}
		if d.Skip() != nil {
			return nil
		}
	}
}

func (h decoding) AppendRequest(_ context.Context, method string, params wire.Raw, decoded any, b []byte) ([]byte, error) {
	if h.result != "" {
		return append(b, h.result...), nil
	}
	d, _ := decoded.(decodedFor)
	b = append(b, `{"method":`...)
	b = wire.AppendString(b, method)
	b = append(b, `,"decodedFor":`...)
	b = wire.AppendString(b, string(d))
	b = append(b, `,"params":`...)
	return append(wire.AppendRaw(b, params), '}'), nil
}

func (h decoding) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	return h.AppendRequest(ctx, method, params, nil, nil)
}

func (decoding) HandleNotification(context.Context, string, wire.Raw) {}

func (decoding) HandleDecoded(context.Context, string, wire.Raw, any) {}

// TestDispatcherDecodesParamsInThePass: params that follow their method
// reach the handler decoded for it; a method named again after them, params
// before the method, params DecodeParams refuses, and params that are not
// JSON all behave as if nothing were decoded in the pass.
func TestDispatcherDecodesParamsInThePass(t *testing.T) {
	p := newPeer(t, decoding{}, Options{})
	cases := []struct{ frame, result string }{
		{`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":[1,"y"]}}`,
			`{"method":"a","decodedFor":"a","params":{"x":[1,"y"]}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"a","params":{"x":1},"method":"b"}`,
			`{"method":"b","decodedFor":"","params":{"x":1}}`},
		{`{"jsonrpc":"2.0","id":3,"params":{"x":1},"method":"a"}`,
			`{"method":"a","decodedFor":"","params":{"x":1}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"a","params":{"x":1,"bad":{"y":[2]}}}`,
			`{"method":"a","decodedFor":"","params":{"x":1,"bad":{"y":[2]}}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"a","params":{"x":1},"params":{"z":2}}`,
			`{"method":"a","decodedFor":"a","params":{"z":2}}`},
		{`{"jsonrpc":"2.0","id":"s-6","method":"a/b","params":{}}` + " \r",
			`{"method":"a/b","decodedFor":"a/b","params":{}}`},
		{`{"jsonrpc":"2.0","id":"\u0037","method":"a","params":{"x":"\u0041"}}`,
			`{"method":"a","decodedFor":"a","params":{"x":"\u0041"}}`},
		{` {"jsonrpc":"2.0","id":8,"method":"a","params":{"x":1} }`,
			`{"method":"a","decodedFor":"a","params":{"x":1}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"a","params":{"x":1},"extra":true}`,
			`{"method":"a","decodedFor":"a","params":{"x":1}}`},
	}
	for _, c := range cases {
		p.send(c.frame)
		f := p.recvFrame()
		if string(f.Result) != c.result {
			t.Errorf("%s: result %s, want %s", c.frame, f.Result, c.result)
		}
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":6,"method":"a","params":{"x":tru}}`,
		`{"jsonrpc":"2.0","id":7,"method":"a","params":{"x":1}`,
		`{"jsonrpc":"2.0","id":8,"method":"a","params":{"bad":[}}`,
		`{"jsonrpc":"2.0","id":01,"method":"a","params":{}}`,
		`{"jsonrpc":"2.0","id":10,"method":"a","params":{}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"a","params":{},}`,
	} {
		p.send(bad)
		wantError(t, p.recvFrame(), "null", wire.CodeParseError)
	}
}

// TestDispatcherResultWrittenAsAppended: a result appended by the
// Dispatcher is written as it is, line breaks removed; one that is not JSON
// is answered -32603.
func TestDispatcherResultWrittenAsAppended(t *testing.T) {
	t.Run("line breaks", func(t *testing.T) {
		p := newPeer(t, decoding{result: "{\"a\":\r\n [1,\n2]}"}, Options{})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}`)
		if line := p.recv(); line != `{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}` {
			t.Errorf("response %s", line)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		p := newPeer(t, decoding{result: "{\"a\":\n"}, Options{})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}`)
		wantError(t, p.recvFrame(), "1", wire.CodeInternalError)
	})
}

// TestRequestContextEndsWhenAnswered: a request's context, never waited on
// while its handler ran, is done once the request is answered, for what
// the handler left running; one the peer cancelled says so as its cause.
func TestRequestContextEndsWhenAnswered(t *testing.T) {
	kept := make(chan context.Context, 1)
	started, release := make(chan struct{}), make(chan struct{})
	p := newPeer(t, funcs{req: func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
		if method == "wait" {
			close(started)
			<-release
			kept <- ctx
			return nil, errors.New("stopped")
		}
		kept <- ctx
		return wire.Raw(`{}`), nil
	}}, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"a"}`)
	wantResult(t, p.recvFrame(), "1", `{}`)
	ctx := <-kept
	select {
	case <-ctx.Done():
	case <-time.After(guard):
		t.Fatal("the answered request's context is not done")
	}
	if ctx.Err() != context.Canceled || context.Cause(ctx) != context.Canceled {
		t.Errorf("Err %v, Cause %v", ctx.Err(), context.Cause(ctx))
	}
	if ctx.Value(connKey{}) != p.conn {
		t.Error("the request's context lost the connection's values")
	}

	p.send(`{"jsonrpc":"2.0","id":"\u0077","method":"wait"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"a"}`) // read after the cancel
	wantResult(t, p.recvFrame(), "2", `{}`)
	<-kept
	close(release)
	f := p.recvFrame()
	wantError(t, f, `"\u0077"`, wire.CodeCancelled)
	ctx = <-kept
	if !errors.Is(context.Cause(ctx), errPeerCancelled) {
		t.Errorf("cause %v, want the peer's cancel", context.Cause(ctx))
	}
}

// TestIdleConnHasNoNotificationGoroutine: the goroutine that runs
// notification handlers starts with the first notification.
func TestIdleConnHasNoNotificationGoroutine(t *testing.T) {
	handled := make(chan struct{})
	p := newPeer(t, funcs{req: echo, note: func(context.Context, string, wire.Raw) {
		handled <- struct{}{}
	}}, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"a"}`)
	wantResult(t, p.recvFrame(), "1", `{}`)
	if s := connStacks(); strings.Contains(s, "notificationLoop") {
		t.Fatalf("an idle connection runs the notification goroutine:\n%s", s)
	}
	p.send(`{"jsonrpc":"2.0","method":"n"}`)
	<-handled
	if s := connStacks(); !strings.Contains(s, "notificationLoop") {
		t.Fatalf("no notification goroutine after a notification:\n%s", s)
	}
}

// FuzzFastParse: a frame the fast path reads is one the general path
// reads the same way.
func FuzzFastParse(f *testing.F) {
	for _, s := range fuzzFrames {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n","params":{"a":[1,{"b":null}]}}` + "\r"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"m","params":{"k":"\u00e9"}}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		var d wire.Decoder
		var fast, slow message
		if !fastParse(&d, frame, &fast, decoding{}, wire.Strict, &names{}) {
			return
		}
		if f := beginObject(&d, frame, wire.Strict); f != nil {
			t.Fatalf("%q: read by the fast path, refused by parse: %v", frame, f)
		}
		if f := parse(&d, frame, &slow, decoding{}, nil); f != nil {
			t.Fatalf("%q: read by the fast path, refused by parse: %v", frame, f)
		}
		if fast.kind != slow.kind || string(fast.id) != string(slow.id) || string(fast.replyID) != string(slow.replyID) ||
			fast.method != slow.method || string(fast.params) != string(slow.params) || fast.decoded != slow.decoded {
			t.Fatalf("%q: fast %+v, parse %+v", frame, fast, slow)
		}
	})
}
