// Package meta derives the ACP method table from a schema's annotations and
// reads and writes upstream's meta.json layout.
//
// Upstream keeps meta.json / meta.unstable.json beside its schemas but does
// not publish them in the npm package we pull, so we derive them: each
// method's params and response $defs carry x-method (the wire name) and
// x-side (the side that handles it), and the routing unions (AgentRequest,
// ClientNotification, ...) say whether a def is a request, a notification or
// a response.
package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// ProtocolVersion is the ACP wire protocol version of the schemas we consume
// (the v1 files). The schema types it only as a uint16, so upstream's meta
// "version" comes from its SDK constant, not from the schema text.
const ProtocolVersion = 1

// Method kinds, as the IR names them.
const (
	Request      = ir.KindRequest
	Notification = ir.KindNotification
	response     = ir.KindResponse // only inside Derive: responses pair with requests
)

// Method is one routable JSON-RPC method as seen by the side handling it.
type Method struct {
	Wire   string // JSON-RPC method name, e.g. "session/new"
	Side   string // handling side: "agent", "client", "protocol" or "proxy"
	Kind   string // Request or Notification
	Params string // $defs name of the params
	Result string // $defs name of the response; requests only
}

// Table is every method of one schema.
type Table struct {
	Version int      // wire protocol version written as meta's "version"
	Methods []Method // sorted by side, wire, kind
}

// sideOrder is the order of groups in a meta file: upstream's, with proxy
// (only in unstable schemas) last.
var sideOrder = []string{"agent", "client", "protocol", "proxy"}

// routing describes a union that routes messages to a handling side.
type routing struct {
	name string // $defs name, or the title of an inline union
	ptr  string // JSON pointer of the union
	node any
	kind string
	side string // handling side of the messages it routes
}

// namedUnions are the routing unions with their kind and handling side,
// shared with the IR (ir.Routings). A union is named after the sender:
// AgentRequest holds requests the agent sends, so the client handles them.
var namedUnions = ir.Routings

// inlineUnions maps the titles of routing unions written inline in the
// schema's top-level anyOf (not as $defs) to their handling side.
var inlineUnions = map[string]string{"ProtocolLevel": "protocol"}

var validSides = ir.XSides

// Derive builds the method table of a schema. file names the schema in
// errors, each of which also gives a JSON pointer into it. All problems are
// reported at once.
func Derive(schema []byte, file string) (*Table, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", file, err)
	}
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		return nil, fmt.Errorf("%s: no $defs object; is this an ACP schema?", file)
	}
	d := &deriver{file: file, defs: defs}
	unions := d.unions(root)
	if len(unions) == 0 && len(d.problems) == 0 {
		return nil, fmt.Errorf("%s: none of the routing unions (AgentRequest, ClientRequest, ...) is in $defs; is this an ACP schema?", file)
	}
	t := d.derive(unions)
	if len(d.problems) > 0 {
		return nil, fmt.Errorf("%s: %d schema problem(s):\n  %s", file, len(d.problems), strings.Join(d.problems, "\n  "))
	}
	return t, nil
}

type deriver struct {
	file     string
	defs     map[string]any
	problems []string
}

func (d *deriver) problem(ptr, format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf("%s#%s: %s", d.file, ptr, fmt.Sprintf(format, args...)))
}

func (d *deriver) unions(root map[string]any) []routing {
	var out []routing
	for _, u := range namedUnions {
		if node, ok := d.defs[u.Union]; ok {
			out = append(out, routing{name: u.Union, ptr: load.DefPointer(u.Union), node: node, kind: u.Kind, side: u.Side})
		}
	}
	// Protocol-level messages are routed by a union written inline in the
	// top-level anyOf; it is the entry that itself has a "method" property.
	top, _ := root["anyOf"].([]any)
	for i, e := range top {
		entry, _ := e.(map[string]any)
		props, _ := entry["properties"].(map[string]any)
		ptr := fmt.Sprintf("/anyOf/%d", i)
		if _, ok := props["method"]; !ok {
			// npm 0.10.0 writes the protocol-level notifications as a bare
			// union of their params, with no envelope around them.
			if _, union := entry["anyOf"]; union && props == nil {
				out = append(out, routing{name: "ProtocolLevel", ptr: ptr, node: entry, kind: Notification, side: "protocol"})
			}
			continue
		}
		title, _ := entry["title"].(string)
		side, ok := inlineUnions[title]
		if !ok {
			d.problem(ptr, "inline routing union titled %q is not known; teach generator/meta its handling side", title)
			continue
		}
		kind := Notification
		if _, ok := props["id"]; ok {
			kind = Request
		}
		out = append(out, routing{name: title, ptr: ptr, node: entry, kind: kind, side: side})
	}
	return out
}

type ref struct{ target, ptr string }

// collectRefs finds the $refs naming a union's members. It follows the
// combinators and only the params/result properties, so the id and error
// parts of a message (RequestId, Error) are not mistaken for members.
func collectRefs(node any, ptr string, out *[]ref) {
	n, ok := node.(map[string]any)
	if !ok {
		return
	}
	if r, ok := n["$ref"].(string); ok {
		*out = append(*out, ref{r, ptr + "/$ref"})
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := n[k].([]any)
		for i, x := range list {
			collectRefs(x, fmt.Sprintf("%s/%s/%d", ptr, k, i), out)
		}
	}
	props, _ := n["properties"].(map[string]any)
	for _, k := range []string{"params", "result"} {
		if p, ok := props[k]; ok {
			collectRefs(p, ptr+"/properties/"+k, out)
		}
	}
}

// isCatchAll reports whether a def accepts anything, as the extension
// members (ExtRequest, ExtNotification, ...) do: they route every method
// name not in the spec and so carry no x-method.
func isCatchAll(def map[string]any) bool {
	for k := range def {
		if k != "description" && k != "title" && k != "$comment" && !strings.HasPrefix(k, "x-") {
			return false
		}
	}
	return true
}

type use struct {
	def  string
	wire string
	ptr  string // of the $ref
	u    *routing
}

type slot struct{ side, wire, kind string }

func (d *deriver) derive(unions []routing) *Table {
	uses := map[string][]use{}
	var all []use
	for i := range unions {
		u := &unions[i]
		var refs []ref
		collectRefs(u.node, u.ptr, &refs)
		for _, r := range refs {
			name, ok := load.RefName(r.target)
			def, found := d.defs[name].(map[string]any)
			if !ok || !found {
				d.problem(r.ptr, "%s member %q does not resolve to a $defs entry", u.name, r.target)
				continue
			}
			wire, ok := def["x-method"].(string)
			if !ok {
				if !isCatchAll(def) {
					d.problem(r.ptr, "routing union %s references %s, which has no x-method; annotate it or drop it from the union", u.name, name)
				}
				continue
			}
			us := use{def: name, wire: wire, ptr: r.ptr, u: u}
			uses[name] = append(uses[name], us)
			all = append(all, us)
		}
	}

	for _, name := range slices.Sorted(maps.Keys(d.defs)) {
		def, _ := d.defs[name].(map[string]any)
		m, hasMethod := def["x-method"]
		s, hasSide := def["x-side"]
		wire, _ := m.(string)
		side, _ := s.(string)
		switch {
		case hasMethod && wire == "":
			d.problem(load.DefPointer(name)+"/x-method", "x-method must be a non-empty string")
		case hasMethod && !hasSide:
			d.problem(load.DefPointer(name), "x-method %q but no x-side; every method def must say which side handles it", wire)
		case hasSide && !hasMethod:
			d.problem(load.DefPointer(name), "x-side %q but no x-method", side)
		}
		if hasSide && !slices.Contains(validSides, side) {
			raw, _ := json.Marshal(s)
			d.problem(load.DefPointer(name)+"/x-side", "x-side %s is not one of %s", raw, strings.Join(validSides, ", "))
		}
		if hasMethod && wire != "" && len(uses[name]) == 0 {
			d.problem(load.DefPointer(name), "x-method %q but no routing union references it, so nothing would route it", wire)
		}
	}

	found := map[slot]use{}
	for _, us := range all {
		def := d.defs[us.def].(map[string]any)
		side, _ := def["x-side"].(string)
		if !slices.Contains(validSides, side) {
			continue // already reported with the def
		}
		// The def is a method of every side its x-side names (ir.HandlingSides:
		// "both" is the agent and the client); the union must route it to one.
		sides := ir.HandlingSides(side)
		if !slices.Contains(sides, us.u.side) {
			d.problem(us.ptr, "%s has x-side %q but %s routes it to side %q", us.def, side, us.u.name, us.u.side)
			continue
		}
		for _, s := range sides {
			key := slot{s, us.wire, us.u.kind}
			if prev, ok := found[key]; ok {
				if prev.def != us.def {
					d.problem(us.ptr, "%s %q for side %s is defined twice: by %s (at %s) and by %s", us.u.kind, us.wire, s, prev.def, prev.ptr, us.def)
				}
				continue
			}
			found[key] = us
		}
	}

	t := &Table{Version: ProtocolVersion}
	keys := map[[2]string]string{} // side, meta key -> wire
	for _, key := range sortedSlots(found) {
		us := found[key]
		if key.kind == response {
			if _, ok := found[slot{key.side, key.wire, Request}]; !ok {
				d.problem(us.ptr, "response %s (x-method %q, side %s) answers no request", us.def, key.wire, key.side)
			}
			continue
		}
		m := Method{Wire: key.wire, Side: key.side, Kind: key.kind, Params: us.def}
		if key.kind == Request {
			resp, ok := found[slot{key.side, key.wire, response}]
			if !ok {
				d.problem(us.ptr, "request %s (x-method %q, side %s) has no response: no def with that x-method is in the %s response union", us.def, key.wire, key.side, responseUnion(key.side))
			}
			m.Result = resp.def
		}
		mk := [2]string{key.side, Key(key.wire)}
		if other, ok := keys[mk]; ok && other != key.wire {
			d.problem(us.ptr, "methods %q and %q of side %s share the meta key %q", other, key.wire, key.side, mk[1])
		}
		keys[mk] = key.wire
		t.Methods = append(t.Methods, m)
	}
	return t
}

// responseUnion names the union holding responses from a handling side.
func responseUnion(side string) string {
	for _, u := range namedUnions {
		if u.Kind == response && u.Side == side {
			return u.Union
		}
	}
	return "(no response union for side " + side + ")"
}

func sortedSlots(m map[slot]use) []slot {
	out := make([]slot, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b slot) int {
		return cmpStrings(a.side, b.side, a.wire, b.wire, a.kind, b.kind)
	})
	return out
}

func cmpStrings(pairs ...string) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if c := strings.Compare(pairs[i], pairs[i+1]); c != 0 {
			return c
		}
	}
	return 0
}

// Key is a method's key in a meta file: the wire name in snake case, without
// the "$/" prefix of protocol-level methods ("session/set_mode" ->
// "session_set_mode", "document/didOpen" -> "document_did_open",
// "$/cancel_request" -> "cancel_request").
func Key(wire string) string {
	var b strings.Builder
	sep := false // a separator is pending
	for _, r := range strings.TrimLeft(wire, "$/") {
		lower := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		upper := r >= 'A' && r <= 'Z'
		if upper {
			sep, r = true, r-'A'+'a'
		}
		if !lower && !upper {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

// sides returns the wire names per handling side.
func (t *Table) sides() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, m := range t.Methods {
		if out[m.Side] == nil {
			out[m.Side] = map[string]bool{}
		}
		out[m.Side][m.Wire] = true
	}
	return out
}

// MarshalMeta renders the table in upstream's meta layout: "version", then
// one "<side>Methods" object per side mapping Key(wire) to wire. A name that
// is both a request and a notification of a side appears once. Keys are
// sorted so the output is deterministic; agentMethods and clientMethods are
// always present, other groups only when they have methods.
func (t *Table) MarshalMeta() []byte {
	groups := t.sides()
	order := slices.Clone(sideOrder)
	for _, s := range slices.Sorted(maps.Keys(groups)) {
		if !slices.Contains(order, s) {
			order = append(order, s)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"version\": %d", t.Version)
	for _, side := range order {
		wires := groups[side]
		if len(wires) == 0 && side != "agent" && side != "client" {
			continue
		}
		fmt.Fprintf(&b, ",\n  %s: {", quote(side+"Methods"))
		byKey := map[string]string{}
		for w := range wires {
			byKey[Key(w)] = w
		}
		for i, k := range slices.Sorted(maps.Keys(byKey)) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "\n    %s: %s", quote(k), quote(byKey[k]))
		}
		if len(byKey) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteByte('}')
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// ParseMeta reads a meta file (ours or upstream's) into the wire names per
// handling side; "agentMethods" becomes side "agent".
func ParseMeta(data []byte, file string) (map[string]map[string]bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", file, err)
	}
	out := map[string]map[string]bool{}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(top)) {
		ptr := "/" + jsonpointer.Escape(k)
		if k == "version" {
			var v uint16
			if err := json.Unmarshal(top[k], &v); err != nil {
				problems = append(problems, fmt.Sprintf("%s#%s: want a protocol version number: %v", file, ptr, err))
			}
			continue
		}
		side, ok := strings.CutSuffix(k, "Methods")
		if !ok || side == "" {
			problems = append(problems, fmt.Sprintf("%s#%s: unknown key; a meta file holds \"version\" and \"<side>Methods\" objects", file, ptr))
			continue
		}
		var group map[string]string
		if err := json.Unmarshal(top[k], &group); err != nil {
			problems = append(problems, fmt.Sprintf("%s#%s: want an object of method names: %v", file, ptr, err))
			continue
		}
		out[side] = map[string]bool{}
		for key, wire := range group {
			if wire == "" {
				problems = append(problems, fmt.Sprintf("%s#%s/%s: empty method name", file, ptr, jsonpointer.Escape(key)))
				continue
			}
			out[side][wire] = true
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return out, nil
}

// Compare checks that the derived table and a meta file route the same wire
// names to each side. The error lists every difference.
func Compare(derived *Table, meta map[string]map[string]bool, file string) error {
	have := derived.sides()
	sides := map[string]bool{}
	for s := range have {
		sides[s] = true
	}
	for s := range meta {
		sides[s] = true
	}
	var diffs []string
	for _, side := range slices.Sorted(maps.Keys(sides)) {
		for _, w := range slices.Sorted(maps.Keys(have[side])) {
			if !meta[side][w] {
				diffs = append(diffs, fmt.Sprintf("%s#/%sMethods: %q is handled by the %s in the schema but is not listed", file, side, w, side))
			}
		}
		for _, w := range slices.Sorted(maps.Keys(meta[side])) {
			if !have[side][w] {
				diffs = append(diffs, fmt.Sprintf("%s#/%sMethods: lists %q, which the schema does not route to the %s", file, side, w, side))
			}
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s disagrees with the schema (%d difference(s)):\n  %s", file, len(diffs), strings.Join(diffs, "\n  "))
	}
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
