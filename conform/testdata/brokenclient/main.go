// Command brokenclient is an ACP client for the conformance checker's
// tests. By default it is correct: it initializes (v1, or v2 with -v2),
// offers fs and terminals (v1), creates a session, prompts "hello" and
// follows the turn to its end (v1: the prompt's response; v2: the idle
// state_update), answers the agent's requests (fs and terminals for real,
// in their lifecycle: a released terminal is gone), refuses unknown methods
// with -32601, and exits when it is done or the agent's stdout ends.
//
// -break RULE breaks one MUST rule the client checker judges (modes.go).
//
// Usage: brokenclient [-v2] [-cwd DIR] [-break RULE] AGENT [ARGS...]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

var (
	v2    = flag.Bool("v2", false, "speak ACP v2")
	cwd   = flag.String("cwd", "", "the session's cwd (default: the current folder)")
	turns = flag.String("turns", "", "append each turn's stop reason to this file")
	broke = flag.String("break", "", "the rule to break: "+strings.Join(modeNames(), ", "))

	outMu sync.Mutex
	agent interface{ Write([]byte) (int, error) }
)

// writeLine sends one line to the agent as it is.
func writeLine(b []byte) {
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = agent.Write(append(b, '\n'))
}

func send(v any) {
	b, _ := json.Marshal(v)
	writeLine(b)
}

func main() {
	flag.Parse()
	if _, ok := modes[*broke]; !ok && *broke != "" {
		fmt.Fprintf(os.Stderr, "-break %q: one of %s\n", *broke, strings.Join(modeNames(), ", "))
		os.Exit(2)
	}
	if *broke == "no-agent" {
		return
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agent = in
	c := &client{responses: map[string]chan msg{}, idle: make(chan struct{}), done: make(chan struct{})}
	go c.read(out)
	c.flow()
	in.Close()
	_ = cmd.Wait()
}

// client holds the calls waiting for their responses and the v2 turn.
type client struct {
	mu        sync.Mutex
	next      int
	responses map[string]chan msg
	session   string
	idle      chan struct{} // closed by the v2 turn's idle state_update
	idleOnce  sync.Once
	stop      string        // the idle's stopReason, set before idle is closed
	done      chan struct{} // closed when the agent's stdout ends
	terminals terminals
}

func (c *client) read(out interface{ Read([]byte) (int, error) }) {
	defer close(c.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go c.answer(m)
		case m.Method == "session/update":
			c.update(m)
		case m.Method == "":
			c.mu.Lock()
			ch := c.responses[string(m.ID)]
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// call sends a request and waits for its response (or the agent's end).
func (c *client) call(method string, params any) msg {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan msg, 1)
	c.responses[fmt.Sprint(id)] = ch
	c.mu.Unlock()
	send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-c.done:
		return msg{}
	}
}

func (c *client) notify(method string, params any) {
	send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// flow is the client's one scripted session.
func (c *client) flow() {
	dir := *cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	newSession := map[string]any{"cwd": dir, "mcpServers": []any{}}
	if *broke == "ungated-dirs" {
		newSession["additionalDirectories"] = []string{"/"} // whether the agent advertised them or not
	}
	if *broke == "session-first" {
		c.call("session/new", newSession)
	}
	c.call("initialize", initParams())
	if *broke == "garbage-line" {
		writeLine([]byte("this line is not JSON"))
	}
	if *broke == "bad-utf8" {
		writeLine([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"_brokenclient/note\",\"params\":{\"text\":\"hel\xfflo\"}}"))
	}
	if *broke == "unknown-sent" {
		c.notify("brokenclient/not_a_method", map[string]any{})
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(c.call("session/new", newSession).Result, &s)
	c.mu.Lock()
	c.session = s.SessionID
	c.mu.Unlock()
	resp := c.call("session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "hello"}}})
	var end struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(resp.Result, &end)
	if *v2 && len(resp.Result) > 0 {
		select { // v2: the turn ends with its idle state_update
		case <-c.idle:
			end.StopReason = c.stop
		case <-c.done:
		}
	}
	if end.StopReason != "" && *turns != "" {
		f, _ := os.OpenFile(*turns, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, end.StopReason)
		f.Close()
	}
	if *broke == "cancel-params" {
		c.notify("session/cancel", map[string]any{})
	}
}

func initParams() map[string]any {
	p := map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}}
	if *v2 {
		p = map[string]any{"protocolVersion": 2, "info": map[string]any{"name": "brokenclient", "version": "0.0.0"}, "capabilities": map[string]any{}}
	}
	if *broke == "init-params" {
		delete(p, "protocolVersion")
	}
	return p
}

// update follows the session's updates: v2's idle ends the turn.
func (c *client) update(m msg) {
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			Kind       string `json:"sessionUpdate"`
			State      string `json:"state"`
			StopReason string `json:"stopReason"`
		} `json:"update"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if *broke == "crash-on-update" && !turnKinds[p.Update.Kind] {
		fmt.Fprintln(os.Stderr, "brokenclient: session/update", p.Update.Kind, "not handled")
		os.Exit(2)
	}
	c.mu.Lock()
	mine := p.SessionID == c.session
	c.mu.Unlock()
	if mine && p.Update.Kind == "state_update" && p.Update.State == "idle" {
		c.idleOnce.Do(func() { c.stop = p.Update.StopReason; close(c.idle) })
	}
}

// turnKinds are the updates of a plain echo turn.
var turnKinds = map[string]bool{"agent_message_chunk": true, "user_message": true, "user_message_chunk": true, "state_update": true}
