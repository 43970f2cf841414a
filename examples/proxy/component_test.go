package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// frame is a JSON-RPC message as the test conductor reads it.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct{ Code int }
}

// wrapped is proxy/successor's params.
type wrapped struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// conductorSide is the test's end of the proxy's one connection: it plays
// the conductor, with the editor before it and the agent after it, line by
// line.
type conductorSide struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func (c *conductorSide) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *conductorSide) next() frame {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the proxy closed its output")
		}
		var f frame
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			c.t.Fatalf("%q: %v", line, err)
		}
		return f
	case <-time.After(guard):
		c.t.Fatal("timed out waiting for the proxy")
	}
	return frame{}
}

// nextWrapped reads a proxy/successor request and returns its id and what
// it wraps.
func (c *conductorSide) nextWrapped() (json.RawMessage, wrapped) {
	c.t.Helper()
	f := c.next()
	var w wrapped
	if f.Method != "proxy/successor" || f.ID == nil || json.Unmarshal(f.Params, &w) != nil {
		c.t.Fatalf("got %+v, want a proxy/successor request", f)
	}
	return f.ID, w
}

// With -component the proxy answers proxy/initialize after forwarding
// initialize, without the terminal capability, through proxy/successor;
// refuses a terminal/create the conductor brings from the agent; passes
// the agent's usage_update on to the editor; and counts the turn's tokens.
func TestComponent(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "proxy"), "-component")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	c := &conductorSide{t: t, in: in, lines: make(chan string)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()

	c.send(`{"jsonrpc":"2.0","id":1,"method":"proxy/initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true}}}`)
	id, w := c.nextWrapped()
	if w.Method != "initialize" || strings.Contains(string(w.Params), "terminal") || !strings.Contains(string(w.Params), `"readTextFile":true`) {
		t.Errorf("forwarded %s %s, want initialize without terminal", w.Method, w.Params)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"protocolVersion":1}}`)
	if f := c.next(); string(f.ID) != "1" || !strings.Contains(string(f.Result), `"protocolVersion":1`) {
		t.Fatalf("proxy/initialize answered %+v", f)
	}

	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`)
	turn, w := c.nextWrapped()
	if w.Method != "session/prompt" {
		t.Fatalf("forwarded %s, want session/prompt", w.Method)
	}
	c.send(`{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":50,"size":100}}}}`)
	if f := c.next(); f.Method != "session/update" || !strings.Contains(string(f.Params), `"used":50`) {
		t.Errorf("the usage_update reached the editor as %+v", f)
	}
	c.send(`{"jsonrpc":"2.0","id":"c-1","method":"proxy/successor","params":{"method":"terminal/create","params":{"sessionId":"s1","command":"ls"}}}`)
	if f := c.next(); string(f.ID) != `"c-1"` || f.Error == nil || f.Error.Code != -32601 {
		t.Errorf("terminal/create answered %+v, want -32601", f)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(turn) + `,"result":{"stopReason":"end_turn","usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10}}}`)
	if f := c.next(); string(f.ID) != "2" || !strings.Contains(string(f.Result), `"totalTokens":30`) {
		t.Errorf("session/prompt answered %+v", f)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("proxy: %v\n%s", err, stderr.String())
	}
	if want := `msg="session tokens" sessionId=s1 turns=1 input=20 output=10 total=30 contextUsed=50 contextSize=100`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %s:\n%s", want, stderr.String())
	}
}
