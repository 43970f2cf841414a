package dispatch

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
	"github.com/acpgen/acpgen/runtime/wire"
)

// A Gate's Use pattern is walked over the decoded message, not its JSON: the
// walk costs the pattern's length, not the message's (a session/update
// holding a long text is no slower to check), and it sees exactly what the
// handler gets, after lenient decoding. Reflection reaches the fields; the
// names are resolved to field indices once per row (GateRows.resolve).

// path is a resolved Use pattern from one value: a move into every item or
// map value (each), or into one of members. nil is the end of the pattern.
type path struct {
	each    bool
	rest    *path // after each
	members []member
}

// member is a move into a struct field; a union's variants are several.
type member struct {
	index    int
	token    string // the escaped JSON member name; "" for a variant or an inline union
	optional bool   // a nil slice or map is absent (the tag's omitempty)
	rest     *path
}

// resolvePath resolves the pattern use against t, the message's type.
func resolvePath(t reflect.Type, use string) (*path, error) {
	segs := strings.Split(use, ".")
	if len(segs) > maxDepth {
		return nil, fmt.Errorf("more than %d steps", maxDepth)
	}
	return resolveSegs(t, segs)
}

func resolveSegs(t reflect.Type, segs []string) (*path, error) {
	if len(segs) == 0 {
		return nil, nil
	}
	if segs[0] == "*" {
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
		default:
			return nil, fmt.Errorf("* on a %s", t)
		}
		rest, err := resolveSegs(deref(t.Elem()), segs[1:])
		return &path{each: true, rest: rest}, err
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("field %s of a %s", segs[0], t)
	}
	p := &path{}
	for _, name := range strings.Split(segs[0], "|") {
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return nil, fmt.Errorf("%s has no field %s", t, name)
		}
		rest, err := resolveSegs(deref(f.Type), segs[1:])
		if err != nil {
			return nil, err
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			tag = ""
		}
		p.members = append(p.members, member{index: f.Index[0], token: jsonpointer.Escape(tag), optional: opts == "omitempty", rest: rest})
	}
	return p, nil
}

func deref(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// maxDepth bounds the tokens of a pattern's pointers, so the walker's
// pointer so far lives on the stack.
const maxDepth = 16

// walker walks one row's pattern, recording each use as a violation.
type walker struct {
	row    *gateRow
	method string
	at     [maxDepth]tok // the pointer so far: at[:n]
	n      int
	out    []wire.GateViolation
}

// tok is one pointer token: an array index, or (index -1) a member name or
// map key, escaped.
type tok struct {
	name  string
	index int
}

// walk appends to out the violations of row's pattern in v, the message.
func walk(v reflect.Value, row *gateRow, method string, out []wire.GateViolation) []wire.GateViolation {
	w := walker{row: row, method: method, out: out}
	w.walk(v, row.path)
	return w.out
}

func (w *walker) walk(v reflect.Value, p *path) {
	switch {
	case p == nil:
		if !w.row.Enum || (v.Kind() == reflect.String && v.String() == w.row.Variant) {
			w.use("")
		}
	case p.each:
		w.each(v, p.rest)
	default:
		for i := range p.members {
			w.member(v, &p.members[i])
		}
	}
}

// member moves into m's field of v when it is present; at the end of a
// Required row's pattern, its absence is the use.
func (w *walker) member(v reflect.Value, m *member) {
	f := v.Field(m.index)
	absent := false
	switch f.Kind() {
	case reflect.Pointer:
		absent = f.IsNil()
	case reflect.Slice, reflect.Map:
		absent = m.optional && f.IsNil()
	}
	if w.row.Required && m.rest == nil {
		if absent {
			w.use(m.token)
		}
		return
	}
	if absent {
		return
	}
	if f.Kind() == reflect.Pointer {
		f = f.Elem()
	}
	if m.token == "" {
		w.walk(f, m.rest) // a variant, or a union inline in its object
		return
	}
	w.into(tok{name: m.token, index: -1}, f, m.rest)
}

// each walks on in every item or map value of v (map keys in order); a nil
// item is not walked into.
func (w *walker) each(v reflect.Value, rest *path) {
	if v.Kind() != reflect.Map {
		for i := range v.Len() {
			if e := v.Index(i); e.Kind() != reflect.Pointer || !e.IsNil() {
				w.into(tok{index: i}, reflect.Indirect(e), rest)
			}
		}
		return
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
	for _, k := range keys {
		if e := v.MapIndex(k); e.Kind() != reflect.Pointer || !e.IsNil() {
			w.into(tok{name: jsonpointer.Escape(k.String()), index: -1}, reflect.Indirect(e), rest)
		}
	}
}

// into walks rest in v, reached through the token t.
func (w *walker) into(t tok, v reflect.Value, rest *path) {
	w.at[w.n] = t
	w.n++
	w.walk(v, rest)
	w.n--
}

// use records a violation at the pointer so far, plus last when not "".
func (w *walker) use(last string) {
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
	r := w.row
	w.out = append(w.out, wire.GateViolation{Method: w.method, Pointer: b.String(), Variant: r.Variant, Capability: r.Capability, Required: r.Required})
}
