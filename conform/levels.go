package conform

import (
	"strings"
)

// Sources a case rests on, as the table's source column prints them: the
// schema rule, the spec page, or JSON-RPC 2.0's section. A case is MUST only
// where its source says MUST; where ACP is silent and JSON-RPC 2.0 gives the
// rule the case is SHOULD, and where neither rules on it INFO.
const (
	srcRequired      = "schema: required"
	srcResultDef     = "schema: result def"
	srcXSide         = "schema: x-side"
	srcInit          = "spec: initialization"
	srcVersion       = "spec: version negotiation"
	srcCapability    = "spec: capabilities"
	srcPromptTurn    = "spec: prompt-turn"
	srcCancel        = "spec: prompt-turn cancellation"
	srcExtension     = "spec: extensibility"
	srcStdio         = "spec: transports stdio"
	srcAuth          = "schema: -32000 auth required"
	srcRPCReply      = "JSON-RPC 2.0 §4"
	srcRPCNotify     = "JSON-RPC 2.0 §4.1"
	srcRPCError      = "JSON-RPC 2.0 §5.1"
	srcRPCParams     = "JSON-RPC 2.0 §5.1 -32602"
	srcRPCBatch      = "JSON-RPC 2.0 §6"
	srcV2Batch       = "spec v2: transports batch"
	srcV2BlockType   = "schema v2: ContentBlock"
	srcRPCResponse   = "JSON-RPC 2.0 §5"
	srcUTF8          = "RFC 8259 §8.1"
	srcSessionID     = "spec: session setup (unique Session ID)"
	srcLoadReplay    = "spec: session setup loading"
	srcConfigSet     = "schema: configOptions full set"
	srcUpdateSession = "schema: SessionNotification sessionId"
	srcOptional      = "spec: optional method (not advertised)"
)

// OverlaysStrict judges the rules an overlay adds at their own level; by
// default they are informational.
const OverlaysStrict = "strict"

// overlayLevel is the level of a rule an overlay adds: MUST with
// --overlays strict, else informational.
func (r *agentRun) overlayLevel() Level {
	if r.o.Overlays == OverlaysStrict {
		return Must
	}
	return Info
}

// overlaySource names the overlay with id and its status for the source
// column: "overlay: Additional directories (draft RFD)".
func (r *agentRun) overlaySource(id string) string {
	for _, ov := range r.p.Overlays {
		if ov.ID == id {
			name := ov.Title
			if name == "" {
				name = ov.ID
			}
			if ov.Status != "" {
				name += " (" + ov.Status + ")"
			}
			return "overlay: " + name
		}
	}
	return "overlay: " + id
}

// add records an agent case: an informational case that does not match is
// noted, not failed, and a case the agent's authentication refusal kept from
// running is blocked.
func (r *agentRun) add(res Result) {
	if r.auth.refused != "" && (res.Verdict == Fail || res.Verdict == Warn) && strings.Contains(res.Observed, "error -32000") {
		res.Verdict = Blocked
		res.Observed = "blocked: " + res.Observed
	}
	if res.Level == Info && (res.Verdict == Fail || res.Verdict == Warn) {
		res.Verdict = Noted
	}
	r.results.add(res)
}

// judge applies add's rules to results made outside the cases (frames,
// gates).
func (r *agentRun) judge(res Result) Result {
	if res.Level == Info && (res.Verdict == Fail || res.Verdict == Warn) {
		res.Verdict = Noted
	}
	return res
}
