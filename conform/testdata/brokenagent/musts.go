package main

import (
	"encoding/json"
	"os"
	"strings"
	"time"
)

// Defects of the MUST kinds no other mode breaks (conform's
// TestEveryMustKindHasAFixture names the kind of each).
var (
	// echoVersion answers initialize with the version asked for, 65535
	// included.
	echoVersion = has("-echo-version")
	// versionZero answers an initialize asking for 1 with version 0.
	versionZero = has("-version-zero")
	// unknownInternal answers an unknown method (not _-prefixed) with
	// -32603 instead of -32601.
	unknownInternal = has("-unknown-method-internal")
	// extInternal answers an unknown _ method with -32603 instead of
	// -32601 (a SHOULD: spec extensibility).
	extInternal = has("-ext-internal")
	// answerNotes answers every notification but session/cancel with an
	// error.
	answerNotes = has("-answer-notifications")
	// answerNotesNoID answers them with an error that has no id.
	answerNotesNoID = has("-answer-notifications-without-id")
	// promptError answers a prompt that does not wait with -32603.
	promptError = has("-prompt-error")
	// ignoreCancel ends a cancelled turn a second after the cancel, with
	// end_turn.
	ignoreCancel = has("-ignore-cancel")
	// garbageLine writes a line that is not JSON before initialize's
	// answer (so the checker has read it once the answer arrives).
	garbageLine = has("-garbage-line")
	// noMessage leaves the message out of every error object.
	noMessage = has("-error-without-message")
	// unknownNote sends a notification no schema defines after each turn.
	unknownNote = has("-unknown-notification")
	// textlessChunk sends the prompt's chunk as a text block without text.
	textlessChunk = has("-textless-chunk")
	// refuseFuture answers an initialize asking for a version above 1 with
	// an error instead of its own version.
	refuseFuture = has("-refuse-future-version")
	// ignoreJSONRPC takes a request whose jsonrpc is not "2.0" as one.
	ignoreJSONRPC = has("-ignore-jsonrpc-version")
	// extIDPlusOne answers requests of _ methods with the request's id
	// plus one: a response that answers no request.
	extIDPlusOne = has("-ext-id-plus-one")
	// silentExt never answers requests of _ methods.
	silentExt = has("-no-answer-ext")
	// ungatedRead asks the client to read a file during each turn, though
	// the client granted no fs capability.
	ungatedRead = has("-ungated-read")
)

// answeredVersion is the protocolVersion initialize answers when asked for
// requested.
func answeredVersion(requested int) int {
	switch {
	case echoVersion:
		return requested
	case versionZero && requested == 1:
		return 0
	}
	return 1
}

// beforeInitAnswer sends what the modes add before initialize's answer.
func beforeInitAnswer() {
	if garbageLine {
		outMu.Lock()
		defer outMu.Unlock()
		_, _ = os.Stdout.Write([]byte("not json\n"))
	}
}

// unknownMethod answers a request for a method the agent does not know.
func unknownMethod(id json.RawMessage, method string) {
	if silentExt && strings.HasPrefix(method, "_") {
		return
	}
	var n int
	if extIDPlusOne && strings.HasPrefix(method, "_") && json.Unmarshal(id, &n) == nil {
		id, _ = json.Marshal(n + 1)
	}
	if unknownInternal && method != "" && method[0] != '_' || extInternal && strings.HasPrefix(method, "_") {
		fail(id, -32603, "Internal error", method)
		return
	}
	fail(id, -32601, "Method not found", method)
}

// notification handles a notification other than session/cancel.
func notification(method string) {
	switch {
	case answerNotes:
		fail(nil, -32601, "Method not found", method)
	case answerNotesNoID:
		send(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32601, "message": "Method not found", "data": method}})
	}
}

// duringTurn sends what the modes add while a turn runs.
func duringTurn(sid string) {
	keyedUpdates(sid)
	if ungatedRead {
		send(map[string]any{"jsonrpc": "2.0", "id": "read-1", "method": "fs/read_text_file",
			"params": map[string]any{"sessionId": sid, "path": "/etc/hostname"}})
	}
}

// chunkContent is the prompt's chunk content.
func chunkContent() map[string]any {
	if textlessChunk {
		return map[string]any{"type": "text"}
	}
	return map[string]any{"type": "text", "text": "hello"}
}

// cancelledReason is how a cancelled turn ends: after the cancel, it
// returns cancelled; with ignoreCancel a second later, end_turn.
func cancelledReason() string {
	if ignoreCancel {
		time.Sleep(time.Second)
		return "end_turn"
	}
	return "cancelled"
}

// afterTurnNote sends the unknown notification of unknownNote.
func afterTurnNote() {
	if unknownNote {
		send(map[string]any{"jsonrpc": "2.0", "method": "conform/not_a_method", "params": map[string]any{}})
	}
}
