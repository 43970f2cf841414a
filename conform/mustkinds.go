package conform

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// A mustKind is one MUST rule the agent checker judges: the category its
// cases are reported in ("" when any category's cases can fail it) and the
// source it rests on. The case constructors take level and source from
// mustKinds (mustCase), so the fixture test enumerates the kinds the checker
// judges, not a copy of them.
type mustKind struct {
	Category string
	Source   string
}

// The agent checker's MUST kinds.
const (
	kindNegotiates   = "initialize: unsupported version negotiates down"
	kindVersion      = "initialize: requested version answered"
	kindInitialized  = "(all): an initialized connection"
	kindKeepsRunning = "keeps running after a case"
	kindUnknownReq   = "unknown-method: request answered -32601"
	kindUnknownNote  = "unknown-method: notification not answered"
	kindValidParams  = "methods: valid params give a valid result"
	kindSessionIDs   = "methods: unique session ids"
	kindBlockType    = "methods: unsupported content block type -32602"
	kindLoadReplay   = "order: session/load replays before its response"
	kindCancelEnds   = "cancel: session/cancel ends the turn"
	kindCancelOrder  = "order: cancelled response follows its updates"
	kindLines        = "frames: lines"
	kindUTF8         = "frames: lines in UTF-8"
	kindResponseIDs  = "frames: response ids"
	kindAnswered     = "frames: requests answered"
	kindResultOrErr  = "frames: responses result or error"
	kindErrorObjects = "frames: error responses"
	kindUnknownSent  = "frames: messages of unknown methods"
	kindExtension    = "frames: extension messages"
	kindSchema       = "frames: messages valid against the schema"
	kindGates        = "gates: granted capabilities"
	// v2 profiles only.
	kindV2Turn        = "order: v2 prompt turn running then idle"
	kindV2CancelEnds  = "cancel: v2 session/cancel ends the turn"
	kindV2CancelOrder = "cancel: v2 cancelled turn's updates precede its idle"
	kindV2ResumeState = "order: v2 session/resume sends state_update after its replay, before its response"
	kindV2Cursor      = "order: v2 unsupported replayFrom cursor -32602"
	kindV2CloseFinal  = "cancel: v2 session/close sends the turn's final updates and idle before its response"
	kindV2BatchEmpty  = "batch: v2 empty batch answered by one -32600"
	kindV2BatchNotify = "batch: v2 no reply to a batch's notifications"
	kindV2EnvNames    = "initialize: v2 terminal auth env names unique"
	kindLoadEntire    = "order: session/load replays the entire conversation"
	kindRestartLoad   = "persistence: session/load after a restart replays the recorded turn"
)

var mustKinds = map[string]mustKind{
	kindNegotiates:    {"initialize", srcVersion},
	kindVersion:       {"initialize", srcVersion},
	kindInitialized:   {"", srcInit},
	kindKeepsRunning:  {"", srcRPCReply},
	kindUnknownReq:    {"unknown-method", srcRPCError},
	kindUnknownNote:   {"unknown-method", srcRPCNotify},
	kindValidParams:   {"methods", srcResultDef},
	kindSessionIDs:    {"methods", srcSessionID},
	kindBlockType:     {"methods", srcV2BlockType},
	kindLoadReplay:    {"order", srcLoadReplay},
	kindCancelEnds:    {"cancel", srcCancel},
	kindCancelOrder:   {"order", srcPromptTurn},
	kindLines:         {"frames", srcStdio},
	kindUTF8:          {"frames", srcUTF8},
	kindResponseIDs:   {"frames", srcRPCResponse},
	kindAnswered:      {"frames", srcRPCReply},
	kindResultOrErr:   {"frames", srcRPCResponse},
	kindErrorObjects:  {"frames", srcRPCError},
	kindUnknownSent:   {"frames", srcXSide},
	kindExtension:     {"frames", srcExtension},
	kindSchema:        {"frames", srcRequired},
	kindGates:         {"gates", srcGates},
	kindV2Turn:        {"order", srcV2State},
	kindV2CancelEnds:  {"cancel", srcV2Cancel},
	kindV2CancelOrder: {"cancel", srcV2Cancel},
	kindV2ResumeState: {"order", srcV2ResumeState},
	kindV2Cursor:      {"order", srcV2Cursor},
	kindV2CloseFinal:  {"cancel", srcV2CloseFinal},
	kindV2BatchEmpty:  {"batch", srcV2BatchEmpty},
	kindV2BatchNotify: {"batch", srcV2BatchNotify},
	kindV2EnvNames:    {"initialize", srcV2EnvNames},
	kindLoadEntire:    {"order", srcLoadEntire},
	kindRestartLoad:   {"persistence", srcLoadEntire},
}

const srcGates = "spec: capabilities; schema gates"

// mustCase starts a MUST result of kind in category (the kind's own unless
// it has none).
func mustCase(kind, category, name, expected string) Result {
	k, ok := mustKinds[kind]
	if !ok {
		k, ok = clientMustKinds[kind]
	}
	if !ok {
		panic("conform: no MUST kind " + kind)
	}
	if k.Category != "" {
		category = k.Category
	}
	return Result{Category: category, Case: name, Level: Must, Source: k.Source, Expected: expected, kind: kind}
}

// frameMustKind is the MUST kind of a frames case by its name, "" for the
// informational version mismatch.
func frameMustKind(name string) string {
	switch {
	case strings.HasPrefix(name, mismatchKind):
		return ""
	case name == "lines":
		return kindLines
	case name == "lines in UTF-8":
		return kindUTF8
	case name == "response ids":
		return kindResponseIDs
	case name == "requests answered":
		return kindAnswered
	case name == "responses result or error":
		return kindResultOrErr
	case name == "error responses":
		return kindErrorObjects
	case strings.HasSuffix(name, "of unknown methods"):
		return kindUnknownSent
	case strings.HasPrefix(name, "extension"):
		return kindExtension
	}
	return kindSchema
}

// MustKindsFingerprint identifies the agent checker's MUST kinds (name,
// category and source of each): results recorded by an acpgen whose
// fingerprint differs were judged by other MUST rules.
func MustKindsFingerprint() string {
	lines := make([]string, 0, len(mustKinds))
	for name, k := range mustKinds {
		lines = append(lines, name+"\t"+k.Category+"\t"+k.Source)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:8])
}
