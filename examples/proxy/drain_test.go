package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coder/websocket"
)

// wsFrame is a JSON-RPC message as the test's raw editor reads it.
type wsFrame struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *struct{ Code int }
}

// rawEditor is an editor on a WebSocket that writes and reads frames
// itself, one at a time, in wire order.
type rawEditor struct {
	t   *testing.T
	ctx context.Context
	ws  *websocket.Conn
}

func (e *rawEditor) send(msg string) {
	e.t.Helper()
	if err := e.ws.Write(e.ctx, websocket.MessageText, []byte(msg)); err != nil {
		e.t.Fatalf("writing %s: %v", msg, err)
	}
}

func (e *rawEditor) next() wsFrame {
	e.t.Helper()
	_, b, err := e.ws.Read(e.ctx)
	if err != nil {
		e.t.Fatalf("reading: %v", err)
	}
	var f wsFrame
	if err := json.Unmarshal(b, &f); err != nil {
		e.t.Fatalf("reading %s: %v", b, err)
	}
	return f
}

// answer reads up to the answer to id, skipping notifications.
func (e *rawEditor) answer(id string) wsFrame {
	e.t.Helper()
	for {
		f := e.next()
		if f.Method == "" && string(f.ID) == id {
			return f
		}
		if f.Method == "" || f.ID != nil {
			e.t.Fatalf("got %+v, want the answer to %s", f, id)
		}
	}
}

// On SIGTERM, -listen drains its connections as examples/agent does: a
// request sent once the drain has begun is refused -32001, while the turn
// in flight finishes (its permission request reached the editor, the
// editor's answer reaches the agent, the turn's update and answer the
// editor), then the connection closes and the proxy exits 0.
func TestListenDrainsOnSignal(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "proxy"), "-listen", "127.0.0.1:0", "--", self)
	cmd.Env = append(os.Environ(), agentEnv+"=1")
	cmd.WaitDelay = guard
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the proxy printed %q, %v; want its address", line, err)
	}
	logs := bufio.NewScanner(stderr)

	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	e := &rawEditor{t, ctx, ws}
	e.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	e.answer("0")
	e.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	var ns struct{ SessionID string }
	if f := e.answer("1"); json.Unmarshal(f.Result, &ns) != nil || ns.SessionID == "" {
		t.Fatalf("session/new: %+v", f)
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + ns.SessionID + `","prompt":[{"type":"text","text":"ask"}]}}`)
	ask := e.next()
	if ask.Method != "session/request_permission" {
		t.Fatalf("got %+v, want the agent's permission request", ask)
	}

	cmd.Process.Signal(syscall.SIGTERM) // the turn is in flight, waiting for the editor
	for !strings.Contains(logs.Text(), `msg=draining`) {
		if !logs.Scan() {
			t.Fatalf("the proxy's stderr ended without msg=draining: %v", cmd.Wait())
		}
	}
	go func() {
		for logs.Scan() {
		}
	}()
	e.send(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	if f := e.answer("3"); f.Error == nil || f.Error.Code != -32001 {
		t.Errorf("session/new during the drain: %+v, want -32001", f)
	}
	e.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	if f := e.next(); f.Method != "session/update" || !strings.Contains(string(f.Params), `"chose allow"`) {
		t.Errorf("got %+v, want the turn's update with the editor's choice", f)
	}
	var pr struct{ StopReason string }
	if f := e.answer("2"); json.Unmarshal(f.Result, &pr) != nil || pr.StopReason != "end_turn" {
		t.Errorf("the turn in flight: %+v, want it answered end_turn", f)
	}
	if _, b, err := ws.Read(ctx); websocket.CloseStatus(err) == -1 {
		t.Errorf("after the drain: %s, %v; want the socket closed", b, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the proxy: %v, want exit status 0 once drained", err)
	}
}
