// Package inspect checks a live ACP session between a real client (an
// editor) and a real agent without taking part in it: the inspector relays
// every byte unchanged and judges each message against conform's rules,
// at conform's levels and with its sources. A finding names the direction,
// the method, the rule, its level and the JSON pointer of what broke it.
package inspect

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/conform"
)

// Direction is which way a message travels.
type Direction string

// The two directions of a session.
const (
	ToAgent  Direction = "client->agent"
	ToClient Direction = "agent->client"
)

// fromAgent reports whether the agent wrote the message.
func (d Direction) fromAgent() bool { return d == ToClient }

// Finding is one message breaking one rule.
type Finding struct {
	Direction Direction     `json:"direction"`
	Method    string        `json:"method,omitempty"`
	Rule      string        `json:"rule"`
	Level     conform.Level `json:"level"`
	Source    string        `json:"source"`
	// Pointer locates the problem in the message (RFC 6901), "" for the
	// message as a whole.
	Pointer string `json:"pointer"`
	Detail  string `json:"detail"`
}

// String is the finding's stderr line: direction, method, rule, level,
// pointer, then what was seen and the rule's source.
func (f Finding) String() string {
	method := f.Method
	if method == "" {
		method = "-"
	}
	ptr := f.Pointer
	if ptr == "" {
		ptr = "(message)"
	}
	return fmt.Sprintf("acpgen inspect: %s %s %s [%s] %s: %s (%s)", f.Direction, method, f.Level, f.Rule, ptr, oneLine(f.Detail), f.Source)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// rule is one rule the inspector judges: a name (conform's MUST kind where
// conform judges it at MUST), a level and a source.
type rule struct {
	name   string
	level  conform.Level
	source string
}

// must is one of conform's MUST kinds; its source is conform's.
func must(kind string) rule {
	src, ok := conform.MustSource(kind)
	if !ok {
		panic("inspect: conform has no MUST kind " + kind)
	}
	return rule{kind, conform.Must, src}
}

// The rules, by what they judge. The MUST ones are conform's kinds, so a
// finding names the case conform agent reports for the same defect.
var (
	ruleLines        = must("frames: lines")
	ruleUTF8         = must("frames: lines in UTF-8")
	ruleResultOrErr  = must("frames: responses result or error")
	ruleErrorObjects = must("frames: error responses")
	ruleUnknownSent  = must("frames: messages of unknown methods")
	ruleSchema       = must("frames: messages valid against the schema")
	ruleGates        = must("gates: granted capabilities")
	ruleUnknownReq   = must("unknown-method: request answered -32601")
	ruleCancelEnds   = must("cancel: session/cancel ends the turn")
	ruleCancelOrder  = must("order: cancelled response follows its updates")
	ruleLoadReplay   = must("order: session/load replays before its response")
	ruleV2CancelEnds = must("cancel: v2 session/cancel ends the turn")
	// ruleIDs: a response answers one outstanding request, once.
	ruleIDs = must("frames: response ids")

	ruleTurnOrder   = rule{"order: turn output before its response", conform.Should, conform.SourcePromptTurn}
	ruleV2AfterIdle = rule{"order: v2 turn output before its idle", conform.Should, conform.SourceV2Idle}
	ruleParamsCode  = rule{"methods: invalid params answered -32602", conform.Should, conform.SourceRPCParams}
	ruleNoSchema    = rule{"frames: negotiated protocolVersion", conform.Info, conform.SourceVersion}
	// ruleTooLong: a line too long to judge is passed on, not judged.
	ruleTooLong = rule{"frames: line too long to judge", conform.Info, ruleLines.source}
)

// overlayRule is an overlay's gate: informational, as conform reports the
// rules overlays add by default.
func overlayRule(id string) rule {
	return rule{"gates: overlay " + id, conform.Info, "overlay: " + id}
}
