package wire

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// This file describes a generated struct as data, for the one interpreter
// (interp.go) that decodes, encodes and validates every cold type: the types
// off the streaming path, whose speed matters less than the size of the
// code. A generated table is a composite literal the compiler lays out
// statically (no package init code); the Go side of it (member offsets,
// element types) is read once with reflection on first use, so generated
// code needs no unsafe. unsafe is confined to this file and interp.go.

// Shape is how the interpreter reads and writes one value.
type Shape uint8

// The shapes of values.
const (
	ShapeString  Shape = iota + 1 // string
	ShapeBool                     // bool
	ShapeInt64                    // int64
	ShapeInt32                    // int32
	ShapeUint16                   // uint16
	ShapeUint32                   // uint32
	ShapeUint64                   // uint64
	ShapeFloat64                  // float64, checked finite
	ShapeRaw                      // Raw, checked valid JSON
	ShapeObject                   // a struct described by Value.Object
	ShapeCoded                    // a type with its own methods (Value.Coded)
	ShapeSlice                    // []Elem, nil when absent
	ShapeMap                      // map[string]Elem, nil when absent
	ShapeUnion                    // an object union described by Value.Union
	ShapeEnum                     // a string of a closed enumeration, Value.Enum
)

// Coded is a generated type that decodes, encodes and validates itself; a
// table names one by a nil pointer of it, such as (*ContentBlock)(nil).
type Coded interface {
	Decodable
	Appender
	// ValidateWith adds the value's violations to v at v's position.
	ValidateWith(v *Validator)
}

// Value is the shape of a member, array item or map value.
type Value struct {
	Shape  Shape
	Rule   *StringRule  // ShapeString: the constraints, nil for none
	Ints   *IntRule     // integer shapes but ShapeUint64: the bounds, nil for none
	Floats []FloatBound // ShapeFloat64: the bounds, in the order they are checked
	Items  *IntRule     // ShapeSlice: the bounds of the item count, nil for none
	Object *Object      // ShapeObject
	Union  *Union       // ShapeUnion
	Enum   *Enum        // ShapeEnum
	Coded  Coded        // ShapeCoded: a nil pointer of the type
	Elem   *Value       // ShapeSlice, ShapeMap
	// SkipInvalid drops array items that fail to decode, in lenient mode.
	SkipInvalid bool

	typ  reflect.Type // the Go type, set by Object.layout
	size uintptr      // ShapeSlice: the size of an item
	// ShapeSlice: the type word of a *[]Elem interface value, so a slice
	// is grown through reflection without reflect.NewAt's type lookup.
	ptrType unsafe.Pointer
	flat    bool // ShapeSlice: items hold no pointers
	// ShapeSlice: the capacity of a slice's first allocation, room for
	// two items at least and for 64 bytes of small ones, so short arrays
	// (the common ones) are not grown item by item.
	first int
}

// sliceHeader is the layout of a slice value.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// emptyArray is where an empty, non-nil slice points (as []T{} does, to
// no memory of its own): with capacity 0 nothing is read or written there.
var emptyArray uintptr

// item is the address of item i of the slice at p, of items of size.
func item(p unsafe.Pointer, i int, size uintptr) unsafe.Pointer {
	return unsafe.Add((*sliceHeader)(p).data, uintptr(i)*size)
}

// The scalar shapes, shared by every table, which takes their address
// (&String): an address of a variable is laid out by the compiler, where a
// pointer variable would be copied by package init code.
var (
	String  = Value{Shape: ShapeString}
	Bool    = Value{Shape: ShapeBool}
	Int64   = Value{Shape: ShapeInt64}
	Int32   = Value{Shape: ShapeInt32}
	Uint16  = Value{Shape: ShapeUint16}
	Uint32  = Value{Shape: ShapeUint32}
	Uint64  = Value{Shape: ShapeUint64}
	Float64 = Value{Shape: ShapeFloat64}
	RawJSON = Value{Shape: ShapeRaw}
)

// MemberFlags say how a member is present.
type MemberFlags uint8

// Member flags.
const (
	// Required: decoding fails without the member; encoding always writes it.
	Required MemberFlags = 1 << iota
	// Nullable: null is read as the zero value (absent).
	Nullable
	// Pointer: the field is a pointer to the value, nil when absent.
	Pointer
	// DefaultOnNull: lenient decoding reads null as absent.
	DefaultOnNull
	// DefaultOnError: lenient decoding reads a value that fails as absent.
	DefaultOnError
)

// Member is one declared member of an Object.
type Member struct {
	Name  string // JSON name
	Field string // Go field name
	Flags MemberFlags
	Value *Value

	key    string  // `"name":`
	offset uintptr // of the field in the struct
	slot   int     // required slot, or Optional
	check  bool    // its value can break the schema (needsCheck)
}

// Object describes one generated struct: its members in schema order and an
// Unknown field of type Fields keeping the others.
type Object struct {
	// Name is the package-qualified Go name, for encoding errors.
	Name string
	// Type is a nil pointer of the struct, such as (*NewSessionRequest)(nil).
	Type    any
	Members []Member
	// Union is a union embedded in the struct, in its field UnionField:
	// the selected variant's members follow the struct's own, their
	// required ones a level down. nil for none.
	Union      *Union
	UnionField string

	once sync.Once
	typ  reflect.Type // the struct
	// valueType is the type word of an interface holding the struct.
	valueType unsafe.Pointer
	unionAt   uintptr        // offset of UnionField
	unknown   uintptr        // offset of the Unknown field
	required  Members        // required members by slot
	byName    map[string]int // member index by JSON name
}

// layout reads the struct's offsets and types once.
func (o *Object) layout() *Object {
	o.once.Do(o.resolve)
	return o
}

func (o *Object) resolve() {
	t := reflect.TypeOf(o.Type).Elem()
	o.typ = t
	x := reflect.New(t).Elem().Interface()
	o.valueType = (*eface)(unsafe.Pointer(&x)).typ
	unknown := field(t, "Unknown", reflect.TypeFor[Fields]())
	o.unknown = unknown.Offset
	o.byName = make(map[string]int, len(o.Members))
	for i := range o.Members {
		m := &o.Members[i]
		f := field(t, m.Field, nil)
		ft := f.Type
		if m.Flags&Pointer != 0 {
			ft = ft.Elem()
		}
		m.Value.resolve(ft)
		m.offset, m.key, m.slot = f.Offset, fmt.Sprintf("%q:", m.Name), Optional
		m.check = needsCheck(m.Value)
		if m.Flags&Required != 0 {
			m.slot = len(o.required.Required)
			o.required.Required = append(o.required.Required, m.Name)
		}
		o.byName[m.Name] = i
	}
	if o.Union != nil {
		o.unionAt = field(t, o.UnionField, reflect.TypeOf(o.Union.Type).Elem()).Offset
		o.Union.layout()
	}
}

// field finds a struct field, of type want when want is not nil; a table
// that does not fit its struct is a generator bug, reported at once.
func field(t reflect.Type, name string, want reflect.Type) reflect.StructField {
	f, ok := t.FieldByName(name)
	if !ok || (want != nil && f.Type != want) {
		panic(fmt.Sprintf("wire: table of %s: no field %s of the described type", t, name))
	}
	return f
}

// resolve notes the Go type of a container value and checks the scalars.
func (v *Value) resolve(t reflect.Type) {
	switch v.Shape {
	case ShapeSlice:
		v.typ, v.size, v.flat = t, t.Elem().Size(), !hasPointers(t.Elem())
		v.first = max(2, int(64/max(v.size, 1)))
		x := reflect.New(t).Interface()
		v.ptrType = (*eface)(unsafe.Pointer(&x)).typ
		v.Elem.resolve(t.Elem())
	case ShapeMap:
		v.typ = t
		v.Elem.resolve(t.Elem())
	case ShapeObject:
		if reflect.TypeOf(v.Object.Type).Elem() != t {
			panic(fmt.Sprintf("wire: table of %s describes a %s", t, reflect.TypeOf(v.Object.Type).Elem()))
		}
	case ShapeUnion:
		if reflect.TypeOf(v.Union.Type).Elem() != t {
			panic(fmt.Sprintf("wire: table of %s describes a %s", t, reflect.TypeOf(v.Union.Type).Elem()))
		}
	case ShapeCoded:
		if reflect.TypeOf(v.Coded).Elem() != t {
			panic(fmt.Sprintf("wire: table of %s describes a %s", t, reflect.TypeOf(v.Coded).Elem()))
		}
	}
}

// hasPointers reports whether a value of type t holds pointers.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.String, reflect.Interface,
		reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	}
	return false
}

// eface is the layout of an empty interface value: its type and its data
// word, which for a pointer type is the pointer itself.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// pointer is the struct v points to, after o's layout is read; v must be a
// pointer of o's type (a generator bug otherwise, reported at once), or for
// MarshalTable the struct itself: an interface holding a struct, which is
// never pointer-shaped (it has its Unknown slice), points to its copy.
func (o *Object) pointer(v any) unsafe.Pointer {
	o.layout()
	e, want := (*eface)(unsafe.Pointer(&v)), (*eface)(unsafe.Pointer(&o.Type))
	if e.typ != want.typ && e.typ != o.valueType {
		panic(fmt.Sprintf("wire: table of %T used on a %T", o.Type, v))
	}
	return e.data
}

// iface is the layout of a non-empty interface value: its method table and
// its data word, which for a pointer type is the pointer itself.
type iface struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}

// codedAt is c's type holding the pointer p: c is a nil pointer of a
// generated type, so the result calls that type's methods on *p without
// reflection or allocation.
func codedAt(c Coded, p unsafe.Pointer) Coded {
	i := *(*iface)(unsafe.Pointer(&c))
	i.data = p
	return *(*Coded)(unsafe.Pointer(&i))
}

// at is the address of the member at offset off of the struct at p.
func at(p unsafe.Pointer, off uintptr) unsafe.Pointer { return unsafe.Add(p, off) }

// string is the string v points to, a pointer of e's type (a generator bug
// otherwise, reported at once); the type is a string type. For a
// value-receiver MarshalJSON v may hold the value itself, as for Scalar.at.
func (e *Enum) string(v any) *string {
	ev, want := (*eface)(unsafe.Pointer(&v)), (*eface)(unsafe.Pointer(&e.Type))
	if ev.typ != want.typ {
		return (*string)(heldValue(v, e.Type))
	}
	return (*string)(ev.data)
}

// heldValue is where the value v holds is, v holding a value of the type
// the nil pointer ptr points to (a generator bug otherwise, reported at
// once): a value-receiver MarshalJSON passes its receiver so. An interface
// holding a string, number or struct (not pointer-shaped) points to its
// copy, and a reflect.Type's data word is the type word of an interface
// holding that type. Out of line, so that the tables' pointer check
// inlines.
//
//go:noinline
func heldValue(v, ptr any) unsafe.Pointer {
	t := reflect.TypeOf(ptr).Elem()
	e := (*eface)(unsafe.Pointer(&v))
	if e.typ != (*iface)(unsafe.Pointer(&t)).data {
		panic(fmt.Sprintf("wire: table of %T used on a %T", ptr, v))
	}
	return e.data
}
