package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Modes beside the defects, each a correct behaviour conform must not fail:
//
//	-auth        lists the auth method "conform-key" and answers session/new
//	             with -32000 (authentication required) until authenticate
//	             names it
//	-auth-prompt lists "conform-key" as -auth does, creates sessions, and
//	             answers session/prompt with -32000 until authenticate names it
//	-chatty      sends session_info_update and available_commands_update
//	             after every prompt's response (session-level updates)
//	-late        sends an agent_message_chunk after the prompt's response
//	             (turn output after the turn: a defect)
//	-modes       advertises the modes "ask" and "code" and the config option
//	             "effort" in session/new; set_mode and set_config_option
//	             accept those and answer -32602 for anything else (the
//	             defect -partial-config-options, below, builds on it)
//	-keyed       sends a tool_call and a tool_call_update naming it during
//	             each turn, and its chunks with messageId "m-1" (the defects
//	             -orphan-tool-update and -chunk-id-returns, below, build on it)
//	-negotiate=N answers an initialize asking for more than 1 with version
//	             N and a v2 InitializeResponse body (invalid under v1)
var (
	authMode   = has("-auth")
	authPrompt = has("-auth-prompt")
	chattyMode = has("-chatty")
	lateMode   = has("-late")
	modesMode  = has("-modes")
	keyedMode  = has("-keyed")
	negotiate  = argValue("-negotiate=")
)

var authenticated bool

func argValue(prefix string) string {
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v
		}
	}
	return ""
}

// initResult is the initialize result for the requested version.
func initResult(requested int) any {
	if negotiate != "" && requested > 1 {
		var v int
		_ = json.Unmarshal([]byte(negotiate), &v)
		return map[string]any{"protocolVersion": v, "info": map[string]any{"name": "brokenagent", "version": "0"},
			"capabilities": map[string]any{}, "authMethods": []any{map[string]any{"type": "agent", "methodId": "conform-key", "name": "Key"}}}
	}
	res := map[string]any{"protocolVersion": answeredVersion(requested), "agentCapabilities": capabilities()}
	if authMode || authPrompt {
		res["authMethods"] = []any{map[string]any{"id": "conform-key", "name": "Key"}}
		if duplicateAuthIDs {
			res["authMethods"] = append(res["authMethods"].([]any), map[string]any{"id": "conform-key", "name": "Key again"})
		}
	}
	return res
}

// login handles authenticate's method id.
func login(methodID string) {
	if methodID == "conform-key" {
		authenticated = true
	}
}

// refused answers a session/new (or with -auth-prompt a session/prompt) the
// agent will not serve yet.
func refused(id json.RawMessage, method string) bool {
	if !authenticated && (authMode && method == "session/new" || authPrompt && method == "session/prompt") {
		fail(id, -32000, "Authentication required", nil)
		return true
	}
	return false
}

// sessionState is what session/new's result advertises besides the id.
func sessionState(res map[string]any) map[string]any {
	if modesMode {
		res["modes"] = map[string]any{"currentModeId": "ask", "availableModes": []any{
			map[string]any{"id": "ask", "name": "Ask"}, map[string]any{"id": "code", "name": "Code"}}}
		res["configOptions"] = configOptions()
	}
	return res
}

// configOptions are the options a session lists with -modes: "effort", and
// "model" after it with -partial-config-options.
func configOptions() []any {
	opt := func(id, current, other string) any {
		return map[string]any{"id": id, "name": id, "type": "select", "currentValue": current,
			"options": []any{map[string]any{"value": current, "name": current}, map[string]any{"value": other, "name": other}}}
	}
	opts := []any{opt("effort", "low", "high")}
	if partialConfig {
		opts = append(opts, opt("model", "fast", "deep"))
	}
	return opts
}

// setState answers set_mode and set_config_option: known ids succeed.
func setState(id json.RawMessage, method string, params json.RawMessage) {
	var p struct {
		ModeID   string `json:"modeId"`
		ConfigID string `json:"configId"`
		Value    string `json:"value"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case !modesMode:
		fail(id, -32601, "Method not found", method)
	case method == "session/set_mode" && (p.ModeID == "ask" || p.ModeID == "code"):
		reply(id, map[string]any{})
	case method == "session/set_config_option" && p.ConfigID == "effort" && (p.Value == "low" || p.Value == "high"):
		opts := configOptions()
		if partialConfig {
			opts = opts[:1] // the changed option only: the defect
		}
		reply(id, map[string]any{"configOptions": opts})
	default:
		fail(id, -32602, "Invalid params", "unknown id")
	}
}

// afterTurn sends what the modes add once a prompt has been answered.
func afterTurn(sid string) {
	if chattyMode {
		update(sid, map[string]any{"sessionUpdate": "session_info_update", "title": "conformance"})
		update(sid, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []any{}})
	}
	if lateMode {
		update(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "late"}})
	}
}

// keyedUpdates sends -keyed's updates: a tool call and its update, and the
// defects' ids.
func keyedUpdates(sid string) {
	if !keyedMode {
		return
	}
	updated := "tc-1"
	if orphanToolUpdate {
		updated = "tc-0"
	}
	update(sid, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "tc-1", "title": "echo"})
	update(sid, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": updated, "status": "completed"})
	if chunkIDReturns {
		for _, id := range []string{"m-2", "m-1"} {
			update(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": id, "content": map[string]any{"type": "text", "text": "more"}})
		}
	}
}

func update(sid string, u map[string]any) {
	emitUpdate(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid, "update": u}})
}

// Correct behaviours of agents that conform must not fail (exit 0 without
// --robustness must), each seen in real agents or the official test kit's:
var (
	// echoInvalid accepts a prompt's text block without text (as the
	// default agent does) and echoes that block, as given, in the turn's
	// chunk: a frame that breaks the schema only by the checker's value.
	echoInvalid = has("-echo-invalid")
	// deleteListedOnly advertises session/list and session/delete, lists
	// only sessions with history, and answers session/delete for any other
	// with -32002 (the schema deletes "an existing session from
	// session/list"), as claude-agent-acp does.
	deleteListedOnly = has("-delete-listed-only")
	// holdWord holds a turn until session/cancel when its prompt contains
	// this word (default "wait"): an agent whose turns end at once for the
	// checker's default cancel prompt.
	holdWord = orDefault(argValue("-hold-word="), "wait")
	// resumeMode advertises session/resume and resumes a known session
	// without replaying it; resumeReplays (with it) replays the session's
	// history first, though session/resume resumes without replay.
	resumeMode    = has("-resume") || has("-resume-replays")
	resumeReplays = has("-resume-replays")
	// imageMode advertises promptCapabilities.image and takes image
	// blocks; imageRefused (with it) answers a prompt holding one -32602.
	imageMode    = has("-image") || has("-image-refused")
	imageRefused = has("-image-refused")
	// duplicateAuthIDs (with -auth) lists the auth method id twice.
	duplicateAuthIDs = has("-duplicate-auth-ids")
	// logoutMode advertises agentCapabilities.auth.logout and answers
	// logout; logoutRefused (with it) answers logout -32603.
	logoutMode    = has("-logout") || has("-logout-refused")
	logoutRefused = has("-logout-refused")
	// terminalAuth lists a terminal auth method (env CONFORM_A and
	// CONFORM_B) to a client advertising clientCapabilities.auth.terminal;
	// duplicateEnv (with it) gives its env the member CONFORM_A twice.
	terminalAuth = has("-terminal-auth") || has("-duplicate-env")
	duplicateEnv = has("-duplicate-env")
	// batchUpdates writes the session/updates of each turn as one JSON-RPC
	// batch (a JSON array) instead of one line each.
	batchUpdates = has("-batch-updates")
)

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// pendingUpdates holds the turn's updates with batchUpdates.
var pendingUpdates []any

// emitUpdate writes a session/update, or holds it for the turn's batch.
func emitUpdate(msg map[string]any) {
	if !batchUpdates {
		send(msg)
		return
	}
	outMu.Lock()
	pendingUpdates = append(pendingUpdates, msg)
	outMu.Unlock()
}

// flushUpdates writes the held updates as one batch.
func flushUpdates() {
	outMu.Lock()
	batch := pendingUpdates
	pendingUpdates = nil
	outMu.Unlock()
	if len(batch) > 0 {
		send(batch)
	}
}

// textlessPrompt reports whether a prompt's params hold a text block
// without text.
func textlessPrompt(params json.RawMessage) bool {
	var p struct {
		Prompt []map[string]any `json:"prompt"`
	}
	_ = json.Unmarshal(params, &p)
	for _, b := range p.Prompt {
		if _, ok := b["text"]; b["type"] == "text" && !ok {
			return true
		}
	}
	return false
}

// Defects: each flag breaks one more rule conform checks, and nothing else.
var (
	// crashNonObject exits on params that are neither object nor array,
	// as the official test kit's agents do: a robustness defect, not a
	// MUST one (they are invalid params).
	crashNonObject = has("-crash-on-nonobject-params")
	// crashExtNote exits on an _ notification it does not know: a death
	// on valid traffic.
	crashExtNote = has("-crash-on-extension-notification")
	// stringIDs answers number ids as strings ("7" for 7).
	stringIDs = has("-string-ids")
	// parseErrorID answers a parse error with id 0 instead of null.
	parseErrorID = has("-parse-error-id")
	// parseErrorNoID answers a parse error without an id.
	parseErrorNoID = has("-parse-error-without-id")
	// resultAndError puts "result": null beside every error.
	resultAndError = has("-result-and-error")
	// badUTF8 writes an invalid UTF-8 byte inside the prompt's chunk text.
	badUTF8 = has("-bad-utf8")
	// sameSession gives every session/new the same sessionId.
	sameSession = has("-duplicate-sessions")
	// foreignUpdate names another session in the prompt's chunk.
	foreignUpdate = has("-foreign-session-update")
	// loadFirst answers session/load before replaying (with -rfd).
	loadFirst = has("-load-answer-first")
	// replayUserOnly (with -rfd) replays only the user's messages on
	// session/load, not the agent's replies.
	replayUserOnly = has("-replay-user-only")
	// orphanToolUpdate (with -keyed) names a tool call no tool_call
	// introduced in its tool_call_update.
	orphanToolUpdate = has("-orphan-tool-update")
	// chunkIDReturns (with -keyed) sends chunks "m-2", then "m-1" again
	// after the turn's first chunk.
	chunkIDReturns = has("-chunk-id-returns")
	// partialConfig (with -modes) lists a second config option and
	// answers session/set_config_option with the changed one only.
	partialConfig = has("-partial-config-options")
)

func has(flag string) bool { return slices.Contains(os.Args[1:], flag) }

// crash ends the process as a crashing agent does: a message on stderr
// and a non-zero status.
func crash(why string) {
	fmt.Fprintln(os.Stderr, "panic: "+why)
	os.Exit(2)
}

// replyID is the id a response carries.
func replyID(id json.RawMessage) json.RawMessage {
	if stringIDs && len(id) > 0 && id[0] != '"' && string(id) != "null" {
		b, _ := json.Marshal(string(id))
		return b
	}
	return id
}

// parseError answers a line that is not JSON.
func parseError() {
	msg := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}}
	switch {
	case parseErrorID:
		msg["id"] = 0
	case parseErrorNoID:
		delete(msg, "id")
	}
	if resultAndError {
		msg["result"] = nil
	}
	send(msg)
}

// sendUpdate writes a session/update; with badUTF8 its text gets a byte
// that is not UTF-8 (encoding/json would have replaced it).
func sendUpdate(params map[string]any) {
	msg := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": params}
	if !badUTF8 {
		emitUpdate(msg)
		return
	}
	b, _ := json.Marshal(msg)
	b = bytes.Replace(b, []byte(`"hello"`), []byte("\"hel\xfflo\""), 1)
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = os.Stdout.Write(append(b, '\n'))
}

// withTerminalAuth adds terminalAuth's method to an initialize result when
// the client's params advertise clientCapabilities.auth.terminal.
func withTerminalAuth(res any, params json.RawMessage) any {
	var p struct {
		ClientCapabilities struct {
			Auth struct {
				Terminal bool `json:"terminal"`
			} `json:"auth"`
		} `json:"clientCapabilities"`
	}
	obj, ok := res.(map[string]any)
	if !terminalAuth || !ok || json.Unmarshal(params, &p) != nil || !p.ClientCapabilities.Auth.Terminal {
		return res
	}
	env := json.RawMessage(`{"CONFORM_A":"1","CONFORM_B":"2"}`)
	if duplicateEnv {
		env = json.RawMessage(`{"CONFORM_A":"1","CONFORM_A":"2"}`)
	}
	methods, _ := obj["authMethods"].([]any)
	obj["authMethods"] = append(methods, map[string]any{"type": "terminal", "id": "conform-terminal", "name": "Terminal login",
		"args": []string{"--login"}, "env": env})
	return obj
}
