package wire

import (
	"math"
	"reflect"
	"slices"
	"unsafe"
)

// This file is the interpreter of Object tables: what a generated type's
// decodeField, appendFields and validate do, member by member, read from
// its table instead. Pointers to members are formed with the offsets the
// table's layout read from the struct (table.go); every value is read and
// written as the Go type the layout checked, so the arithmetic stays inside
// the struct it describes.

// The entry points take the object as any, a pointer to the struct o
// describes (checked: anything else panics). Not generic: a type parameter
// would compile one copy of each per struct.

// DecodeTable decodes one object described by o into *v, keeping unknown
// members, as a generated DecodeJSON does.
func DecodeTable(d *Decoder, v any, o *Object) error {
	p := o.pointer(v)
	zeroStruct(o, p)
	return decodeObject(d, p, o)
}

// AppendTable appends the object *v described by o.
func AppendTable(b []byte, v any, o *Object) []byte {
	return appendObject(b, o.pointer(v), o)
}

// ValidateTable adds the violations of the object *v described by o to vd.
// The walk runs on a pooled Validator at vd's position: it calls generated
// methods through interfaces, which would make vd (often a Validate
// method's local) escape to the heap.
func ValidateTable(vd *Validator, v any, o *Object) {
	w := vd.borrow()
	validateObject(w, o.pointer(v), o)
	vd.giveBack(w)
}

// MarshalTable encodes v, the struct o describes or a pointer to it, for
// encoding/json after checking that every union in it has exactly one
// variant set (a *EncodeError otherwise). A value-receiver MarshalJSON
// passes the struct itself: taking its address instead would move it to the
// heap in the method's own code, compiled once per type.
func MarshalTable(v any, o *Object) ([]byte, error) {
	vd := validators.Get().(*Validator)
	*vd = Validator{}
	p := o.pointer(v)
	validateObject(vd, p, o)
	err := vd.EncodeErr(o.Name)
	*vd = Validator{} // the error owns the violations now
	validators.Put(vd)
	if err != nil {
		return nil, err
	}
	return appendObject(nil, p, o), nil
}

// ValidateErr reports every violation of the value v points to, described
// by t: what a generated Validate returns, in one call (Check with t's
// ValidateValue).
func ValidateErr(v any, t Table) error {
	w := validators.Get().(*Validator)
	*w = Validator{}
	t.ValidateValue(w, v)
	err := w.Err()
	*w = Validator{} // the error owns the violations now
	validators.Put(w)
	return err
}

// DecodeMember decodes the member named key of the object *v described by
// o, as a generated decodeField does: it returns the member's required
// slot, Optional, or NotMember for a key o does not declare. A union whose
// variant is described by a table decodes the variant's members with it.
func DecodeMember(d *Decoder, v any, o *Object, key []byte) (int, error) {
	return memberOf(d, o.pointer(v), o, key)
}

// AppendMembers appends the members of the object *v described by o,
// comma-separated, its unknown ones last, as a generated appendFields does;
// comma says whether a member was written before.
func AppendMembers(b []byte, v any, o *Object, comma bool) ([]byte, bool) {
	return appendMembers(b, o.pointer(v), o, comma)
}

// RequiredNames names o's required members by slot.
func (o *Object) RequiredNames() []string { return o.layout().required.Required }

func decodeObject(d *Decoder, p unsafe.Pointer, o *Object) error {
	if o.Union != nil {
		return decodeEmbedding(d, p, o)
	}
	sink := (*Fields)(at(p, o.unknown))
	next := 0
	return DecodeObject(d, sink, func(d *Decoder, key []byte) (int, error) {
		return memberNext(d, p, o, key, &next)
	}, &o.required, nil)
}

// memberOf decodes the member named key of the struct at p, cleared first:
// the member may have been decoded before (a later duplicate wins whole).
func memberOf(d *Decoder, p unsafe.Pointer, o *Object, key []byte) (int, error) {
	next := len(o.Members)
	return memberNext(d, p, o, key, &next)
}

// memberNext decodes the member named key of the struct at p, whose
// members were zero when its decoding began; *next is one past the
// highest member decoded so far. Objects mostly list their members in the
// schema's order, so the member at *next is compared first, and a member
// past it was not decoded yet, still zero; one before it is cleared first,
// as the later of duplicates wins whole.
func memberNext(d *Decoder, p unsafe.Pointer, o *Object, key []byte, next *int) (int, error) {
	i := *next
	if i >= len(o.Members) || o.Members[i].Name != string(key) {
		if i = o.index(key); i < 0 {
			return NotMember, nil
		}
	}
	m := &o.Members[i]
	f := at(p, m.offset)
	if i < *next {
		zeroMember(f, m)
	} else {
		*next = i + 1
	}
	return m.slot, decodeMember(d, f, m)
}

// linearMembers is up to how many members an object's keys are compared one
// by one rather than hashed: a comparison mostly stops at the length.
const linearMembers = 8

// index is the index of o's member named key, -1 for none.
func (o *Object) index(key []byte) int {
	if len(o.Members) <= linearMembers {
		for i := range o.Members {
			if o.Members[i].Name == string(key) {
				return i
			}
		}
		return -1
	}
	if i, ok := o.byName[string(key)]; ok {
		return i
	}
	return -1
}

// zeroStruct sets the struct at p to its zero value, as *v = T{} does.
func zeroStruct(o *Object, p unsafe.Pointer) { zeroAt(o.typ, p) }

// zeroAt sets the value of type t at p to its zero value. A value decoded
// into is mostly fresh, already zero: reading it is cheaper than the typed
// clear, which pays a write barrier per pointer word while the GC runs.
func zeroAt(t reflect.Type, p unsafe.Pointer) {
	if !isZeroMem(p, t.Size()) {
		reflect.NewAt(t, p).Elem().SetZero()
	}
}

// isZeroMem reports whether the n bytes at p are all zero.
func isZeroMem(p unsafe.Pointer, n uintptr) bool {
	const word = unsafe.Sizeof(uintptr(0))
	i := uintptr(0)
	for ; i+word <= n; i += word {
		if *(*uintptr)(unsafe.Add(p, i)) != 0 {
			return false
		}
	}
	for ; i < n; i++ {
		if *(*byte)(unsafe.Add(p, i)) != 0 {
			return false
		}
	}
	return true
}

// decodeMember decodes member m into its field at f.
func decodeMember(d *Decoder, f unsafe.Pointer, m *Member) error {
	if m.Flags&Nullable != 0 || (m.Flags&DefaultOnNull != 0 && d.Lenient()) {
		if d.TryNull() {
			zeroMember(f, m)
			return nil
		}
	}
	target := f
	if m.Flags&Pointer != 0 {
		target = newValue(m.Value)
		*(*unsafe.Pointer)(f) = target
	}
	mark := d.Mark()
	err := decodeValue(d, target, m.Value)
	if err == nil {
		return nil
	}
	if m.Flags&DefaultOnError == 0 {
		return AtKey(err, m.Name)
	}
	zeroMember(f, m)
	return AtKey(d.Recover(mark, err), m.Name)
}

// zeroMember leaves member m absent: nil for pointers, slices, maps and raw
// values, the zero value otherwise.
func zeroMember(f unsafe.Pointer, m *Member) {
	if m.Flags&Pointer != 0 {
		*(*unsafe.Pointer)(f) = nil
		return
	}
	zeroValue(f, m.Value)
}

func zeroValue(p unsafe.Pointer, v *Value) {
	switch v.Shape {
	case ShapeString, ShapeEnum:
		*(*string)(p) = ""
	case ShapeBool:
		*(*bool)(p) = false
	case ShapeInt64, ShapeUint64, ShapeFloat64:
		*(*uint64)(p) = 0
	case ShapeInt32, ShapeUint32:
		*(*uint32)(p) = 0
	case ShapeUint16:
		*(*uint16)(p) = 0
	case ShapeRaw:
		*(*Raw)(p) = nil
	default:
		reflect.NewAt(goType(v), p).Elem().SetZero()
	}
}

// goType is the Go type of a value of shape v.
func goType(v *Value) reflect.Type {
	switch v.Shape {
	case ShapeString, ShapeEnum:
		return reflect.TypeFor[string]()
	case ShapeBool:
		return reflect.TypeFor[bool]()
	case ShapeInt64:
		return reflect.TypeFor[int64]()
	case ShapeInt32:
		return reflect.TypeFor[int32]()
	case ShapeUint16:
		return reflect.TypeFor[uint16]()
	case ShapeUint32:
		return reflect.TypeFor[uint32]()
	case ShapeUint64:
		return reflect.TypeFor[uint64]()
	case ShapeFloat64:
		return reflect.TypeFor[float64]()
	case ShapeRaw:
		return reflect.TypeFor[Raw]()
	case ShapeObject:
		return reflect.TypeOf(v.Object.Type).Elem()
	case ShapeUnion:
		return reflect.TypeOf(v.Union.Type).Elem()
	case ShapeCoded:
		return reflect.TypeOf(v.Coded).Elem()
	}
	return v.typ
}

// newValue allocates a zero value of shape v.
func newValue(v *Value) unsafe.Pointer {
	return reflect.New(goType(v)).UnsafePointer()
}

func decodeValue(d *Decoder, p unsafe.Pointer, v *Value) error {
	switch v.Shape {
	case ShapeString:
		return DecodeString((*string)(p), d)
	case ShapeBool:
		return DecodeBool((*bool)(p), d)
	case ShapeInt64:
		return DecodeInt64((*int64)(p), d)
	case ShapeInt32:
		return DecodeInt32((*int32)(p), d)
	case ShapeUint16:
		return DecodeUint16((*uint16)(p), d)
	case ShapeUint32:
		return DecodeUint32((*uint32)(p), d)
	case ShapeUint64:
		return DecodeUint64((*uint64)(p), d)
	case ShapeFloat64:
		return DecodeFloat64((*float64)(p), d)
	case ShapeRaw:
		return DecodeRaw((*Raw)(p), d)
	case ShapeObject:
		return decodeObject(d, p, v.Object.layout())
	case ShapeUnion:
		return v.Union.layout().decodeAt(d, p)
	case ShapeEnum:
		return DecodeEnum(d, (*string)(p), v.Enum)
	case ShapeCoded:
		return codedAt(v.Coded, p).DecodeJSON(d)
	case ShapeSlice:
		return decodeSlice(d, p, v)
	case ShapeMap:
		if v.Elem.Shape == ShapeRaw {
			return DecodeRawMap(d, (*map[string]Raw)(p))
		}
		return decodeMap(d, p, v)
	}
	panic("wire: unknown shape")
}

// decodeSlice is DecodeSlice for a slice of shape v at p, grown in place:
// reflection only to grow it (a typed reallocation), items addressed from
// the slice header.
func decodeSlice(d *Decoder, p unsafe.Pointer, v *Value) error {
	if err := d.BeginArray(); err != nil {
		return err
	}
	h := (*sliceHeader)(p)
	*h = sliceHeader{data: unsafe.Pointer(&emptyArray)}
	for i := 0; ; i++ {
		ok, err := d.NextItem()
		if err != nil || !ok {
			return err
		}
		m := d.Mark()
		if h.len == h.cap {
			v.sliceAt(p).Grow(max(1, v.first-h.cap))
		}
		n := h.len
		h.len++
		x := item(p, n, v.size)
		if v.flat {
			// Growing leaves the new item's memory as it was when it holds
			// no pointers (it zeroes it otherwise): clearing it needs no
			// write barrier.
			clear(unsafe.Slice((*byte)(x), v.size))
		}
		if err := decodeValue(d, x, v.Elem); err != nil {
			if !v.SkipInvalid || !d.Lenient() || IsSyntax(err) {
				return AtIndex(err, i)
			}
			v.sliceAt(p).Index(n).SetZero()
			h.len--
			d.Rewind(m)
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
}

// sliceAt is the slice of shape v at p as a settable reflect.Value, made
// from v's pointer type word: reflect.NewAt would look the pointer type up
// on every call.
func (v *Value) sliceAt(p unsafe.Pointer) reflect.Value {
	var x any
	*(*eface)(unsafe.Pointer(&x)) = eface{typ: v.ptrType, data: p}
	return reflect.ValueOf(x).Elem()
}

// decodeMap is DecodeMap for a map of shape v at p.
func decodeMap(d *Decoder, p unsafe.Pointer, v *Value) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	out := reflect.MakeMap(v.typ)
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			reflect.NewAt(v.typ, p).Elem().Set(out)
			return nil
		}
		name := string(key)
		x := reflect.New(v.typ.Elem())
		if err := decodeValue(d, x.UnsafePointer(), v.Elem); err != nil {
			return AtKey(err, name)
		}
		out.SetMapIndex(reflect.ValueOf(name), x.Elem())
	}
}

func appendObject(b []byte, p unsafe.Pointer, o *Object) []byte {
	b = append(b, '{')
	b, _ = appendMembers(b, p, o, false)
	return append(b, '}')
}

func appendMembers(b []byte, p unsafe.Pointer, o *Object, comma bool) ([]byte, bool) {
	for i := range o.Members {
		m := &o.Members[i]
		f := at(p, m.offset)
		if m.Flags&Pointer != 0 {
			f = *(*unsafe.Pointer)(f)
		}
		if f == nil || (m.Flags&Pointer == 0 && isNil(f, m.Value)) {
			if m.Flags&Required == 0 {
				continue
			}
			if m.Flags&(Pointer|Nullable) != 0 {
				b = Key(b, &comma, m.key)
				b = append(b, "null"...)
				continue
			}
		}
		b = Key(b, &comma, m.key)
		b = appendValue(b, f, m.Value)
	}
	if o.Union != nil {
		b, comma = o.Union.appendVariant(b, at(p, o.unionAt), comma)
	}
	return (*Fields)(at(p, o.unknown)).AppendMembers(b, comma)
}

// isNil reports a nil slice, map or raw value: an absent member.
func isNil(p unsafe.Pointer, v *Value) bool {
	switch v.Shape {
	case ShapeRaw:
		return *(*Raw)(p) == nil
	case ShapeSlice, ShapeMap:
		// A slice's first word is its data pointer, nil only for a nil
		// slice; a map is one pointer.
		return *(*unsafe.Pointer)(p) == nil
	}
	return false
}

func appendValue(b []byte, p unsafe.Pointer, v *Value) []byte {
	switch v.Shape {
	case ShapeString:
		return AppendString(b, *(*string)(p))
	case ShapeBool:
		return AppendBool(b, *(*bool)(p))
	case ShapeInt64:
		return AppendInt(b, *(*int64)(p))
	case ShapeInt32:
		return AppendInt(b, int64(*(*int32)(p)))
	case ShapeUint16:
		return AppendUint(b, uint64(*(*uint16)(p)))
	case ShapeUint32:
		return AppendUint(b, uint64(*(*uint32)(p)))
	case ShapeUint64:
		return AppendUint(b, *(*uint64)(p))
	case ShapeFloat64:
		return AppendFloat(b, *(*float64)(p))
	case ShapeRaw:
		return AppendRaw(b, *(*Raw)(p))
	case ShapeObject:
		return appendObject(b, p, v.Object.layout())
	case ShapeUnion:
		return v.Union.layout().appendAt(b, p)
	case ShapeEnum:
		return AppendString(b, *(*string)(p))
	case ShapeCoded:
		return codedAt(v.Coded, p).AppendJSON(b)
	case ShapeSlice:
		return appendSlice(b, p, v)
	case ShapeMap:
		return appendMap(b, p, v)
	}
	panic("wire: unknown shape")
}

// appendSlice is AppendSlice for a slice of shape v at p. Items with
// methods of their own and strings, the common ones, are appended without
// a turn through appendValue.
func appendSlice(b []byte, p unsafe.Pointer, v *Value) []byte {
	b = append(b, '[')
	elem := v.Elem
	for i := range (*sliceHeader)(p).len {
		if i > 0 {
			b = append(b, ',')
		}
		x := item(p, i, v.size)
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

// appendMap is AppendMap for a map of shape v at p: keys sorted.
func appendMap(b []byte, p unsafe.Pointer, v *Value) []byte {
	if v.Elem.Shape == ShapeRaw {
		return AppendRawMap(b, *(*map[string]Raw)(p))
	}
	m := reflect.NewAt(v.typ, p).Elem()
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	x := reflect.New(v.typ.Elem())
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		x.Elem().Set(m.MapIndex(reflect.ValueOf(k)))
		b = appendValue(b, x.UnsafePointer(), v.Elem)
	}
	return append(b, '}')
}

func validateObject(vd *Validator, p unsafe.Pointer, o *Object) {
	for i := range o.Members {
		m := &o.Members[i]
		if !m.check {
			continue
		}
		f := at(p, m.offset)
		if m.Flags&Pointer != 0 {
			if f = *(*unsafe.Pointer)(f); f == nil {
				continue
			}
		} else if m.Flags&Required == 0 && isNil(f, m.Value) {
			continue
		}
		vd.Push(m.Name)
		validateValue(vd, f, m.Value)
		vd.Pop()
	}
	unknown := *(*Fields)(at(p, o.unknown))
	for _, u := range unknown {
		if _, ok := o.byName[u.Name]; ok {
			vd.AddAt(u.Name, "is a declared member; set its field instead of Unknown")
		}
	}
	if o.Union != nil {
		o.Union.validate(vd, at(p, o.unionAt))
	}
}

func validateValue(vd *Validator, p unsafe.Pointer, v *Value) {
	switch v.Shape {
	case ShapeString:
		if v.Rule != nil {
			v.Rule.Check(vd, *(*string)(p))
		}
	case ShapeInt64, ShapeInt32, ShapeUint16, ShapeUint32:
		if v.Ints != nil {
			v.Ints.Check(vd, intAt(p, v.Shape))
		}
	case ShapeFloat64:
		x := *(*float64)(p)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			vd.Add("must be a finite number")
		}
		CheckFloat(vd, x, v.Floats)
	case ShapeRaw:
		if r := *(*Raw)(p); len(r) > 0 && !Valid(r) {
			vd.Add("is not valid JSON")
		}
	case ShapeObject:
		validateObject(vd, p, v.Object.layout())
	case ShapeUnion:
		v.Union.layout().validate(vd, p)
	case ShapeEnum:
		v.Enum.Check(vd, *(*string)(p))
	case ShapeCoded:
		codedAt(v.Coded, p).ValidateWith(vd)
	case ShapeSlice:
		if v.Items != nil {
			v.Items.Check(vd, int64((*sliceHeader)(p).len))
		}
		if !needsCheck(v.Elem) {
			return
		}
		for i := range (*sliceHeader)(p).len {
			vd.PushIndex(i)
			validateValue(vd, item(p, i, v.size), v.Elem)
			vd.Pop()
		}
	case ShapeMap:
		validateMap(vd, p, v)
	}
}

// validateMap checks each value of a map of shape v at p, under its key.
func validateMap(vd *Validator, p unsafe.Pointer, v *Value) {
	if v.Elem.Shape == ShapeRaw {
		vd.RawValues(*(*map[string]Raw)(p))
		return
	}
	if !needsCheck(v.Elem) {
		return
	}
	m := reflect.NewAt(v.typ, p).Elem()
	x := reflect.New(v.typ.Elem())
	for it := m.MapRange(); it.Next(); {
		x.Elem().Set(it.Value())
		vd.Push(it.Key().String())
		validateValue(vd, x.UnsafePointer(), v.Elem)
		vd.Pop()
	}
}

// intAt reads an integer of shape s (not ShapeUint64) as an int64.
func intAt(p unsafe.Pointer, s Shape) int64 {
	switch s {
	case ShapeInt32:
		return int64(*(*int32)(p))
	case ShapeUint16:
		return int64(*(*uint16)(p))
	case ShapeUint32:
		return int64(*(*uint32)(p))
	}
	return *(*int64)(p)
}

// needsCheck reports whether a value of shape v can break its schema.
func needsCheck(v *Value) bool {
	switch v.Shape {
	case ShapeSlice:
		return v.Items != nil || needsCheck(v.Elem)
	case ShapeBool, ShapeUint64:
		return false
	case ShapeInt64, ShapeInt32, ShapeUint16, ShapeUint32:
		return v.Ints != nil
	case ShapeString:
		return v.Rule != nil
	}
	return true
}

// Scalar describes a named scalar type (type SessionID string): its Go
// type and the shape and checks of its values. It is the type's Table.
type Scalar struct {
	// Type is a nil pointer of the named type, such as (*SessionID)(nil).
	Type  any
	Value *Value // a scalar shape
}

// at is the value v points to, a pointer of s's type (a generator bug
// otherwise, reported at once), or for a value-receiver MarshalJSON the
// value itself (see heldValue).
func (s *Scalar) at(v any) unsafe.Pointer {
	e, want := (*eface)(unsafe.Pointer(&v)), (*eface)(unsafe.Pointer(&s.Type))
	if e.typ != want.typ {
		return heldValue(v, s.Type)
	}
	return e.data
}

// DecodeValue decodes one value into *v.
func (s *Scalar) DecodeValue(d *Decoder, v any) error { return decodeValue(d, s.at(v), s.Value) }

// AppendValue appends the value *v.
func (s *Scalar) AppendValue(b []byte, v any) []byte { return appendValue(b, s.at(v), s.Value) }

// ValidateValue adds the violations of *v to vd.
func (s *Scalar) ValidateValue(vd *Validator, v any) { validateValue(vd, s.at(v), s.Value) }
