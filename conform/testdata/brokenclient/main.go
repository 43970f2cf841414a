// Command brokenclient is an ACP client with four deliberate defects, for
// the conformance checker's tests: it sends additionalDirectories whether
// or not the agent advertised them, answers session/request_permission
// with an outcome the schema does not know, answers unknown methods with a
// result instead of -32601, and waits forever for a response when the
// agent's stdout ends. Everything else it does is valid.
//
// Usage: brokenclient AGENT [ARGS...]
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		in.Write(append(b, '\n'))
	}
	responses := map[string]chan json.RawMessage{}
	for _, id := range []string{"1", "2", "3"} {
		responses[id] = make(chan json.RawMessage, 1)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m msg
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch {
			case m.Method == "session/request_permission":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "maybe"}}})
			case m.Method != "" && len(m.ID) > 0:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			case m.Method == "" && responses[string(m.ID)] != nil:
				responses[string(m.ID)] <- m.Result
			}
		}
		// The defect: the end of the agent's output is not noticed, and a
		// timer keeps the process from being ended as a deadlock.
	}()
	go func() {
		for {
			time.Sleep(time.Hour)
		}
	}()
	call := func(id int, method string, params any) json.RawMessage {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		return <-responses[fmt.Sprint(id)]
	}
	cwd, _ := os.Getwd()
	call(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(call(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "additionalDirectories": []string{"/"}}), &s)
	call(3, "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "hello"}}})
	in.Close()
	cmd.Wait()
}
