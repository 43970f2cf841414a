package wire

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// At is the address of a value inside a decoded message. A walk over a
// message of a known Go type plans its moves once, from the type, as
// FieldStep and ItemsStep values, and then reads fields, items and
// strings through At by offset: no reflection per message. The offsets
// are Go's own (reflect.StructField.Offset), so a step is only ever applied
// to the type it was planned from; this package is where unsafe stays.
type At struct{ p unsafe.Pointer }

// Root reaches the value a message of one pointer type points to.
type Root struct{ typ unsafe.Pointer }

// RootOf plans reaching the values of sample's type, a pointer type
// ((*T)(nil) will do).
func RootOf(sample any) Root {
	if reflect.TypeOf(sample).Kind() != reflect.Pointer {
		panic(fmt.Sprintf("wire: RootOf(%T): not a pointer", sample))
	}
	return Root{(*eface)(unsafe.Pointer(&sample)).typ}
}

// At returns where v points when v is a non-nil pointer of r's type.
func (r Root) At(v any) (At, bool) {
	e := (*eface)(unsafe.Pointer(&v))
	return At{e.data}, e.typ == r.typ && e.data != nil
}

// String returns the string at a, which must be of a string kind.
func (a At) String() string { return *(*string)(a.p) }

// stepKind is how a field is entered.
type stepKind uint8

const (
	stepInline  stepKind = iota // the field's own memory (a struct, a string)
	stepPointer                 // a pointer: absent when nil, else its pointee
	stepSlice                   // a slice header: absent when nil and optional
	stepMap                     // a map: absent when nil and optional
)

// FieldStep enters one field of a struct.
type FieldStep struct {
	off      uintptr
	kind     stepKind
	optional bool
}

// StepTo plans entering f. With optional, a nil slice or map is absent
// (the member's omitempty); a nil pointer always is.
func StepTo(f reflect.StructField, optional bool) FieldStep {
	s := FieldStep{off: f.Offset, optional: optional}
	switch f.Type.Kind() {
	case reflect.Pointer:
		s.kind = stepPointer
	case reflect.Slice:
		s.kind = stepSlice
	case reflect.Map:
		s.kind = stepMap
	}
	return s
}

// Present reports whether the pointer field s enters is set in the
// struct at a; s must have been planned from a pointer field.
func (s FieldStep) Present(a At) bool { return *(*unsafe.Pointer)(unsafe.Add(a.p, s.off)) != nil }

// IsPointer reports whether s enters a pointer field.
func (s FieldStep) IsPointer() bool { return s.kind == stepPointer }

// Field returns the field's value in the struct at a (a pointer's
// pointee), or false when it is absent.
func (s FieldStep) Field(a At) (At, bool) {
	f := unsafe.Add(a.p, s.off)
	switch s.kind {
	case stepPointer:
		p := *(*unsafe.Pointer)(f)
		return At{p}, p != nil
	case stepSlice:
		return At{f}, !s.optional || (*sliceHeader)(f).data != nil
	case stepMap:
		return At{f}, !s.optional || *(*unsafe.Pointer)(f) != nil
	}
	return At{f}, true
}

// ItemsStep visits the items of a slice or the values of a map.
type ItemsStep struct {
	size uintptr      // a slice item's size
	ptr  bool         // items are pointers, entered (nil ones skipped)
	m    reflect.Type // a map's type; nil for a slice
}

// StepItems plans visiting the items of a value of type t: a slice, or a
// map with string keys. Items that are pointers are entered.
func StepItems(t reflect.Type) (ItemsStep, error) {
	switch t.Kind() {
	case reflect.Slice:
		return ItemsStep{size: t.Elem().Size(), ptr: t.Elem().Kind() == reflect.Pointer}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return ItemsStep{}, fmt.Errorf("%s has keys that are not strings", t)
		}
		return ItemsStep{ptr: t.Elem().Kind() == reflect.Pointer, m: t}, nil
	}
	return ItemsStep{}, fmt.Errorf("items of a %s", t)
}

// IsMap reports whether s visits a map's values (Each), not a slice's
// items (Len and Item).
func (s ItemsStep) IsMap() bool { return s.m != nil }

// Len returns the length of the slice at a.
func (s ItemsStep) Len(a At) int { return (*sliceHeader)(a.p).len }

// Item returns item i of the slice at a, or false for a nil pointer item.
func (s ItemsStep) Item(a At, i int) (At, bool) {
	p := unsafe.Add((*sliceHeader)(a.p).data, uintptr(i)*s.size)
	if s.ptr {
		p = *(*unsafe.Pointer)(p)
	}
	return At{p}, p != nil
}

// Each calls yield for every item of the slice or map at a, in order (a
// map's keys sorted as strings): with its index for a slice, its key for a
// map. A nil pointer item is skipped.
func (s ItemsStep) Each(a At, yield func(index int, key string, item At)) {
	if s.m == nil {
		for i := range s.Len(a) {
			if p, ok := s.Item(a, i); ok {
				yield(i, "", p)
			}
		}
		return
	}
	// Maps are rare in gated places: reflection reads them.
	m := reflect.NewAt(s.m, a.p).Elem()
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	k := reflect.New(s.m.Key()).Elem()
	for _, key := range keys {
		k.SetString(key)
		e := m.MapIndex(k)
		if s.ptr {
			if e.IsNil() {
				continue
			}
			yield(-1, key, At{e.UnsafePointer()})
			continue
		}
		c := reflect.New(e.Type()).Elem() // a map value is not addressable
		c.Set(e)
		yield(-1, key, At{c.Addr().UnsafePointer()})
	}
}
