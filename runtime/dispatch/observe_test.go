package dispatch_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// observed is the context key under which fakeObserver marks the contexts
// it returns.
type observed struct{}

// fakeObserver records each Begin and Finish as a line, marks the context
// with its name, and injects inject into outbound _meta.
type fakeObserver struct {
	name   string
	inject map[string]string
	lines  chan string
}

func newFake(name string, inject map[string]string) *fakeObserver {
	return &fakeObserver{name: name, inject: inject, lines: make(chan string, 16)}
}

func (f *fakeObserver) Begin(ctx context.Context, m *dispatch.Message) (context.Context, dispatch.Finish) {
	kind := "request"
	if m.Notification {
		kind = "notification"
	}
	f.lines <- fmt.Sprintf("begin %s %s %s session=%q meta=%s", m.Direction, kind, m.Method, m.SessionID, m.Meta)
	if m.Direction == dispatch.Outbound {
		m.Inject = f.inject
	}
	return context.WithValue(ctx, observed{}, f.name), func(code wire.ErrorCode, err error) {
		f.lines <- fmt.Sprintf("end %s %s code=%d err=%v", m.Direction, m.Method, code, err != nil)
	}
}

func (f *fakeObserver) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-f.lines:
			if got != w {
				t.Errorf("%s observed\n%s\nwant\n%s", f.name, got, w)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s observed nothing, want %s", f.name, w)
		}
	}
}

func TestObserverSeesAndPropagates(t *testing.T) {
	so := newFake("server", nil)
	co := newFake("client", map[string]string{"traceparent": "00-t", "baggage": "b=1"})
	s, c := connectObserved(t, so, co)
	ctx := context.Background()
	if err := c.Open(ctx, &openM.Method, &msg{}, &msg{}); err != nil {
		t.Fatal(err)
	}
	co.expect(t, `begin outbound request open session="" meta=`, `end outbound open code=0 err=false`)
	so.expect(t, `begin inbound request open session="" meta={"baggage":"b=1","traceparent":"00-t"}`, `end inbound open code=0 err=false`)
	c.SetNegotiated(nil, grants(`{"a":true,"b":true}`))

	// The caller's _meta keeps its members; the injected ones replace theirs.
	res, err := call(ctx, c, doM, &msg{S: "s1", X: "ctx", Meta: wire.Raw(`{"k":[1],"traceparent":"old"}`)})
	if err != nil || res.X != "server" {
		t.Errorf("the handler's context is the observer's: %v, %v", res, err)
	}
	co.expect(t, `begin outbound request do session="s1" meta={"k":[1],"traceparent":"old"}`, `end outbound do code=0 err=false`)
	so.expect(t, `begin inbound request do session="s1" meta={"k":[1],"baggage":"b=1","traceparent":"00-t"}`, `end inbound do code=0 err=false`)

	if _, err := call(ctx, c, doM, &msg{X: "nil"}); code(err) != wire.CodeInternalError {
		t.Fatalf("no result: %v", err)
	}
	co.expect(t, `begin outbound request do session="" meta=`, `end outbound do code=-32603 err=true`)
	so.expect(t, `begin inbound request do session="" meta={"baggage":"b=1","traceparent":"00-t"}`, `end inbound do code=-32603 err=true`)

	if _, err := c.Conn.Call(ctx, "do", wire.Raw(`{"sessionId":"s2","x":"bad"}`)); code(err) != wire.CodeInvalidParams {
		t.Fatalf("invalid params: %v", err)
	}
	so.expect(t, `begin inbound request do session="s2" meta=`, `end inbound do code=-32602 err=true`)
	if _, err := c.Conn.Call(ctx, "nope", wire.Raw(`{}`)); code(err) != wire.CodeMethodNotFound {
		t.Fatalf("an unknown method: %v", err)
	}
	so.expect(t, `begin inbound request nope session="" meta=`, `end inbound nope code=-32601 err=true`)

	if err := c.Notify(ctx, &tellM.Method, &msg{S: "s3", X: "w"}); err != nil {
		t.Fatal(err)
	}
	if e := event(t, s); e != "tell w" {
		t.Errorf("told %q", e)
	}
	co.expect(t, `begin outbound notification tell session="s3" meta=`, `end outbound tell code=0 err=false`)
	so.expect(t, `begin inbound notification tell session="s3" meta={"baggage":"b=1","traceparent":"00-t"}`, `end inbound tell code=0 err=false`)
}

// Observe, as a relay uses it: a received message is observed as it is; a
// sent one gets what the observer injects into a copy of its params.
func TestObserveRelayed(t *testing.T) {
	f := newFake("relay", map[string]string{"traceparent": "00-x"})
	params := []byte(`{"sessionId":"s1","_meta":{"traceparent":"00-old","keep":1}}`)
	orig := string(params)
	ctx, got, finish := dispatch.Observe(context.Background(), f, dispatch.Inbound, "session/prompt", false, params)
	if string(got) != orig || ctx.Value(observed{}) != "relay" {
		t.Errorf("inbound: params %s, context marked %v", got, ctx.Value(observed{}))
	}
	finish(0, nil)
	_, got, _ = dispatch.Observe(ctx, f, dispatch.Outbound, "session/prompt", false, params)
	if want := `{"sessionId":"s1","_meta":{"keep":1,"traceparent":"00-x"}}`; string(got) != want || string(params) != orig {
		t.Errorf("outbound: %s, want %s; the original became %s", got, want, params)
	}
	if l := <-f.lines; l != `begin inbound request session/prompt session="s1" meta={"traceparent":"00-old","keep":1}` {
		t.Errorf("first observation: %s", l)
	}
}
