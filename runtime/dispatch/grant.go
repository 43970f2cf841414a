package dispatch

import (
	"encoding/json"
	"reflect"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Grants is what one initialize granted: a bit for each capability of a
// GateTable. The zero Grants grants nothing.
type Grants struct {
	t    *GateTable
	bits []uint64
}

// Evaluated reports whether g was made by Grant.
func (g Grants) Evaluated() bool { return g.t != nil }

// table returns the table g was evaluated over. It panics for a Grants
// not made by Grant: no gate can be checked against it.
func (g Grants) table() *GateTable {
	if g.t == nil {
		panic("dispatch: gates checked against a Grants not made by Grant")
	}
	return g.t
}

// check is the package-level check over g's table; m nil checks nothing.
func (g Grants) check(m *MethodGates, result bool, v any) []wire.GateViolation {
	if m == nil {
		return nil
	}
	return check(g.table(), g, m, result, v)
}

func (g Grants) has(i int) bool {
	u := uint(i) // unsigned: the word and bit are a shift and a mask
	return u/64 < uint(len(g.bits)) && g.bits[u/64]&(1<<(u%64)) != 0
}

// Grant evaluates t's capabilities in req and res, initialize's params and
// result (pointers to their generated types; nil grants nothing): once per
// connection, when initialize completes. Each message is encoded once and
// each capability read from the JSON by its path, so a _meta key is a
// member like any other. A capability is granted by true, by a present
// object, or by a list holding an item; null, false, an empty list or an
// absent member grant nothing.
func Grant(t *GateTable, req, res any) Grants {
	docs := [2]wire.Raw{encoded(req), encoded(res)}
	g := Grants{t: t, bits: make([]uint64, (len(t.Capabilities)+63)/64)}
	for i := range t.Capabilities {
		c := &t.Capabilities[i]
		doc := docs[0]
		if c.InResult {
			doc = docs[1]
		}
		if doc != nil && c.grantedIn(doc) {
			g.bits[i/64] |= 1 << (i % 64)
		}
	}
	return g
}

// encoded returns v's JSON, nil for a v that is nil, a nil pointer or not
// a message.
func encoded(v any) wire.Raw {
	m, ok := v.(json.Marshaler)
	if rv := reflect.ValueOf(v); !ok || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

// grantedIn reports whether doc, the JSON of the message holding c, grants
// it.
func (c *Capability) grantedIn(doc wire.Raw) bool {
	toks, err := jsonpointer.SplitPath(c.Path)
	if err != nil {
		return false
	}
	v := doc
	for i := 0; ; i++ {
		if c.Namespace != nil && i == c.NamespaceAt && c.Namespace(v) != nil {
			return false
		}
		if i == len(toks) {
			return granting(v)
		}
		kind, val, found, err := wire.NewDecoder(v, wire.Lenient).ScanKey(toks[i])
		if err != nil || !found || kind == wire.KindNull || kind == wire.KindString {
			return false
		}
		v = val
	}
}

// granting reports whether the capability's value v grants it.
func granting(v wire.Raw) bool {
	d := wire.NewDecoder(v, wire.Lenient)
	switch v.Kind() {
	case wire.KindBool:
		b, err := d.ReadBool()
		return err == nil && b
	case wire.KindObject:
		return true
	case wire.KindArray:
		if d.BeginArray() != nil {
			return false
		}
		more, err := d.NextItem()
		return err == nil && more
	}
	return false
}

// Decodes reports whether raw decodes leniently as a T: Capability.Namespace
// of a typed _meta namespace of type T. Every generated type's
// UnmarshalJSON decodes leniently.
func Decodes[T any, PT interface {
	*T
	json.Unmarshaler
}](raw wire.Raw) error {
	return PT(new(T)).UnmarshalJSON(raw)
}
