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

// rule is one rule the inspector judges: a name, a level and a source,
// all read from conform's table of rule names (conform.RuleNamed), so a
// finding names the case conform agent reports for the same defect.
type rule struct {
	name   string
	level  conform.Level
	source string
}

// named is the rule conform's table holds under name.
func named(name string) rule {
	r, ok := conform.RuleNamed(name)
	if !ok {
		panic("inspect: conform has no rule " + name)
	}
	return rule{r.Name, r.Level, r.Source}
}

// The rules, by what they judge.
var (
	ruleLines        = named("frames: lines")
	ruleUTF8         = named("frames: lines in UTF-8")
	ruleResultOrErr  = named("frames: responses result or error")
	ruleErrorObjects = named("frames: error responses")
	ruleUnknownSent  = named("frames: messages of unknown methods")
	ruleSchema       = named("frames: messages valid against the schema")
	ruleGates        = named("gates: granted capabilities")
	ruleUnknownReq   = named("unknown-method: request answered -32601")
	ruleCancelEnds   = named("cancel: session/cancel ends the turn")
	ruleCancelOrder  = named("order: cancelled response follows its updates")
	ruleLoadReplay   = named("order: session/load replays before its response")
	ruleV2CancelEnds = named("cancel: v2 session/cancel ends the turn")
	// ruleIDs: a response has an id that answers one outstanding request,
	// once.
	ruleIDs = named("frames: response ids")

	ruleTurnOrder   = named("order: turn output before its response")
	ruleV2AfterIdle = named("order: v2 turn output before its idle")
	ruleParamsCode  = named("methods: invalid params answered -32602")
	ruleNoSchema    = named("frames: negotiated protocolVersion")
	// ruleTooLong: a line too long to judge is passed on, not judged.
	ruleTooLong = named("frames: line too long to judge")
)

// overlayRule is an overlay's gate: informational, as conform reports the
// rules overlays add by default.
func overlayRule(id string) rule {
	return rule{"gates: overlay " + id, conform.Info, "overlay: " + id}
}
