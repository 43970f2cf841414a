package dispatch

import (
	"fmt"
	"math/bits"
	"reflect"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
	"github.com/acpgen/acpgen/runtime/wire"
)

// A Gate's Use pattern is walked over the decoded message, not its JSON: the
// walk costs the patterns' length, not the message's (a session/update
// holding a long text is no slower to check), and it sees exactly what the
// handler gets, after lenient decoding. Reflection reaches the fields; the
// names are resolved to field indices once (GateRows.resolve), and the
// patterns of one message's rows are merged into one tree, so a message is
// walked once however many of its rows apply (a prompt's items once for
// the image, audio and resource gates). The walk reads the message by the
// fields' offsets (runtime/wire's At and steps), planned with the tree:
// no reflection per message.

// maxRows bounds the rows on one message: a walk's rows are a bit set.
const maxRows = 64

// maxDepth bounds a pattern's steps, and so its pointers' tokens.
const maxDepth = 16

// node is a place in the message that some rows' patterns reach.
type node struct {
	rows    uint64 // the rows whose patterns go through or end here
	ends    uint64 // the rows whose patterns end here: being here is the use (Enum: holding the value)
	str     bool   // the value here is of a string kind (an Enum row compares it)
	each    *node  // into every array item or map value
	items   wire.ItemsStep
	members []*edge // while the tree is built
	edges   []edge  // members, as the walk reads them (freeze), leaves apart
	leaves  []leaf
	// bare: n has leaves and nothing else (a union's gated variants), so
	// a walk over items tests them in its own loop, with no visit each;
	// list: n has items and nothing else, so a walk goes straight to them.
	bare, list bool
}

// leaf is an edge into a pointer field whose presence alone is the use
// of its rows (a gated variant, an optional gated member): the walk tests
// the pointer and enters the edge only on a use, which is rare.
type leaf struct {
	step wire.FieldStep
	rows uint64
	e    *edge
}

// edge is a move into a struct field: a member, a variant, an inline union.
type edge struct {
	index  int
	token  string // the escaped JSON member name; "" for a variant or an inline union
	step   wire.FieldStep
	rows   uint64 // the rows whose patterns take this edge
	absent uint64 // the Required rows ending here: the member's absence is the use
	next   *node
}

// add merges row i's pattern, use, from n, the place of a value of type t.
func (n *node) add(t reflect.Type, use string, i int, required bool) error {
	segs := strings.Split(use, ".")
	if len(segs) > maxDepth {
		return fmt.Errorf("more than %d steps", maxDepth)
	}
	return n.addSegs(t, segs, uint64(1)<<i, required)
}

func (n *node) addSegs(t reflect.Type, segs []string, bit uint64, required bool) error {
	n.rows |= bit
	n.str = t.Kind() == reflect.String
	if len(segs) == 0 {
		n.ends |= bit
		return nil
	}
	if segs[0] == "*" {
		if n.each == nil {
			items, err := wire.StepItems(t)
			if err != nil {
				return fmt.Errorf("*: %v", err)
			}
			n.each, n.items = &node{}, items
		}
		return n.each.addSegs(deref(t.Elem()), segs[1:], bit, required)
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("field %s of a %s", segs[0], t)
	}
	for _, name := range strings.Split(segs[0], "|") {
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return fmt.Errorf("%s has no field %s", t, name)
		}
		e := n.edge(f)
		e.rows |= bit
		if required && len(segs) == 1 {
			e.absent |= bit
			continue
		}
		if e.next == nil {
			e.next = &node{}
		}
		if err := e.next.addSegs(deref(f.Type), segs[1:], bit, required); err != nil {
			return err
		}
	}
	return nil
}

// freeze lays n's edges out for the walk, once the tree is built.
func (n *node) freeze() {
	if n == nil {
		return
	}
	for _, e := range n.members {
		e.next.freeze()
		if e.isLeaf() {
			n.leaves = append(n.leaves, leaf{e.step, e.rows, e})
			continue
		}
		n.edges = append(n.edges, *e)
	}
	n.each.freeze()
	n.bare = n.ends == 0 && n.each == nil && len(n.edges) == 0
	n.list = n.ends == 0 && n.each != nil && len(n.edges) == 0 && len(n.leaves) == 0
}

// isLeaf reports whether e is entered only to find its pointer set: no
// row needs its absence, and all its rows end in it (none compares an
// enum value).
func (e *edge) isLeaf() bool {
	x := e.next
	return e.step.IsPointer() && e.absent == 0 && x != nil && x.each == nil &&
		len(x.members) == 0 && x.ends == e.rows && !x.str
}

// edge returns n's edge into the field f, added when n has none.
func (n *node) edge(f reflect.StructField) *edge {
	for _, e := range n.members {
		if e.index == f.Index[0] {
			return e
		}
	}
	tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "-" {
		tag = ""
	}
	e := &edge{index: f.Index[0], token: jsonpointer.Escape(tag), step: wire.StepTo(f, opts == "omitempty")}
	n.members = append(n.members, e)
	return e
}

func deref(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// walker walks a message's tree for the active rows, recording each use.
// It keeps no pointer on the way down: a use is recorded where it is found,
// and each step it was found under adds its token on the way back up
// (stepped), so a walk that finds nothing writes no path at all.
type walker struct {
	rows   []gateRow
	active uint64
	hits   []hit
}

// tok is one pointer token: an array index, or (name set) a member name
// or map key, escaped.
type tok struct {
	name  *string
	index int
}

// hit is a violation of the row at index row, found at the pointer of up,
// innermost token first, then last when not "".
type hit struct {
	row  int
	up   []tok
	last string
	v    wire.GateViolation
}

// pointer returns h's JSON pointer.
func (h *hit) pointer() string {
	var b strings.Builder
	for i := len(h.up) - 1; i >= 0; i-- {
		b.WriteByte('/')
		if t := h.up[i]; t.name != nil {
			b.WriteString(*t.name)
		} else {
			b.WriteString(strconv.Itoa(t.index))
		}
	}
	if h.last != "" {
		b.WriteString("/" + h.last)
	}
	return b.String()
}

// stepped adds t to the pointers of the uses found since hits held from.
func (w *walker) stepped(from int, t tok) {
	for i := from; i < len(w.hits); i++ {
		w.hits[i].up = append(w.hits[i].up, t)
	}
}

func (w *walker) visit(v wire.At, n *node) {
	active := w.active // the walk never changes it
	for i := range n.leaves {
		if l := &n.leaves[i]; l.rows&active != 0 && l.step.Present(v) {
			w.member(v, l.e)
		}
	}
	if b := n.ends & active; b != 0 {
		w.ends(v, n, b)
	}
	if n.each != nil && n.each.rows&active != 0 {
		w.items(v, n)
	}
	for i := range n.edges {
		if e := &n.edges[i]; e.rows&active != 0 {
			w.member(v, e)
		}
	}
}

// ends records the uses of the rows b ending at n, where v is.
func (w *walker) ends(v wire.At, n *node, b uint64) {
	for ; b != 0; b &= b - 1 {
		r := &w.rows[bits.TrailingZeros64(b)]
		if !r.Enum || (n.str && v.String() == r.Variant) {
			w.use(r, "")
		}
	}
}

// items visits n.each in every item of v, a slice or a map.
func (w *walker) items(v wire.At, n *node) {
	if !n.items.IsMap() && n.each.bare {
		active, leaves := w.active, n.each.leaves
		for i := range n.items.Len(v) {
			item, ok := n.items.Item(v, i)
			for j := 0; ok && j < len(leaves); j++ {
				if l := &leaves[j]; l.rows&active != 0 && l.step.Present(item) {
					from := len(w.hits)
					w.member(item, l.e)
					w.stepped(from, tok{index: i})
				}
			}
		}
		return
	}
	if !n.items.IsMap() {
		for i := range n.items.Len(v) {
			if item, ok := n.items.Item(v, i); ok {
				from := len(w.hits)
				w.visit(item, n.each)
				if len(w.hits) > from {
					w.stepped(from, tok{index: i})
				}
			}
		}
		return
	}
	n.items.Each(v, func(_ int, key string, item wire.At) {
		from := len(w.hits)
		w.visit(item, n.each)
		if len(w.hits) > from {
			key = jsonpointer.Escape(key)
			w.stepped(from, tok{name: &key})
		}
	})
}

// member moves into e's field of v when it is present; for the Required
// rows ending there, its absence is the use.
func (w *walker) member(v wire.At, e *edge) {
	f, ok := e.step.Field(v)
	if !ok {
		for b := e.absent & w.active; b != 0; b &= b - 1 {
			w.use(&w.rows[bits.TrailingZeros64(b)], e.token)
		}
		return
	}
	if e.next == nil || e.next.rows&w.active == 0 {
		return
	}
	from := len(w.hits)
	if e.next.list {
		w.items(f, e.next)
	} else {
		w.visit(f, e.next)
	}
	if len(w.hits) > from && e.token != "" { // "": a variant, or a union inline in its object
		w.stepped(from, tok{name: &e.token})
	}
}

// use records a violation of r where the walk is, plus last when not "".
func (w *walker) use(r *gateRow, last string) {
	w.hits = append(w.hits, hit{row: r.i, last: last, v: wire.GateViolation{Variant: r.Variant, Capability: r.Capability, Required: r.Required}})
}
