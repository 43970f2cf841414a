package dispatch

import (
	"fmt"
	"math/bits"
	"reflect"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// GateTable is a generated package's capabilities that gate something, as
// data: a Grants holds one bit for each, in this order. Grant evaluates it
// and Allows reads it. The gated methods' rows are apart (GatedMethods),
// so that a program, which grants at every initialize, links the rows of
// the methods it reaches (through their descriptors, Method.Gates) and,
// through them, their message types, and not every gated method's.
type GateTable struct {
	Capabilities []Capability
}

// GatedMethods are a generated package's gated methods, for the generated
// Negotiated's AllowsMethod, CheckParams and CheckResult and
// MethodCapability, which look a method up by name; a connection checks a
// message through its method's descriptor (Method.Gates) instead, with no
// lookup.
type GatedMethods struct {
	// Table holds the capabilities the rows name.
	Table   *GateTable
	Methods []*MethodGates

	once  sync.Once
	slots []*MethodGates // see method
	seed  uint32
	shift uint
}

// Capability is one capability that gates something. Grant reads it from
// the initialize message that holds it.
type Capability struct {
	// Path is where it is in that message: dotted, or a JSON pointer when
	// a member name holds a dot. Gate rows and violations name it so.
	Path string
	// InResult is true when initialize's result holds it, false for its
	// params.
	InResult bool
	// Namespace, when set, decodes the typed _meta namespace the path
	// enters after its first NamespaceAt tokens (see Decodes): a namespace
	// that does not decode grants nothing.
	NamespaceAt int
	Namespace   func(wire.Raw) error
}

// MethodGates are one method's gates: the rows on its params and on its
// result. A generated method descriptor points to them (Method.Gates).
type MethodGates struct {
	Method         string
	Params, Result GateRows
}

// GateRows are the gates on one message of a method.
type GateRows struct {
	// Type names the message's type: a nil pointer to the generated type
	// whose fields the rows' Use patterns name, (*T)(nil), which the
	// compiler lays out statically and which costs no function of T's;
	// nil when no row has one.
	Type  any
	Gates []Gate

	once sync.Once
	rows []gateRow
	tree node // the rows' Use patterns, merged
	typ  reflect.Type
	root wire.Root
	// The rows as bit sets: all, walked (they have a Use pattern) and
	// Required; caps, each row's capability as its bit in a Grants' first
	// word, and small, whether the table has at most 64.
	all, walked, required uint64
	caps                  []uint64
	small                 bool
}

// Gate is one gated method, member, variant or enum value.
type Gate struct {
	// Capability is the path of the capability it needs, one of the
	// table's.
	Capability string
	// Use is where a message uses the gated thing: the path of Go field
	// names from the message's type to it, "*" for every array item or map
	// value, "A|B" for whichever of a union's variants A and B is set
	// ("Prompt.*.Image": any item of prompt holding the Image variant). A
	// member's JSON name, for the violation's pointer, is its field's tag.
	// Empty gates the method itself.
	Use string
	// Variant is the gated variant or enum value, if any, for the
	// violation.
	Variant string
	// Enum marks a gated enum value: a use is the member at Use holding
	// Variant.
	Enum bool
	// Required marks the inverse rule: once the capability is advertised,
	// the member at Use must be present.
	Required bool
}

// gateRow is a Gate resolved against its table and message type.
type gateRow struct {
	*Gate
	i      int  // its index in its GateRows
	cap    int  // its capability's index in the table
	walked bool // it has a Use pattern (else it gates the method)
}

// resolve binds r's rows to t's capabilities and their patterns to the
// message type, once. It panics when a row names what is not there: the
// generated table is wrong.
func (r *GateRows) resolve(t *GateTable) []gateRow {
	r.once.Do(func() {
		if r.Type != nil {
			r.typ, r.root = reflect.TypeOf(r.Type), wire.RootOf(r.Type)
		}
		if len(r.Gates) > maxRows {
			panic(fmt.Sprintf("dispatch: %d gates on one message, more than %d", len(r.Gates), maxRows))
		}
		r.rows = make([]gateRow, len(r.Gates))
		for i := range r.Gates {
			g := &r.Gates[i]
			r.rows[i] = gateRow{Gate: g, i: i, cap: t.capability(g.Capability), walked: g.Use != ""}
			r.addBits(i, r.rows[i].cap, len(t.Capabilities) <= 64)
			if g.Use == "" {
				continue
			}
			if r.typ == nil {
				panic(fmt.Sprintf("dispatch: gate %q on a message of no type", g.Use))
			}
			if err := r.tree.add(r.typ.Elem(), g.Use, i, g.Required); err != nil {
				panic(fmt.Sprintf("dispatch: gate %q on %s: %v", g.Use, r.typ, err))
			}
		}
		r.tree.freeze()
	})
	return r.rows
}

// addBits adds row i, of the capability at index c, to r's bit sets.
func (r *GateRows) addBits(i, c int, small bool) {
	bit := uint64(1) << uint(i)
	r.all |= bit
	if r.rows[i].walked {
		r.walked |= bit
	}
	if r.rows[i].Required {
		r.required |= bit
	}
	r.small = small
	if small {
		r.caps = append(r.caps, 1<<uint(c))
	}
}

// capability returns the index of the capability at path; it panics when
// there is none.
func (t *GateTable) capability(path string) int {
	for i := range t.Capabilities {
		if t.Capabilities[i].Path == path {
			return i
		}
	}
	panic(fmt.Sprintf("dispatch: a gate names the unknown capability %q", path))
}

// method returns the gates of the method named m, nil when it has none.
//
// A by-name check runs once per message, so the lookup is an open-addressed
// table hashed on the name's last three bytes and its length with a multiplier
// chosen, once, so that no two of the methods share a slot: one hash, one
// load and one comparison, no map hash of the whole name.
func (t *GatedMethods) method(m string) *MethodGates {
	t.once.Do(t.index)
	mask := uint(len(t.slots) - 1)
	for i := t.slot(m); t.slots[i] != nil; i = (i + 1) & mask {
		if t.slots[i].Method == m {
			return t.slots[i]
		}
	}
	return nil
}

// slot is where the probe for m starts.
func (t *GatedMethods) slot(m string) uint {
	x := uint32(len(m))
	if n := len(m); n >= 3 {
		x |= uint32(m[n-3])<<8 | uint32(m[n-2])<<16 | uint32(m[n-1])<<24
	}
	return uint(x*t.seed>>t.shift) & uint(len(t.slots)-1)
}

// index fills t.slots: a power of two at least twice the methods (and one
// empty slot at least, where a probe for another name ends), with the
// first multiplier tried that places every method apart.
func (t *GatedMethods) index() {
	n, bitsUsed := 2, uint(1)
	for n < 2*len(t.Methods) {
		n, bitsUsed = n*2, bitsUsed+1
	}
	t.shift = 32 - bitsUsed
	for try := range 256 {
		t.seed = 0x9e3779b1 + 2*uint32(try)
		t.slots = make([]*MethodGates, n)
		apart := true
		for _, g := range t.Methods {
			i := t.slot(g.Method)
			for t.slots[i] != nil {
				i, apart = (i+1)&uint(n-1), false
			}
			t.slots[i] = g
		}
		if apart {
			return
		}
	}
}

// Allows reports whether g grants the capability at path; an unknown path
// is not granted.
func (t *GateTable) Allows(g Grants, path string) bool {
	for i := range t.Capabilities {
		if t.Capabilities[i].Path == path {
			return g.has(i)
		}
	}
	return false
}

// MethodCapability returns the capability a peer must have advertised
// before it may be sent method.
func (t *GatedMethods) MethodCapability(method string) (string, bool) {
	if m := t.method(method); m != nil {
		for _, r := range m.Params.resolve(t.Table) {
			if !r.walked {
				return r.Capability, true
			}
		}
	}
	return "", false
}

// AllowsMethod reports whether method may be sent under g, and the
// capability it needs when it may not.
func (t *GatedMethods) AllowsMethod(g Grants, method string) (bool, string) {
	return allowsMethod(t.Table, g, t.method(method))
}

// CheckParams returns every gated method, member or variant that v, the
// params of method (a pointer to its generated type), uses without the
// capability that allows it under g; a v of another type uses nothing.
func (t *GatedMethods) CheckParams(g Grants, method string, v any) []wire.GateViolation {
	return check(t.Table, g, t.method(method), false, v)
}

// CheckResult is CheckParams for the result of method.
func (t *GatedMethods) CheckResult(g Grants, method string, v any) []wire.GateViolation {
	return check(t.Table, g, t.method(method), true, v)
}

// allowsMethod is AllowsMethod for m's gates (nil: none): the first method
// gate decides.
func allowsMethod(t *GateTable, g Grants, m *MethodGates) (bool, string) {
	if m == nil {
		return true, ""
	}
	for _, r := range m.Params.resolve(t) {
		if !r.walked {
			if g.has(r.cap) {
				return true, ""
			}
			return false, r.Capability
		}
	}
	return true, ""
}

// granted returns the rows whose capability g grants, a bit each: with at
// most 64 capabilities, a shift and a mask per row.
func (r *GateRows) granted(g Grants) uint64 {
	var out uint64
	if len(g.bits) == 1 && r.small {
		w := g.bits[0]
		for i, m := range r.caps {
			if w&m != 0 {
				out |= 1 << (uint(i) & 63)
			}
		}
		return out
	}
	for i := range r.rows {
		if g.has(r.rows[i].cap) {
			out |= 1 << uint(i)
		}
	}
	return out
}

// check evaluates m's rows on its params or result v. The patterns are
// walked only for the rows whose capability's state makes what they find a
// violation: a use without the capability, or (Required) an absence with
// it. Violations come in row order.
func check(t *GateTable, g Grants, m *MethodGates, result bool, v any) []wire.GateViolation {
	if m == nil {
		return nil
	}
	rs := &m.Params
	if result {
		rs = &m.Result
	}
	if len(rs.Gates) == 0 { // most results: no row, nothing to find
		return nil
	}
	w := walker{rows: rs.resolve(t)}
	granted := rs.granted(g)
	for b := rs.all &^ rs.walked &^ granted; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		w.hits = append(w.hits, hit{row: i, v: wire.GateViolation{Capability: w.rows[i].Capability}})
	}
	w.active = rs.walked & (rs.required ^ ^granted) // a use without, or (Required) an absence with
	if w.active != 0 {
		if root, ok := rs.root.At(v); ok {
			w.visit(root, &rs.tree)
		}
	}
	if len(w.hits) == 0 {
		return nil
	}
	return inRowOrder(w.hits, m.Method)
}

// inRowOrder returns the violations of hits, of method, by row and each
// row's in the order found: a stable counting sort over the at most
// maxRows rows, linear, and no sort function instantiated for hit in every
// binary that checks gates.
func inRowOrder(hits []hit, method string) []wire.GateViolation {
	var next [maxRows + 1]int // next[r]: where row r's next violation goes
	for _, h := range hits {
		next[h.row+1]++
	}
	for r := 1; r < len(next); r++ {
		next[r] += next[r-1]
	}
	out := make([]wire.GateViolation, len(hits))
	for _, h := range hits {
		i := next[h.row]
		next[h.row]++
		out[i] = h.v
		out[i].Method = method
		out[i].Pointer = h.pointer()
	}
	return out
}
