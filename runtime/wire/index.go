package wire

import (
	"reflect"
	"sync"
)

// Index is a generated package's tables by the type each describes: what
// its TableOf looks a value up in. A static list, not a type switch, so
// that the package compiles no function over every type (a type switch of
// a case per type is one large function per package); the map is built on
// the first lookup.
type Index struct {
	// Entries pairs a nil pointer of each described type with its table.
	Entries []Indexed

	once   sync.Once
	byType map[reflect.Type]Table
}

// Indexed is one entry of an Index.
type Indexed struct {
	Type  any // a nil pointer of the described type, (*T)(nil)
	Table Table
}

// Of is the table of the type v points to: its entry's, Methods for a type
// with codec methods of its own (Coded), nil otherwise.
func (x *Index) Of(v any) Table {
	x.once.Do(func() {
		x.byType = make(map[reflect.Type]Table, len(x.Entries))
		for _, e := range x.Entries {
			x.byType[reflect.TypeOf(e.Type)] = e.Table
		}
	})
	if t, ok := x.byType[reflect.TypeOf(v)]; ok {
		return t
	}
	if _, ok := v.(Coded); ok {
		return OwnCodec{}
	}
	return nil
}
