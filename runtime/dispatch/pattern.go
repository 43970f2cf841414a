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
type walker struct {
	rows   []gateRow
	active uint64
	at     [maxDepth]tok // the pointer so far: at[:n]
	n      int
	hits   []hit
}

// tok is one pointer token: an array index, or (name set) a member name
// or map key, escaped. A name points at its edge's token, so the walk
// copies no string.
type tok struct {
	name  *string
	index int
}

// hit is a violation of the row at index row.
type hit struct {
	row int
	v   wire.GateViolation
}

func (w *walker) visit(v wire.At, n *node) {
	active := w.active // the walk never changes it
	for _, l := range n.leaves {
		if l.rows&active != 0 && l.step.Present(v) {
			w.member(v, l.e)
		}
	}
	for b := n.ends & active; b != 0; b &= b - 1 {
		r := &w.rows[bits.TrailingZeros64(b)]
		if !r.Enum || (n.str && v.String() == r.Variant) {
			w.use(r, "")
		}
	}
	if n.each != nil && n.each.rows&active != 0 {
		w.items(v, n)
	}
	edges := n.edges
	for i := range edges {
		if e := &edges[i]; e.rows&active != 0 {
			w.member(v, e)
		}
	}
}

// items visits n.each in every item of v, a slice or a map.
func (w *walker) items(v wire.At, n *node) {
	if !n.items.IsMap() {
		for i := range n.items.Len(v) {
			if item, ok := n.items.Item(v, i); ok {
				w.into(tok{index: i}, item, n.each)
			}
		}
		return
	}
	n.items.Each(v, func(_ int, key string, item wire.At) {
		key = jsonpointer.Escape(key)
		w.into(tok{name: &key}, item, n.each)
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
	if e.token == "" {
		w.visit(f, e.next) // a variant, or a union inline in its object
		return
	}
	w.into(tok{name: &e.token}, f, e.next)
}

// into visits n in v, reached through the token t.
func (w *walker) into(t tok, v wire.At, n *node) {
	w.at[w.n] = t
	w.n++
	w.visit(v, n)
	w.n--
}

// use records a violation of r at the pointer so far, plus last when not "".
func (w *walker) use(r *gateRow, last string) {
	var b strings.Builder
	for _, t := range w.at[:w.n] {
		b.WriteByte('/')
		if t.name != nil {
			b.WriteString(*t.name)
		} else {
			b.WriteString(strconv.Itoa(t.index))
		}
	}
	if last != "" {
		b.WriteString("/" + last)
	}
	w.hits = append(w.hits, hit{r.i, wire.GateViolation{Pointer: b.String(), Variant: r.Variant, Capability: r.Capability, Required: r.Required}})
}
