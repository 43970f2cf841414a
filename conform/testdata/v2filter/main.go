// Command v2filter runs an ACP v2 agent (the arguments after the mode) and
// alters the lines it writes, to make the v2 turn defects conform checks:
//
//	-no-idle          drops every idle state_update (the turn never ends)
//	-cancel-end-turn  reports a cancelled turn's idle with stopReason end_turn
//	-late             repeats a turn's last agent_message_chunk after its idle
//	-refuse-turn      ends every turn that was not cancelled idle with
//	                  stopReason error and a -32000 error (authentication
//	                  required), as claude-agent-acp does without credentials
//	-tool-cancel      adds, after each running state_update, a tool call that
//	                  advertises capabilities.cancel (a correct agent's update)
//
// Everything else passes through unchanged, stdin and stderr too.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// toolCallID is the id of the tool call -tool-cancel advertises.
const toolCallID = "v2filter-tool"

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: v2filter -MODE AGENT [ARGS...]")
		os.Exit(2)
	}
	mode := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	w := bufio.NewWriter(os.Stdout)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	last := map[string][]byte{} // a session's last agent_message_chunk line
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		for _, l := range filter(mode, line, last) {
			w.Write(l)
			w.WriteByte('\n')
		}
		w.Flush()
	}
	if err := cmd.Wait(); err != nil {
		if x, ok := err.(*exec.ExitError); ok {
			os.Exit(x.ExitCode())
		}
		fatal(err)
	}
}

// update is the part of a session/update line the modes look at.
type update struct {
	Method string `json:"method"`
	Params struct {
		SessionID string                     `json:"sessionId"`
		Update    map[string]json.RawMessage `json:"update"`
	} `json:"params"`
}

// filter returns the lines to write for one line of the agent's.
func filter(mode string, line []byte, last map[string][]byte) [][]byte {
	var u update
	if json.Unmarshal(line, &u) != nil || u.Method != "session/update" {
		return [][]byte{line}
	}
	kind, state, stop := str(u.Params.Update["sessionUpdate"]), str(u.Params.Update["state"]), str(u.Params.Update["stopReason"])
	switch {
	case kind == "agent_message_chunk":
		last[u.Params.SessionID] = line
	case kind != "state_update":
	case mode == "-no-idle" && state == "idle":
		return nil
	case mode == "-cancel-end-turn" && state == "idle" && stop == "cancelled":
		u.Params.Update["stopReason"] = json.RawMessage(`"end_turn"`)
		return [][]byte{rewrite(u)}
	case mode == "-refuse-turn" && state == "idle" && stop != "" && stop != "cancelled":
		u.Params.Update["stopReason"] = json.RawMessage(`"error"`)
		u.Params.Update["error"] = json.RawMessage(`{"code":-32000,"message":"Authentication required"}`)
		return [][]byte{rewrite(u)}
	case mode == "-late" && state == "idle" && last[u.Params.SessionID] != nil:
		return [][]byte{line, last[u.Params.SessionID]}
	case mode == "-tool-cancel" && state == "running":
		tool := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": u.Params.SessionID,
			"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": toolCallID, "title": "wait",
				"status": "in_progress", "capabilities": map[string]any{"cancel": map[string]any{}}},
		}}
		b, _ := json.Marshal(tool)
		return [][]byte{line, b}
	}
	return [][]byte{line}
}

func rewrite(u update) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": u.Method, "params": u.Params})
	return b
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "v2filter:", err)
	os.Exit(1)
}
