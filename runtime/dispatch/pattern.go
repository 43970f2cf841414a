package dispatch

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
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
// the image, audio and resource gates).

// maxRows bounds the rows on one message: a walk's rows are a bit set.
const maxRows = 64

// maxDepth bounds a pattern's steps, and so its pointers' tokens.
const maxDepth = 16

// node is a place in the message that some rows' patterns reach.
type node struct {
	rows    uint64 // the rows whose patterns go through or end here
	ends    uint64 // the rows whose patterns end here: being here is the use (Enum: holding the value)
	each    *node  // into every array item or map value
	members []*edge
}

// edge is a move into a struct field: a member, a variant, an inline union.
type edge struct {
	index    int
	token    string // the escaped JSON member name; "" for a variant or an inline union
	optional bool   // a nil slice or map is absent (the tag's omitempty)
	rows     uint64 // the rows whose patterns take this edge
	absent   uint64 // the Required rows ending here: the member's absence is the use
	next     *node
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
	if len(segs) == 0 {
		n.ends |= bit
		return nil
	}
	if segs[0] == "*" {
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
		default:
			return fmt.Errorf("* on a %s", t)
		}
		if n.each == nil {
			n.each = &node{}
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
	e := &edge{index: f.Index[0], token: jsonpointer.Escape(tag), optional: opts == "omitempty"}
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

// tok is one pointer token: an array index, or (index -1) a member name or
// map key, escaped.
type tok struct {
	name  string
	index int
}

// hit is a violation of the row at index row.
type hit struct {
	row int
	v   wire.GateViolation
}

func (w *walker) visit(v reflect.Value, n *node) {
	for b := n.ends & w.active; b != 0; b &= b - 1 {
		r := &w.rows[bits.TrailingZeros64(b)]
		if !r.Enum || (v.Kind() == reflect.String && v.String() == r.Variant) {
			w.use(r, "")
		}
	}
	if n.each != nil && n.each.rows&w.active != 0 {
		w.each(v, n.each)
	}
	for _, e := range n.members {
		if e.rows&w.active != 0 {
			w.member(v, e)
		}
	}
}

// member moves into e's field of v when it is present; for the Required
// rows ending there, its absence is the use.
func (w *walker) member(v reflect.Value, e *edge) {
	f := v.Field(e.index)
	absent := false
	switch f.Kind() {
	case reflect.Pointer:
		absent = f.IsNil()
		if !absent {
			f = f.Elem()
		}
	case reflect.Slice, reflect.Map:
		absent = e.optional && f.IsNil()
	}
	if absent {
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
	w.into(tok{name: e.token, index: -1}, f, e.next)
}

// each visits n in every item or map value of v (map keys in order); a nil
// item is not visited.
func (w *walker) each(v reflect.Value, n *node) {
	if v.Kind() != reflect.Map {
		for i := range v.Len() {
			if e := v.Index(i); e.Kind() != reflect.Pointer || !e.IsNil() {
				w.into(tok{index: i}, reflect.Indirect(e), n)
			}
		}
		return
	}
	// The keys (a JSON object's, of a string kind) are sorted as strings:
	// the one string sort a binary shares (runtime/wire's map encoding has
	// it), no sort instantiated for reflect.Value.
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	k := reflect.New(v.Type().Key()).Elem()
	for _, s := range keys {
		k.SetString(s)
		if e := v.MapIndex(k); e.Kind() != reflect.Pointer || !e.IsNil() {
			w.into(tok{name: jsonpointer.Escape(s), index: -1}, reflect.Indirect(e), n)
		}
	}
}

// into visits n in v, reached through the token t.
func (w *walker) into(t tok, v reflect.Value, n *node) {
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
		if t.index < 0 {
			b.WriteString(t.name)
		} else {
			b.WriteString(strconv.Itoa(t.index))
		}
	}
	if last != "" {
		b.WriteString("/" + last)
	}
	w.hits = append(w.hits, hit{r.i, wire.GateViolation{Pointer: b.String(), Variant: r.Variant, Capability: r.Capability, Required: r.Required}})
}
