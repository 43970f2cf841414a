// Command v2filter runs an ACP v2 agent (the arguments after the mode) and
// alters the lines it writes, to make the v2 turn defects conform checks:
//
//	-no-idle          drops every idle state_update (the turn never ends)
//	-cancel-end-turn  reports a cancelled turn's idle with stopReason end_turn
//	-late             repeats a session's first turn's last agent_message_chunk
//	                  after its idle
//	-refuse-turn      ends every turn that was not cancelled idle with
//	                  stopReason error and a -32000 error (authentication
//	                  required), as claude-agent-acp does without credentials
//	-tool-cancel      adds, after each running state_update, a tool call that
//	                  advertises capabilities.cancel (a correct agent's update)
//	-resume-answer-first  holds what the agent writes while a session/resume
//	                  is pending until after its response (replay and state)
//	-close-answer-first   the same for session/close (the turn's final
//	                  updates and idle)
//	-accept-any-cursor    turns a session/resume's replayFrom of any type but
//	                  start into start, so an unsupported cursor is accepted
//	-no-session-caps  removes capabilities.session from the initialize
//	                  answer: the agent advertises no session method
//	-drop-unknown-blocks  removes prompt content blocks of a type v2 does not
//	                  define, so a prompt with one is accepted
//	-batch-empty-parse-error  answers an empty batch [] itself with -32700
//	-batch-answer-notifications  answers a batch of notifications with a
//	                  -32600 error (a reply to notifications)
//	-replay-always    turns a session/resume without replayFrom into one
//	                  with replayFrom start (a replay nobody asked for)
//	-refuse-v1        answers an initialize asking for protocol version 1
//	                  with an error instead of a version
//	-duplicate-env    lists, to a client advertising capabilities.auth.terminal,
//	                  a terminal auth method whose env names CONFORM_A twice
//	-idle-without-stop  drops the stopReason of an idle state_update that
//	                  ends a turn not cancelled
//	-user-message-id  gives every user_message update another messageId
//	                  than the prompt's response
//	-same-message-id  gives every prompt response and user_message the
//	                  messageId m-same
//	-replay-drops-agent  drops the agent's message updates while a
//	                  session/resume is pending (a replay without them)
//	-after-close      sends a session_info_update for a session after its
//	                  session/close response
//	-batch-one-error  answers a batch holding requests with one -32600
//	                  error object instead of an array of responses
//	-orphan-chunks    sends, after each running state_update, a
//	                  tool_call_content_chunk and a terminal_output_chunk
//	                  naming a tool call and a terminal never introduced
//	-unprefixed-values  lists an auth method of type vendor_sso, sends a
//	                  vendor_progress session update after each running
//	                  state_update, and ends turns idle with stopReason
//	                  vendor_done: custom values without the _ prefix
//
// And correct behaviours of agents conform must not fail (exit 0 without
// --robustness must):
//
//	-crash-on-nonobject-params  exits on a request whose params are neither
//	                  object nor array, as the official test kit's agents do
//	-echo-invalid     accepts a prompt's text block without text (gives it
//	                  an empty one) and echoes it without text in the
//	                  session's user_message update
//	-batch-updates    writes each session/update as a batch (a JSON array)
//	-logout           lists an agent auth method in every v2 initialize answer
//	                  and answers auth/logout, which listing one requires
//	-terminal-auth    lists, to a client advertising capabilities.auth.terminal,
//	                  a terminal auth method with env CONFORM_A and CONFORM_B
//	                  (and answers auth/logout, which listing one requires)
//
// Everything else passes through unchanged, stdin and stderr too.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
)

// terminalGranted is set while the client's last initialize advertised
// capabilities.auth.terminal.
var terminalGranted atomic.Bool

// toolCallID is the id of the tool call -tool-cancel advertises.
const toolCallID = "v2filter-tool"

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: v2filter -MODE AGENT [ARGS...]")
		os.Exit(2)
	}
	mode := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	o := &output{w: bufio.NewWriter(os.Stdout), held: map[string][][]byte{}}
	go func() {
		input(mode, o, in)
		in.Close()
	}()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	last := map[string][]byte{} // a session's last agent_message_chunk line
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		o.agentLine(filter(mode, line, last))
	}
	if err := cmd.Wait(); err != nil {
		if x, ok := err.(*exec.ExitError); ok {
			os.Exit(x.ExitCode())
		}
		fatal(err)
	}
}

// output writes the filter's stdout. While a request of a held method is
// pending (hold), the agent's lines wait until its response is written.
type output struct {
	mu      sync.Mutex
	w       *bufio.Writer
	pending string              // the id of the request held for, "" when none
	held    map[string][][]byte // its lines so far
}

func (o *output) write(lines ...[]byte) {
	for _, l := range lines {
		o.w.Write(l)
		o.w.WriteByte('\n')
	}
	o.w.Flush()
}

// hold starts holding the agent's lines until the response to id.
func (o *output) hold(id string) {
	o.mu.Lock()
	o.pending = id
	o.mu.Unlock()
}

// agentLine writes the lines made of one agent line, or holds them.
func (o *output) agentLine(lines [][]byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, l := range lines {
		if o.pending == "" {
			o.write(l)
			continue
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l, &r) == nil && r.Method == "" && string(r.ID) == o.pending {
			o.write(append([][]byte{l}, o.held[o.pending]...)...)
			delete(o.held, o.pending)
			o.pending = ""
			continue
		}
		o.held[o.pending] = append(o.held[o.pending], l)
	}
}

// holdFor is the request method each hold mode holds the agent's lines for.
var holdFor = map[string]string{"-resume-answer-first": "session/resume", "-close-answer-first": "session/close"}

// input copies the checker's lines to the agent, altering them as the mode
// says.
func input(mode string, o *output, agent io.Writer) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var req struct {
			ID     json.RawMessage            `json:"id"`
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		isReq := json.Unmarshal(line, &req) == nil
		switch {
		case mode == "-crash-on-nonobject-params" && isReq && nonObjectParams(line):
			fmt.Fprintln(os.Stderr, "panic: params is not an object")
			os.Exit(2)
		case isReq && mode == "-echo-invalid" && req.Method == "session/prompt" && req.Params["prompt"] != nil:
			req.Params["prompt"] = withText(req.Params["prompt"])
			line, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": req.Params})
		case isReq && holdFor[mode] != "" && holdFor[mode] == req.Method:
			o.hold(string(req.ID))
		case isReq && mode == "-accept-any-cursor" && req.Method == "session/resume" && req.Params["replayFrom"] != nil:
			req.Params["replayFrom"] = json.RawMessage(`{"type":"start"}`)
			line, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": req.Params})
		case isReq && mode == "-replay-always" && req.Method == "session/resume" && req.Params["replayFrom"] == nil:
			req.Params["replayFrom"] = json.RawMessage(`{"type":"start"}`)
			line, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": req.Params})
		case isReq && mode == "-drop-unknown-blocks" && req.Method == "session/prompt" && req.Params["prompt"] != nil:
			req.Params["prompt"] = knownBlocks(req.Params["prompt"])
			line, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "method": req.Method, "params": req.Params})
		case isReq && mode == "-refuse-v1" && req.Method == "initialize" && string(req.Params["protocolVersion"]) == "1":
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32602, "message": "unsupported protocol version"}})
			o.locked(string(b))
			continue
		case isReq && req.Method == "initialize":
			terminalGranted.Store(granted(req.Params["capabilities"]))
		case isReq && (req.Method == "session/resume" || req.Method == "session/close"):
			pending.Store(req.Method, pendingReq{id: string(req.ID), session: str(req.Params["sessionId"])})
		case mode == "-batch-one-error" && batchWithRequests(line):
			o.locked(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}`)
			continue
		case isReq && (mode == "-terminal-auth" || mode == "-logout") && req.Method == "auth/logout":
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
			o.locked(string(b))
			continue
		case mode == "-batch-empty-parse-error" && string(line) == "[]":
			o.locked(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			continue
		case mode == "-batch-answer-notifications" && notificationsOnly(line):
			o.locked(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}`)
		}
		if _, err := agent.Write(append(line, '\n')); err != nil {
			return
		}
	}
}

// locked writes one line of the filter's own.
func (o *output) locked(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.write([]byte(line))
}

// withoutSessionCaps drops capabilities.session from an initialize answer
// (a result with a protocolVersion).
func withoutSessionCaps(line []byte) []byte {
	var msg map[string]json.RawMessage
	var res map[string]json.RawMessage
	var caps map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil ||
		res["protocolVersion"] == nil || json.Unmarshal(res["capabilities"], &caps) != nil {
		return line
	}
	delete(caps, "session")
	res["capabilities"], _ = json.Marshal(caps)
	msg["result"], _ = json.Marshal(res)
	out, _ := json.Marshal(msg)
	return out
}

// knownBlocks keeps the content blocks of the types v2 defines.
func knownBlocks(prompt json.RawMessage) json.RawMessage {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(prompt, &blocks) != nil {
		return prompt
	}
	var kept []map[string]json.RawMessage
	for _, b := range blocks {
		switch str(b["type"]) {
		case "text", "image", "audio", "resource_link", "resource":
			kept = append(kept, b)
		}
	}
	out, _ := json.Marshal(kept)
	return out
}

// nonObjectParams reports whether a request's params are present and
// neither object nor array.
func nonObjectParams(line []byte) bool {
	var msg struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(line, &msg)
	return len(msg.Params) > 0 && msg.Params[0] != '{' && msg.Params[0] != '['
}

// withText gives each text block without text an empty one.
func withText(prompt json.RawMessage) json.RawMessage {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(prompt, &blocks) != nil {
		return prompt
	}
	for _, b := range blocks {
		if _, ok := b["text"]; str(b["type"]) == "text" && !ok {
			b["text"] = json.RawMessage(`""`)
		}
	}
	out, _ := json.Marshal(blocks)
	return out
}

// withoutEmptyText drops the empty text of a user_message's blocks: the
// text-less block -echo-invalid accepted, echoed as the checker sent it.
func withoutEmptyText(u update) ([]byte, bool) {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(u.Params.Update["content"], &blocks) != nil {
		return nil, false
	}
	changed := false
	for _, b := range blocks {
		if string(b["text"]) == `""` {
			delete(b, "text")
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	u.Params.Update["content"], _ = json.Marshal(blocks)
	return rewrite(u), true
}

// notificationsOnly reports whether line is a non-empty batch of
// notifications.
func notificationsOnly(line []byte) bool {
	var items []struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &items) != nil || len(items) == 0 {
		return false
	}
	for _, it := range items {
		if it.ID != nil {
			return false
		}
	}
	return true
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
	if mode == "-no-session-caps" {
		return [][]byte{withoutSessionCaps(line)}
	}
	if mode == "-terminal-auth" || mode == "-duplicate-env" || mode == "-unprefixed-values" || mode == "-logout" {
		line = authMethods(mode, line)
	}
	if mode == "-same-message-id" {
		line = sameMessageID(line)
	}
	if extra := answered(mode, line); extra != nil {
		return [][]byte{line, extra}
	}
	if json.Unmarshal(line, &u) != nil || u.Method != "session/update" {
		return [][]byte{line}
	}
	if out, ok := messageIDs(mode, u); ok {
		return out
	}
	if mode == "-batch-updates" {
		return [][]byte{append(append([]byte("["), line...), ']')}
	}
	if mode == "-echo-invalid" && str(u.Params.Update["sessionUpdate"]) == "user_message" {
		if echoed, ok := withoutEmptyText(u); ok {
			return [][]byte{echoed}
		}
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
	case mode == "-late" && state == "idle" && last[u.Params.SessionID] != nil && !resuming() && last["late\x00"+u.Params.SessionID] == nil:
		// Once per session: a later turn's late chunk would reach the
		// resume cases that follow it on the session.
		last["late\x00"+u.Params.SessionID] = []byte{1}
		return [][]byte{line, last[u.Params.SessionID]}
	case mode == "-idle-without-stop" && state == "idle" && stop != "" && stop != "cancelled":
		delete(u.Params.Update, "stopReason")
		return [][]byte{rewrite(u)}
	case mode == "-orphan-chunks" && state == "running":
		tool, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": u.Params.SessionID, "update": map[string]any{"sessionUpdate": "tool_call_content_chunk", "toolCallId": "conform-none",
				"content": map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": "x"}}}}})
		term, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": u.Params.SessionID, "update": map[string]any{"sessionUpdate": "terminal_output_chunk", "terminalId": "conform-none", "data": "eA=="}}})
		return [][]byte{line, tool, term}
	case mode == "-unprefixed-values" && state == "running":
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": u.Params.SessionID, "update": map[string]any{"sessionUpdate": "vendor_progress", "percent": 50}}})
		return [][]byte{line, b}
	case mode == "-unprefixed-values" && state == "idle" && stop == "end_turn":
		u.Params.Update["stopReason"] = json.RawMessage(`"vendor_done"`)
		return [][]byte{rewrite(u)}
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

// granted reports whether initialize's capabilities grant auth.terminal.
func granted(caps json.RawMessage) bool {
	var c struct {
		Auth struct {
			Terminal json.RawMessage `json:"terminal"`
		} `json:"auth"`
	}
	return json.Unmarshal(caps, &c) == nil && len(c.Auth.Terminal) > 0 && string(c.Auth.Terminal) != "null"
}

// authMethods adds the modes' auth methods to an initialize answer (a
// result with a protocolVersion): a terminal one when the client granted
// auth.terminal, or one of a custom type.
func authMethods(mode string, line []byte) []byte {
	var msg map[string]json.RawMessage
	var res map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || res["protocolVersion"] == nil ||
		string(res["protocolVersion"]) == "1" {
		return line // not a v2 initialize answer
	}
	var methods []any
	_ = json.Unmarshal(res["authMethods"], &methods)
	switch {
	case mode == "-unprefixed-values":
		methods = append(methods, map[string]any{"type": "vendor_sso", "methodId": "conform-sso", "name": "SSO"})
	case mode == "-logout":
		methods = append(methods, map[string]any{"type": "agent", "methodId": "conform-key", "name": "Key"})
	case !terminalGranted.Load():
		return line
	default:
		env := []any{map[string]any{"name": "CONFORM_A", "value": "1"}, map[string]any{"name": "CONFORM_B", "value": "2"}}
		if mode == "-duplicate-env" {
			env[1] = map[string]any{"name": "CONFORM_A", "value": "2"}
		}
		methods = append(methods, map[string]any{"type": "terminal", "methodId": "conform-terminal", "name": "Terminal login", "env": env})
	}
	res["authMethods"], _ = json.Marshal(methods)
	msg["result"], _ = json.Marshal(res)
	out, _ := json.Marshal(msg)
	return out
}

// pendingReq is a session/resume or session/close the agent has not
// answered yet: its id and the session it names.
type pendingReq struct{ id, session string }

// pending holds the last session/resume and session/close by method.
var pending sync.Map

func pendingFor(method string) (pendingReq, bool) {
	v, ok := pending.Load(method)
	if !ok {
		return pendingReq{}, false
	}
	return v.(pendingReq), true
}

// answered clears a pending request the line answers and returns what
// -after-close adds after a close response ("" none).
func answered(mode string, line []byte) []byte {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &r) != nil || r.Method != "" || r.ID == nil {
		return nil
	}
	for _, method := range []string{"session/resume", "session/close"} {
		p, ok := pendingFor(method)
		if !ok || p.id != string(r.ID) {
			continue
		}
		pending.Delete(method)
		if mode == "-after-close" && method == "session/close" {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
				"sessionId": p.session, "update": map[string]any{"sessionUpdate": "session_info_update", "title": "closed"}}})
			return b
		}
	}
	return nil
}

// messageIDs applies the modes that alter message ids and replays to a
// session/update; false when none applies.
func messageIDs(mode string, u update) ([][]byte, bool) {
	kind := str(u.Params.Update["sessionUpdate"])
	switch {
	case mode == "-user-message-id" && kind == "user_message":
		u.Params.Update["messageId"] = json.RawMessage(`"conform-other"`)
	case mode == "-same-message-id" && kind == "user_message":
		u.Params.Update["messageId"] = json.RawMessage(`"m-same"`)
	case mode == "-replay-drops-agent" && (kind == "agent_message" || kind == "agent_message_chunk"):
		if _, ok := pendingFor("session/resume"); !ok {
			return nil, false
		}
		return nil, true
	default:
		return nil, false
	}
	return [][]byte{rewrite(u)}, true
}

// sameMessageID gives a prompt response (a result with a messageId) the
// messageId m-same.
func sameMessageID(line []byte) []byte {
	var msg map[string]json.RawMessage
	var res map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || res["messageId"] == nil {
		return line
	}
	res["messageId"] = json.RawMessage(`"m-same"`)
	msg["result"], _ = json.Marshal(res)
	out, _ := json.Marshal(msg)
	return out
}

// batchWithRequests reports whether line is a batch holding a request.
func batchWithRequests(line []byte) bool {
	var items []struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &items) != nil {
		return false
	}
	for _, it := range items {
		if it.ID != nil && it.Method != "" {
			return true
		}
	}
	return false
}

// resuming reports whether a session/resume awaits its response (its
// state_update is the resumed session's snapshot, not a turn's end).
func resuming() bool {
	_, ok := pendingFor("session/resume")
	return ok
}
