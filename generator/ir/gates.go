package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Gate is a capability gate resolved against a model: the typed route from a
// method's params (or result) to the gated member, and from the initialize
// messages to the capability.
type Gate struct {
	Row    facts.Gate
	Method *Method
	Root   *Type // params or result type
	Steps  []GateStep
	// The gated thing at the end of Steps: a union variant, an enum value, or
	// (neither set) the member's presence. No steps and no end gates the method.
	Variant   *Variant
	Union     *Union
	EnumValue *EnumValue
	EnumType  *Type
	Cap       *CapabilityPath
}

// StepKind is one move along a gate path.
type StepKind int

// Gate path moves.
const (
	StepMember StepKind = iota // into a struct member (maybe through union variants)
	StepItems                  // into every array item
	StepValues                 // into every map value
)

// GateStep is one move; a member of a union is reached through the variants
// whose payload declares it.
type GateStep struct {
	Kind  StepKind
	JSON  string
	Field *Field
	// Via lists the union variants the member is reached through (with Union
	// their union), or nil for a plain struct member.
	Union *Union
	Via   []*Variant
	// Ref is the shape of the value after the move.
	Ref *Ref
}

// CapabilityPath is a capability resolved in the initialize messages.
type CapabilityPath struct {
	// Path names the capability in one canonical form: dotted when no token
	// holds a ".", else the JSON pointer (jsonpointer.FormatPath). Generated
	// code and gate violations carry it.
	Path string
	// Tokens are the path's member names, the initialize message's member
	// first.
	Tokens []string
	// InResult says the path starts in initialize's result (the agent's
	// advertisement), else in its params (the client's).
	InResult bool
	Steps    []CapabilityStep
	// Bool leaves are granted by true; List leaves (arrays) by holding an
	// item; object leaves by being present.
	Bool, List bool
}

// CapabilityStep is one move along a capability path: into a struct member,
// or (Namespace set) through a _meta member Field into its typed namespace,
// which takes two tokens.
type CapabilityStep struct {
	Field     *Field
	Namespace *MetaNamespace
}

// Leaf is the shape of the capability's value.
func (c *CapabilityPath) Leaf() *Ref {
	last := c.Steps[len(c.Steps)-1]
	if last.Namespace != nil {
		return last.Namespace.Ref
	}
	return last.Field.Ref
}

// method returns the request (preferred) or notification with the wire name.
func (m *Model) method(wire string) *Method {
	var note *Method
	for _, x := range m.Methods {
		if x.Wire == wire && x.Params != nil {
			if !x.Notification {
				return x
			}
			note = x
		}
	}
	return note
}

// Initialize returns the initialize request, which carries both sides'
// capabilities (params and result), or nil when the schema has none.
func (m *Model) Initialize() *Method {
	if x := m.method("initialize"); x != nil && !x.Notification && x.Result != nil {
		return x
	}
	return nil
}

// SkippedGate is a row that does not apply to a model, and why.
type SkippedGate struct {
	Row    facts.Gate
	Reason string
}

// ResolveGates resolves rows against the model. Rows that do not resolve (a
// method, member, variant or capability the model lacks) are returned in
// skipped with the reason: a channel may lack what another has, so whether a
// row is stale is decided over all channels by the caller.
func (m *Model) ResolveGates(rows []facts.Gate) (gates []*Gate, skipped []SkippedGate) {
	seen := map[facts.Gate]bool{}
	for _, row := range rows {
		key := row
		key.Source, key.Reason = "", ""
		if toks, err := jsonpointer.SplitPath(row.Capability); err == nil {
			key.Capability = jsonpointer.FormatPath(toks)
		}
		if seen[key] {
			continue // the same gate from the table and an overlay
		}
		seen[key] = true
		g, skip, err := m.resolveGate(row)
		switch {
		case skip:
			skipped = append(skipped, SkippedGate{row, "no method " + row.Method})
		case err != nil:
			skipped = append(skipped, SkippedGate{row, err.Error()})
		default:
			gates = append(gates, g)
		}
	}
	return gates, skipped
}

// ChannelGates is how the rows of one channel resolved against its model.
type ChannelGates struct {
	Channel  string
	Protocol int // rows are kept per protocol (facts.ForProtocol)
	Gates    []*Gate
	Skipped  []SkippedGate
}

// StaleGates returns the rows that resolve in no channel of their protocol,
// each with every channel's reason, sorted. A channel may lack what another
// of its protocol has, so a row skipped in one channel is stale only when no
// other uses it.
func StaleGates(channels []ChannelGates) []string {
	used, skips := map[string]bool{}, map[string][]string{}
	for _, c := range channels {
		key := func(row facts.Gate) string { return fmt.Sprintf("v%d %s", c.Protocol, GateString(row)) }
		for _, g := range c.Gates {
			used[key(g.Row)] = true
		}
		for _, s := range c.Skipped {
			skips[key(s.Row)] = append(skips[key(s.Row)], c.Channel+": "+s.Reason)
		}
	}
	var stale []string
	for key, reasons := range skips {
		if !used[key] {
			stale = append(stale, key+": "+strings.Join(reasons, "; "))
		}
	}
	slices.Sort(stale)
	return stale
}

// GateString names a row for messages.
func GateString(row facts.Gate) string {
	where := "params"
	if row.Result {
		where = "result"
	}
	s := fmt.Sprintf("%s %s%s", row.Method, where, row.Path)
	if row.Variant != "" {
		s += " [" + row.Variant + "]"
	}
	if row.Require {
		return s + " required by " + row.Capability + " (" + row.Source + ")"
	}
	return s + " -> " + row.Capability + " (" + row.Source + ")"
}

func (m *Model) resolveGate(row facts.Gate) (*Gate, bool, error) {
	meth := m.method(row.Method)
	if meth == nil {
		return nil, true, nil
	}
	g := &Gate{Row: row, Method: meth, Root: meth.Params}
	if row.Result {
		if meth.Result == nil {
			return nil, false, fmt.Errorf("method %s has no result", row.Method)
		}
		g.Root = meth.Result
	}
	cur := &Ref{Kind: Named, Type: g.Root}
	if row.Path != "" {
		if !strings.HasPrefix(row.Path, "/") {
			return nil, false, fmt.Errorf("path must start with /")
		}
		for _, seg := range strings.Split(row.Path[1:], "/") {
			step, err := m.step(cur, seg)
			if err != nil {
				return nil, false, err
			}
			g.Steps = append(g.Steps, step)
			cur = step.Ref
		}
	}
	if row.Variant != "" {
		t := cur.NamedType()
		switch {
		case t != nil && t.Kind == Enum:
			for _, v := range t.EnumValues {
				if v.String == row.Variant {
					g.EnumValue, g.EnumType = v, t
				}
			}
		case t != nil && t.Union != nil:
			for _, v := range t.Union.Variants {
				if v.Tag == row.Variant || (v.Tag == "" && v.Name == GoName(row.Variant)) {
					g.Variant, g.Union = v, t.Union
				}
			}
		}
		if g.Variant == nil && g.EnumValue == nil {
			return nil, false, fmt.Errorf("no variant or enum value %q at %q", row.Variant, row.Path)
		}
	}
	if row.Require && (len(g.Steps) == 0 || g.Steps[len(g.Steps)-1].Kind != StepMember || g.Variant != nil || g.EnumValue != nil) {
		return nil, false, fmt.Errorf("a require gate must end at a member")
	}
	c, err := m.capability(row.Capability, advertisedByAgent(meth, row))
	if err != nil {
		return nil, false, err
	}
	g.Cap = c
	return g, false, nil
}

func (m *Model) step(cur *Ref, seg string) (GateStep, error) {
	if seg == "*" {
		switch cur.Kind {
		case Array:
			return GateStep{Kind: StepItems, Ref: cur.Elem}, nil
		case Map:
			return GateStep{Kind: StepValues, Ref: cur.Elem}, nil
		}
		if t := cur.NamedType(); t != nil && t.Kind == Alias && (t.Target.Kind == Array || t.Target.Kind == Map) {
			return m.step(t.Target, seg)
		}
		return GateStep{}, fmt.Errorf("* needs an array or map, found %s", kindOf(cur))
	}
	t := cur.NamedType()
	if t == nil {
		return GateStep{}, fmt.Errorf("member %q of a %s", seg, kindOf(cur))
	}
	if f := t.Member(seg); f != nil {
		return GateStep{Kind: StepMember, JSON: seg, Field: f, Ref: f.Ref}, nil
	}
	if t.Union != nil {
		var via []*Variant
		var field *Field
		for _, v := range t.Union.Variants {
			if !v.Object {
				continue
			}
			if f := v.Payload.Type.Member(seg); f != nil {
				if field != nil && field.Ref.Kind != f.Ref.Kind {
					return GateStep{}, fmt.Errorf("member %q has different shapes in the variants of %s", seg, t.Name)
				}
				via, field = append(via, v), f
			}
		}
		if field != nil {
			return GateStep{Kind: StepMember, JSON: seg, Field: field, Union: t.Union, Via: via, Ref: field.Ref}, nil
		}
	}
	return GateStep{}, fmt.Errorf("%s has no member %q", t.Name, seg)
}

func kindOf(r *Ref) string {
	if t := r.NamedType(); t != nil {
		return t.Name
	}
	return [...]string{"string", "boolean", "integer", "number", "raw JSON value", "array", "map", "named", "routed payload"}[r.Kind]
}

// advertisedByAgent says whose initialize message holds a gate's capability.
// Params travel from the caller to the handling side, a result back. A gate
// is granted by the side receiving the gated thing: for an agent-handled
// method's params that is the agent (initialize's result), for its result
// the client (initialize's params). A require gate binds the sending side by
// its own advertisement.
func advertisedByAgent(meth *Method, row facts.Gate) bool {
	sentByAgent := (meth.Side == "agent") == row.Result
	return sentByAgent == row.Require
}

// capability resolves a capability path (dotted, or a JSON pointer when a
// token holds a dot) in the initialize message of the advertising side: its
// result for the agent, its params for the client. A _meta member is
// entered through its typed namespaces (overlay meta changes) only, so the
// capability's shape is known. (v1 names the two roots agentCapabilities and
// clientCapabilities; v2 calls both capabilities, so the root comes from
// the gate, not the name.)
func (m *Model) capability(path string, byAgent bool) (*CapabilityPath, error) {
	init := m.Initialize()
	if init == nil {
		return nil, fmt.Errorf("capability %q: the schema has no initialize request and result", path)
	}
	parts, err := jsonpointer.SplitPath(path)
	if err != nil {
		return nil, fmt.Errorf("capability %q: %w", path, err)
	}
	c := &CapabilityPath{Path: jsonpointer.FormatPath(parts), Tokens: parts, InResult: byAgent}
	cur, msg := init.Params, "params (the client's advertisement)"
	if byAgent {
		cur, msg = init.Result, "result (the agent's advertisement)"
	}
	if cur.Member(parts[0]) == nil {
		return nil, fmt.Errorf("capability %q: initialize's %s has no member %q", path, msg, parts[0])
	}
	for i := 0; i < len(parts); i++ {
		at := jsonpointer.FormatPath(parts[:i+1])
		if cur == nil {
			return nil, fmt.Errorf("capability %q: no member %q", path, at)
		}
		field := cur.Member(parts[i])
		if field == nil {
			return nil, fmt.Errorf("capability %q: no member %q", path, at)
		}
		step := CapabilityStep{Field: field}
		next := field.Ref
		if field.Ref.Kind == Map && i+1 < len(parts) {
			i++
			ns := field.namespace(parts[i])
			if ns == nil {
				return nil, fmt.Errorf("capability %q: %q is no typed namespace of %s (an overlay meta change types it)", path, parts[i], at)
			}
			step.Namespace, next = ns, ns.Ref
		}
		c.Steps = append(c.Steps, step)
		cur = next.NamedType()
		if cur != nil && cur.Kind != Struct {
			cur = nil
		}
	}
	leaf := c.Leaf()
	switch {
	case leaf.Kind == Bool:
		c.Bool = true
	case leaf.Kind == Array:
		c.List = true
	case leaf.NamedType() != nil && leaf.NamedType().Kind == Struct:
	default:
		return nil, fmt.Errorf("capability %q is neither a boolean, a list nor an object", path)
	}
	return c, nil
}

// namespace returns the typed namespace key of a _meta member, or nil.
func (f *Field) namespace(key string) *MetaNamespace {
	for i := range f.Meta {
		if f.Meta[i].Key == key {
			return &f.Meta[i]
		}
	}
	return nil
}

// UndecidedMethods returns the methods of m that rows gate at method level
// (no Path, not on the result) nowhere and ungated does not list, as
// "wire (side)", sorted: a method nobody decided about.
func (m *Model) UndecidedMethods(rows []facts.Gate, ungated []facts.Ungated) []string {
	decided := map[string]bool{}
	for _, r := range rows {
		if r.Path == "" && !r.Result {
			decided[r.Method] = true
		}
	}
	for _, u := range ungated {
		decided[u.Method] = true
	}
	var out []string
	for _, x := range m.Methods {
		if !decided[x.Wire] {
			out = append(out, x.Wire+" ("+x.Side+")")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// StaleUngated returns the entries of ungated that name no method of any
// of models, sorted.
func StaleUngated(ungated []facts.Ungated, models []*Model) []string {
	have := map[string]bool{}
	for _, m := range models {
		for _, x := range m.Methods {
			have[x.Wire] = true
		}
	}
	var out []string
	for _, u := range ungated {
		if !have[u.Method] {
			out = append(out, u.Method)
		}
	}
	slices.Sort(out)
	return out
}
