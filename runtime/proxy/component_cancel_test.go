package proxy_test

import (
	"bufio"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// handConductor runs p as a Proxy Chains component and returns the
// conductor's end of its connection, driven by hand.
func handConductor(t *testing.T, setup func(*proxy.Proxy)) *handAgent {
	t.Helper()
	p := proxy.New(proxy.Options{Logger: slog.New(slog.DiscardHandler)})
	setup(p)
	condEnd, compEnd := pipes()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	pred, succ := proxy.Component(proxy.Stream(compEnd.r, compEnd.w))
	go func() { defer close(done); _ = p.Run(ctx, pred, succ) }()
	t.Cleanup(func() {
		cancel()
		for _, l := range []link{condEnd, compEnd} {
			l.r.Close()
			l.w.Close()
		}
		<-done
	})
	return &handAgent{t: t, in: frames{bufio.NewReader(condEnd.r)}, w: condEnd.w}
}

// cancelAndAnswer returns the $/cancel_request among the next two frames the
// conductor gets, and the answer to id among them.
func cancelAndAnswer(t *testing.T, c *handAgent, id string) (cancel, answer string) {
	t.Helper()
	for range 2 {
		line, env := c.read()
		switch {
		case env.Name == "$/cancel_request":
			cancel = line
		case env.Method == nil && string(env.ID) == id:
			answer = line
		default:
			t.Errorf("the conductor got %s", line)
		}
	}
	return cancel, answer
}

// Cancellation is per hop under a conductor: when the conductor cancels a
// request the proxy passed on, the proxy cancels its own request, by its
// own id and unwrapped, never by the conductor's; the conductor's request
// is answered -32800. Both ways: a prompt the proxy sent on wrapped in
// proxy/successor, and a terminal/create the conductor delivered wrapped,
// which the proxy sent to its predecessor.
func TestComponentCancelPerHop(t *testing.T) {
	c := handConductor(t, passOn)
	c.send(string(frame(wire.Raw(`7`), "session/prompt", wire.Raw(promptParams))))
	_, env := c.expect("proxy/successor")
	down := string(env.ID)
	if down == "7" || !strings.Contains(string(env.Params), `"method":"session/prompt"`) {
		t.Fatalf("the prompt went on as %s, want it wrapped under the proxy's id", env.Params)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
	cancel, answer := cancelAndAnswer(t, c, "7")
	if !strings.Contains(cancel, `"requestId":`+down) || strings.Contains(cancel, "proxy/successor") {
		t.Errorf("the proxy cancelled with %s, want its own request %s, unwrapped", cancel, down)
	}
	if !strings.Contains(answer, `"code":-32800`) {
		t.Errorf("the cancelled prompt was answered %s, want -32800", answer)
	}

	c.send(`{"jsonrpc":"2.0","id":"c-1","method":"proxy/successor","params":{"method":"terminal/create","params":` + terminalParams + `,"_meta":{"hop":"conductor"}}}`)
	_, env = c.expect("terminal/create")
	up := string(env.ID)
	if up == `"c-1"` || strings.Contains(string(env.Params), "hop") {
		t.Fatalf("terminal/create went to the predecessor as %s %s, want the proxy's id and no envelope _meta", up, env.Params)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"c-1"}}`)
	cancel, answer = cancelAndAnswer(t, c, `"c-1"`)
	if !strings.Contains(cancel, `"requestId":`+up) {
		t.Errorf("the proxy cancelled with %s, want its own request %s", cancel, up)
	}
	if !strings.Contains(answer, `"code":-32800`) || strings.Contains(answer, "proxy/successor") {
		t.Errorf("the cancelled proxy/successor request was answered %s, want -32800, unwrapped", answer)
	}
}

// A request no interceptor claims goes on wrapped under the same id, which
// is then the proxy's own proxy/successor request: the conductor's cancel
// goes on unwrapped, naming it.
func TestComponentCancelRelayed(t *testing.T) {
	c := handConductor(t, func(*proxy.Proxy) {})
	c.send(string(frame(wire.Raw(`8`), "session/list", wire.Raw(`{}`))))
	if _, env := c.expect("proxy/successor"); string(env.ID) != "8" {
		t.Fatalf("session/list went on as id %s, want 8", env.ID)
	}
	c.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":8}}`)
	if line, env := c.read(); env.Name != "$/cancel_request" || !strings.Contains(line, `"requestId":8`) {
		t.Errorf("the conductor got %s, want $/cancel_request for 8, unwrapped", line)
	}
}

// A Proxy Chains connection carries no batches (the protocol it runs on
// defines none, and one array could not hold answers from both links):
// a batch is refused with one -32600, id null.
func TestComponentRefusesBatch(t *testing.T) {
	c := handConductor(t, func(*proxy.Proxy) {})
	c.send(`[` + string(frame(wire.Raw(`1`), "session/list", wire.Raw(`{}`))) + `]`)
	if line, env := c.read(); string(env.ID) != "null" || !strings.Contains(line, `"code":-32600`) {
		t.Errorf("a batch got %s, want one -32600 with id null", line)
	}
}
