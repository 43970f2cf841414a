package wire

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// List is the table of an array member of a type with generated codec
// methods: the interpreter decodes and encodes the slice, calling the items'
// own methods where they have them (ShapeCoded). Generated code calling a
// generic DecodeSlice or AppendSlice instead would compile a copy of it for
// every item type, since items are structs of distinct shapes.
type List struct {
	// Type is a nil pointer of the slice type, such as (*[]ContentBlock)(nil).
	Type  any
	Value *Value // ShapeSlice

	once sync.Once
	// typ is the type word of Type once the layout is read, nil before.
	typ atomic.Pointer[byte]
}

// layout reads the slice's item type once and returns the slice v points
// to; v must be a pointer of l's type (a generator bug otherwise, reported
// at once). The methods check the type word against typ inline and call it
// only on a mismatch: the first use, or the bug.
//
//go:noinline
func (l *List) layout(v any) unsafe.Pointer {
	l.once.Do(func() { l.Value.resolve(reflect.TypeOf(l.Type).Elem()) })
	want := (*eface)(unsafe.Pointer(&l.Type)).typ
	l.typ.Store((*byte)(want))
	if (*eface)(unsafe.Pointer(&v)).typ != want {
		panic(fmt.Sprintf("wire: table of %T used on a %T", l.Type, v))
	}
	return (*eface)(unsafe.Pointer(&v)).data
}

// DecodeValue decodes one array into *v: a non-nil slice, empty for [].
// With the Value's SkipInvalid, in lenient mode, an item that fails to
// decode is dropped.
func (l *List) DecodeValue(d *Decoder, v any) error {
	e := (*eface)(unsafe.Pointer(&v))
	p := e.data
	if (*byte)(e.typ) != l.typ.Load() {
		p = l.layout(v)
	}
	return decodeSlice(d, p, l.Value)
}

// AppendValue appends the array *v.
func (l *List) AppendValue(b []byte, v any) []byte {
	e := (*eface)(unsafe.Pointer(&v))
	p := e.data
	if (*byte)(e.typ) != l.typ.Load() {
		p = l.layout(v)
	}
	b = append(b, '[')
	elem, size := l.Value.Elem, l.Value.size
	for i := range (*sliceHeader)(p).len {
		if i > 0 {
			b = append(b, ',')
		}
		x := item(p, i, size)
		switch elem.Shape {
		case ShapeCoded:
			b = codedAt(elem.Coded, x).AppendJSON(b)
		case ShapeString:
			b = AppendString(b, *(*string)(x))
		default:
			b = appendValue(b, x, elem)
		}
	}
	return append(b, ']')
}
