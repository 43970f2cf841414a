package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// Modes: each flag breaks one more rule conform checks, and nothing else.
var (
	// crashNonObject exits on params that are neither object nor array.
	crashNonObject = has("-crash-on-nonobject-params")
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
	// partialConfig lists two config options and answers
	// session/set_config_option with the changed one only.
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
		send(msg)
		return
	}
	b, _ := json.Marshal(msg)
	b = bytes.Replace(b, []byte(`"hello"`), []byte("\"hel\xfflo\""), 1)
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = os.Stdout.Write(append(b, '\n'))
}

// configOptions are the options a session lists with partialConfig.
func configOptions() []any {
	opt := func(id string) map[string]any {
		return map[string]any{"id": id, "name": id, "type": "select", "currentValue": "a",
			"options": []any{map[string]any{"value": "a", "name": "A"}, map[string]any{"value": "b", "name": "B"}}}
	}
	return []any{opt("model"), opt("effort")}
}

// setConfigOption answers with the changed option only: the defect.
// Invalid params get -32602, so no other case changes.
func setConfigOption(id, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		ConfigID  string `json:"configId"`
		Value     any    `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil || p.SessionID == "" || p.ConfigID == "" || p.Value == nil {
		fail(id, -32602, "Invalid params", nil)
		return
	}
	for _, o := range configOptions() {
		if o.(map[string]any)["id"] == p.ConfigID {
			reply(id, map[string]any{"configOptions": []any{o}})
			return
		}
	}
	fail(id, -32602, "Invalid params", "unknown configId")
}
