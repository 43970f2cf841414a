package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// peer is the test's end of one of the proxy's links, as raw lines.
type peer struct {
	t  *testing.T
	sc *bufio.Scanner
	w  io.Writer
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next reads the next line as an envelope.
func (p *peer) next() (m struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *struct{ Code int }
}) {
	p.t.Helper()
	got := make(chan bool, 1)
	go func() { got <- p.sc.Scan() }()
	select {
	case ok := <-got:
		if !ok || json.Unmarshal(p.sc.Bytes(), &m) != nil {
			p.t.Fatalf("read %q, %v", p.sc.Text(), p.sc.Err())
		}
	case <-time.After(wait):
		p.t.Fatal("no message")
	}
	return m
}

// drained runs a proxy relaying everything between a scripted editor and
// agent, under a context that carries a drain.
func drained(t *testing.T) (editor, agent *peer, d *jsonrpc.Drain, run <-chan error) {
	edR, predW := io.Pipe()
	predR, edW := io.Pipe()
	agR, succW := io.Pipe()
	succR, agW := io.Pipe()
	ctx, d := jsonrpc.WithDrain(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- proxy.New(proxy.Options{}).Run(ctx, proxy.Stream(predR, predW), proxy.Stream(succR, succW))
	}()
	t.Cleanup(func() {
		cancel()
		for _, c := range []io.Closer{edR, predW, predR, edW, agR, succW, succR, agW} {
			c.Close()
		}
	})
	return &peer{t, bufio.NewScanner(edR), edW}, &peer{t, bufio.NewScanner(agR), agW}, d, done
}

func ended(t *testing.T, run <-chan error) {
	t.Helper()
	select {
	case err := <-run:
		if err != nil {
			t.Errorf("Run: %v, want nil once drained", err)
		}
	case <-time.After(wait):
		t.Fatal("the chain did not end once drained")
	}
}

// Once the context's drain starts, a request of the editor's is refused
// -32001 and not relayed, while the one in flight goes on: its
// notifications, the agent's requests and the editor's answers are
// relayed, and the chain ends (Run returns nil) once its answer is
// written.
func TestDrainLetsRequestsInFlightFinish(t *testing.T) {
	editor, agent, d, run := drained(t)
	editor.send(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	if m := agent.next(); m.Method != "session/prompt" {
		t.Fatalf("the agent got %+v", m)
	}
	d.Start(context.Background())
	editor.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	if m := editor.next(); string(m.ID) != "2" || m.Error == nil || m.Error.Code != int(jsonrpc.CodeOverloaded) {
		t.Fatalf("a request after the drain began: %+v, want -32001", m)
	}
	agent.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`)
	agent.send(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{}}`)
	if m := editor.next(); m.Method != "session/update" {
		t.Fatalf("the editor got %+v, want the update", m)
	}
	if m := editor.next(); m.Method != "session/request_permission" {
		t.Fatalf("the editor got %+v, want the agent's request", m)
	}
	editor.send(`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`)
	if m := agent.next(); string(m.ID) != `"p"` || m.Result == nil {
		t.Fatalf("the agent got %+v, want the editor's answer", m)
	}
	agent.send(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`)
	if m := editor.next(); string(m.ID) != "1" || m.Result == nil {
		t.Fatalf("the editor got %+v, want the prompt's answer", m)
	}
	ended(t, run)
}

// At the drain's deadline, a request still in flight is cancelled at the
// agent with $/cancel_request, and its answer is still relayed.
func TestDrainDeadlineCancelsInFlight(t *testing.T) {
	editor, agent, d, run := drained(t)
	editor.send(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	if m := agent.next(); m.Method != "session/prompt" {
		t.Fatalf("the agent got %+v", m)
	}
	deadline, expire := context.WithCancel(context.Background())
	d.Start(deadline)
	expire()
	if m := agent.next(); m.Method != jsonrpc.CancelRequestMethod || string(m.Params) != `{"requestId":7}` {
		t.Fatalf("the agent got %+v, want $/cancel_request of 7", m)
	}
	agent.send(`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"cancelled"}}`)
	if m := editor.next(); string(m.ID) != "7" || m.Result == nil {
		t.Fatalf("the editor got %+v, want the prompt's answer", m)
	}
	ended(t, run)
}
