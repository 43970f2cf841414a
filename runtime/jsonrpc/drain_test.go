package jsonrpc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// drainPeer runs a scripted peer on a context carrying a Drain.
func drainPeer(t *testing.T, h Handler) (*peer, *Drain) {
	t.Helper()
	ctx, d := WithDrain(context.Background())
	return newPeerCtx(t, ctx, h, Options{}), d
}

// A drain refuses new requests, still handles notifications, lets the
// request in flight finish with its own answer, then ends Run without EOF.
func TestDrainLetsInFlightRequestFinish(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	notes := make(chan string, 1)
	h := funcs{
		req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
			close(started)
			<-release
			return wire.Raw(`{"done":true}`), nil
		},
		note: func(_ context.Context, method string, _ wire.Raw) { notes <- method },
	}
	p, d := drainPeer(t, h)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	within(t, started, "handler start")
	if !d.Start(context.Background()) {
		t.Fatal("Start: no Run takes the drain")
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"later"}`)
	f := p.recvFrame()
	wantError(t, f, "2", CodeOverloaded)
	if !strings.Contains(f.Error.Message, "shutting down") {
		t.Errorf("refusal message %q", f.Error.Message)
	}
	p.send(`{"jsonrpc":"2.0","method":"note"}`)
	if m := within(t, notes, "notification"); m != "note" {
		t.Fatalf("notification %q", m)
	}
	select {
	case err := <-p.runErr:
		t.Fatalf("Run returned with a request in flight: %v", err)
	default:
	}
	close(release)
	wantResult(t, p.recvFrame(), "1", `{"done":true}`)
	if err := within(t, p.runErr, "Run after the drain"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	p.runOnce.Do(func() {}) // Run's result is taken
}

// A handler still waits for the answer to its own Call while draining.
func TestDrainStillReadsAnswers(t *testing.T) {
	var c *Conn
	started, drainNow := make(chan struct{}), make(chan struct{})
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		close(started)
		<-drainNow
		return c.Call(ctx, "ask", nil)
	}}
	p, d := drainPeer(t, h)
	c = p.conn
	p.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	within(t, started, "handler start")
	d.Start(context.Background())
	close(drainNow)
	call := p.recvFrame()
	if call.Method != "ask" {
		t.Fatalf("want the handler's call, got %+v", call)
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"ok":1}}`, call.ID))
	wantResult(t, p.recvFrame(), "1", `{"ok":1}`)
	if err := within(t, p.runErr, "Run after the drain"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	p.runOnce.Do(func() {})
}

// At the drain's deadline handlers are cancelled with cause ErrDrained and
// answered; a hold keeps Run going until it is released.
func TestDrainDeadlineCancelsAndWaitsForHolds(t *testing.T) {
	started := make(chan struct{})
	drained := make(chan bool, 1)
	var release func()
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		if method == "hold" {
			release = DrainFrom(ctx).Hold()
			return wire.Raw(`{}`), nil
		}
		close(started)
		<-ctx.Done()
		drained <- Drained(ctx)
		return nil, ctx.Err()
	}}
	p, d := drainPeer(t, h)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	wantResult(t, p.recvFrame(), "1", `{}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
	within(t, started, "handler start")
	deadline := newManualCtx(context.DeadlineExceeded)
	d.Start(deadline)
	deadline.end()
	within(t, d.Expired(), "Expired")
	wantError(t, p.recvFrame(), "2", wire.CodeCancelled)
	if !within(t, drained, "handler end") {
		t.Error("the handler's context does not report Drained")
	}
	// The hold's work writes its last message, then releases.
	if err := p.conn.Notify(context.Background(), "last", nil); err != nil {
		t.Fatalf("Notify while held: %v", err)
	}
	if f := p.recvFrame(); f.Method != "last" {
		t.Fatalf("want the held work's message, got %+v", f)
	}
	select {
	case err := <-p.runErr:
		t.Fatalf("Run returned while held: %v", err)
	default:
	}
	release()
	if err := within(t, p.runErr, "Run after the hold"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	p.runOnce.Do(func() {})
}

// Start reports whether a Run takes the drain.
func TestDrainStartWithoutRun(t *testing.T) {
	_, d := WithDrain(context.Background())
	if d.Start(context.Background()) {
		t.Fatal("Start reports a Run where none runs")
	}
	select {
	case <-d.Started():
	default:
		t.Fatal("Started not closed")
	}
	if Drained(context.Background()) {
		t.Fatal("a live context reports Drained")
	}
}
