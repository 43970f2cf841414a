package conform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/anyjson"
)

// gateCheck applies the capability gates (generator/facts plus the
// profile's overlays) to what the peer sends: a gated method, member,
// variant or value the checker's initialize did not grant is a violation.
type gateCheck struct {
	mu    sync.Mutex
	gates []*ir.Gate
	// granted holds the checker's own initialize message, set once sent;
	// advertised the peer's, set once seen.
	granted, advertised json.RawMessage
	violations          map[string][]string // by the capability not granted
	missing             map[string][]string // by the require rule broken
	// inResult says the checker grants in initialize's result (it plays
	// the agent); the gates whose capability lies there bind the peer.
	inResult bool
	label    string // what the run granted, for the case name
	// overlay, when set, reports the gates an overlay adds in cases of
	// their own, at the level and source it gives for the overlay's id.
	overlay func(id string) (Level, string)
	// origin maps a violation key to the overlay its gate comes from.
	origin map[string]string
}

func newGateCheck(p *Profile, inResult bool) *gateCheck {
	gates, _ := p.Model.ResolveGates(p.Gates)
	return &gateCheck{gates: gates, violations: map[string][]string{}, missing: map[string][]string{}, inResult: inResult, origin: map[string]string{}}
}

func (g *gateCheck) grant(initParams json.RawMessage) {
	g.mu.Lock()
	g.granted = initParams
	g.mu.Unlock()
}

// check runs the gates of method m on a payload the peer sent: its result
// (inResult) or its own request's params. Gates whose capability the checker
// grants bind the peer to use nothing it was not granted; require rules whose
// capability the peer advertised bind it to send their member.
func (g *gateCheck) check(m *ir.Method, inResult bool, payload json.RawMessage) {
	var doc any
	if json.Unmarshal(payload, &doc) != nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.Wire == "initialize" && inResult != g.inResult {
		g.advertised = payload
	}
	for _, gate := range g.gates {
		if gate.Method.Wire != m.Wire || gate.Row.Result != inResult {
			continue
		}
		if gate.Row.Require {
			g.require(gate, doc)
			continue
		}
		if gate.Cap.InResult != g.inResult {
			continue
		}
		key := gate.Cap.Path
		if capGranted(g.granted, gate.Cap.Tokens) {
			continue
		}
		g.noteOrigin(key, gate)
		for _, ptr := range uses(gate, doc) {
			if len(g.violations[key]) < 4 {
				g.violations[key] = append(g.violations[key], fmt.Sprintf("%s%s", m.Wire, ptr))
			}
		}
	}
}

// require records every place a require rule names that lacks its member,
// once the peer advertised the rule's capability.
func (g *gateCheck) require(gate *ir.Gate, doc any) {
	if gate.Cap.InResult == g.inResult || !capGranted(g.advertised, gate.Cap.Tokens) {
		return
	}
	i := strings.LastIndex(gate.Row.Path, "/")
	parent, member := gate.Row.Path[:i], gate.Row.Path[i+1:]
	key := gate.Cap.Path + " advertised, so " + member + " is required"
	g.noteOrigin(key, gate)
	walkPath(doc, parent, func(v any, at string) {
		obj, ok := v.(map[string]any)
		if _, has := obj[member]; !ok || has {
			return
		}
		if len(g.missing[key]) < 4 {
			g.missing[key] = append(g.missing[key], fmt.Sprintf("%s at %s lacks it", gate.Method.Wire, orRoot(at)))
		}
	})
}

// uses returns where payload uses the gated thing.
func uses(gate *ir.Gate, doc any) []string {
	if gate.Row.Path == "" {
		return []string{" (the method)"}
	}
	var out []string
	walkPath(doc, gate.Row.Path, func(v any, at string) {
		if hit(gate, v) {
			out = append(out, " at "+at)
		}
	})
	return out
}

// walkPath calls fn on every value at path, a JSON pointer whose "*" tokens
// match every member or item.
func walkPath(doc any, path string, fn func(v any, at string)) {
	var walk func(v any, toks []string, at string)
	walk = func(v any, toks []string, at string) {
		if len(toks) == 0 {
			fn(v, at)
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if toks[0] == "*" {
				for k, e := range x {
					walk(e, toks[1:], at+"/"+k)
				}
			} else if e, ok := x[toks[0]]; ok {
				walk(e, toks[1:], at+"/"+toks[0])
			}
		case []any:
			if toks[0] == "*" {
				for i, e := range x {
					walk(e, toks[1:], fmt.Sprintf("%s/%d", at, i))
				}
			}
		}
	}
	var toks []string
	if path != "" {
		toks = strings.Split(strings.TrimPrefix(path, "/"), "/")
	}
	walk(doc, toks, "")
}

func hit(gate *ir.Gate, v any) bool {
	switch {
	case v == nil:
		return false
	case gate.Variant != nil && gate.Union != nil && gate.Union.Discriminator != "":
		obj, ok := v.(map[string]any)
		return ok && obj[gate.Union.Discriminator] == gate.Variant.Tag
	case gate.Variant != nil:
		return false // variants told apart by shape: not judged here
	case gate.EnumValue != nil:
		if s, ok := v.(string); ok {
			return s == gate.EnumValue.String
		}
		f, ok := v.(float64)
		return ok && gate.EnumValue.String == "" && f == float64(gate.EnumValue.Int)
	}
	return true
}

// capGranted reports whether the capability at path (the tokens of an
// ir.CapabilityPath, the initialize message's member first) is true, a
// present object or a non-empty list in the message.
func capGranted(params json.RawMessage, path []string) bool {
	v, ok := initDoc(params)
	if !ok {
		return false
	}
	for _, tok := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = obj[tok]; !ok {
			return false
		}
	}
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		return true
	case []any:
		return len(x) > 0
	}
	return false
}

func (g *gateCheck) results(label string) []Result {
	g.mu.Lock()
	defer g.mu.Unlock()
	probs := map[string][]string{} // by overlay id, "" for the base gates
	for c, v := range g.violations {
		probs[g.origin[c]] = append(probs[g.origin[c]], fmt.Sprintf("%s not granted: %s", c, strings.Join(v, ", ")))
	}
	for c, v := range g.missing {
		probs[g.origin[c]] = append(probs[g.origin[c]], fmt.Sprintf("%s: %s", c, strings.Join(v, ", ")))
	}
	counts := map[string]int{}
	for _, gate := range g.gates {
		counts[g.originOf(gate)]++
	}
	ids := []string{""}
	for id := range counts {
		if id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids[1:])
	var out []Result
	for _, id := range ids {
		name := fmt.Sprintf("peer uses only granted capabilities, sends what it advertised (%d gates)", counts[id])
		level, src, kind := Must, mustKinds[kindGates].Source, kindGates
		if id == "" && g.overlay == nil {
			name = fmt.Sprintf("peer uses only granted capabilities, sends what it advertised (%d gates)", len(g.gates))
			src = "spec: capabilities; gate tables and overlays"
		}
		if id != "" {
			name = fmt.Sprintf("peer follows the gates an overlay adds (%d gates)", counts[id])
			level, src = g.overlay(id)
			kind = ""
		}
		if label != "" {
			name += ": " + label
		}
		r := Result{Category: "gates", Case: name, Level: level, Source: src, kind: kind,
			Expected: "no gated method, member or variant without its capability; required members present",
			Observed: "none used", Verdict: Pass}
		sort.Strings(probs[id])
		if len(probs[id]) > 0 {
			r.Verdict, r.Observed = Fail, strings.Join(probs[id], "; ")
		}
		out = append(out, r)
	}
	return out
}

// originOf is the overlay a gate comes from, "" for the base gates (and for
// every gate when overlays are not reported apart).
func (g *gateCheck) originOf(gate *ir.Gate) string {
	if g.overlay == nil || gate.Row.Source == "" || gate.Row.Source == "table" {
		return ""
	}
	return gate.Row.Source
}

func (g *gateCheck) noteOrigin(key string, gate *ir.Gate) {
	g.origin[key] = g.originOf(gate)
}

// initDocs holds the last initialize messages read by capGranted, decoded:
// a checker asks about the same two for every message of a session. The
// decoded values are only read.
var initDocs struct {
	mu   sync.Mutex
	raw  [2]string
	doc  [2]any
	ok   [2]bool
	set  [2]bool
	next int
}

// initDoc decodes an initialize message, once while it is among the last two.
func initDoc(params json.RawMessage) (any, bool) {
	c := &initDocs
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.raw {
		if c.set[i] && c.raw[i] == string(params) {
			return c.doc[i], c.ok[i]
		}
	}
	v, err := anyjson.Unmarshal(params)
	ok := err == nil
	i := c.next
	c.raw[i], c.doc[i], c.ok[i], c.set[i], c.next = string(params), v, ok, true, 1-i
	return v, ok
}
