// Package meta writes and reads upstream's meta.json layout: the method
// names each side handles.
//
// Upstream keeps meta.json / meta.unstable.json beside its schemas but does
// not publish them in the npm package we pull, so we write them as a view of
// the IR's method table (ir.Model.Methods), which is the one reading of the
// schema's x-method/x-side annotations and routing unions.
package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Method kinds, as the IR names them.
const (
	Request      = ir.KindRequest
	Notification = ir.KindNotification
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

// FromModel is the method table of a built IR: the IR binds methods, sides
// and kinds; the table only lays them out. version is written as meta's
// "version". Two wire names of one side with one meta key (Key) could not
// both be listed, so that is an error naming the second method's params def.
func FromModel(m *ir.Model, version int) (*Table, error) {
	t := &Table{Version: version}
	for _, x := range m.Methods {
		mt := Method{Wire: x.Wire, Side: x.Side, Kind: Request, Params: x.Params.Def}
		if x.Notification {
			mt.Kind = Notification
		}
		if x.Result != nil {
			mt.Result = x.Result.Def
		}
		t.Methods = append(t.Methods, mt)
	}
	slices.SortFunc(t.Methods, func(a, b Method) int {
		return cmpStrings(a.Side, b.Side, a.Wire, b.Wire, a.Kind, b.Kind)
	})
	keys := map[[2]string]string{} // side, meta key -> wire
	for _, x := range m.Methods {
		k := [2]string{x.Side, Key(x.Wire)}
		if other, ok := keys[k]; ok && other != x.Wire {
			return nil, fmt.Errorf("%s#%s: methods %q and %q of side %s share the meta key %q", x.Params.File, x.Params.Pointer, other, x.Wire, x.Side, k[1])
		}
		keys[k] = x.Wire
	}
	return t, nil
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
