package wire

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

// This file describes a cold object union as data, for the interpreter: a
// generated struct of one pointer field per variant (and, for a closed
// tagged union, an Unknown *UnknownVariant field), each variant's payload a
// struct described by an Object table. The selection of the variant, the
// members of the selected payload and the union's checks are what a
// generated union's selectVariant, decodeField, required, appendFields and
// validate do, read from the table.

// VariantRole says how decoding selects a variant of a Union.
type VariantRole uint8

// Variant roles.
const (
	// VariantTagged: the discriminator has the variant's Tag.
	VariantTagged VariantRole = iota + 1
	// VariantCatchAll: a tag no tagged variant has; the payload keeps it.
	VariantCatchAll
	// VariantAbsent: the discriminator is absent or null.
	VariantAbsent
	// VariantShape: the object has every one of the variant's Keys.
	VariantShape
	// VariantFallback: anyOf's untagged default, taken for an absent, odd or
	// unknown tag, and retried when the tagged variant fails to decode.
	VariantFallback
)

// Variant is one alternative of a Union.
type Variant struct {
	Name    string // the Go field, a pointer to the payload
	Role    VariantRole
	Tag     string   // VariantTagged: the discriminator's value
	Keys    []string // VariantShape: members that tell it apart
	Payload *Object

	offset uintptr
	tagKey string // VariantTagged: `"discriminator":"tag"`
	tagAt  uintptr
	typ    reflect.Type
	hasTag bool // VariantCatchAll: the payload has a string member holding the tag
}

// Union describes a generated object union.
type Union struct {
	// Name is the Go name, for messages.
	Name string
	// Type is a nil pointer of the union struct.
	Type any
	// Discriminator is the tag member, "" for a union told apart by shape.
	Discriminator string
	// Variants in declaration order.
	Variants []Variant
	// Order is the order shape variants are tried in, by index; nil: Variants'.
	Order []int
	// KeepsUnknown: lenient decoding keeps an unknown tag in the Unknown field.
	KeepsUnknown bool

	once    sync.Once
	typ     reflect.Type // the union struct
	unknown uintptr      // offset of the Unknown field
	names   string       // the variants' names, comma separated
	noMatch string       // the error of an object no shape variant matches
	set     int          // len(Variants), plus one with KeepsUnknown
	// The first variant of each of these roles, -1 for none.
	fallback, absent, catchAll int
	shapes                     []int // order(), kept
}

func (u *Union) layout() *Union {
	u.once.Do(u.resolve)
	return u
}

func (u *Union) resolve() {
	t := reflect.TypeOf(u.Type).Elem()
	u.typ = t
	u.fallback, u.absent = u.variantOf(VariantFallback), u.variantOf(VariantAbsent)
	u.catchAll = u.variantOf(VariantCatchAll)
	u.shapes = u.order()
	if u.KeepsUnknown {
		u.unknown = field(t, "Unknown", reflect.TypeFor[*UnknownVariant]()).Offset
	}
	var names, keys []string
	for i := range u.Variants {
		v := &u.Variants[i]
		o := v.Payload.layout()
		v.typ = reflect.TypeOf(o.Type).Elem()
		v.offset = field(t, v.Name, reflect.PointerTo(v.typ)).Offset
		v.tagKey = fmt.Sprintf("%q:%q", u.Discriminator, v.Tag)
		if i, ok := o.byName[u.Discriminator]; ok && v.Role == VariantCatchAll {
			m := &o.Members[i]
			v.hasTag, v.tagAt = m.Value.Shape == ShapeString && m.Flags&Pointer == 0, m.offset
		}
		names = append(names, v.Name)
	}
	for _, i := range u.order() {
		for _, k := range u.Variants[i].Keys {
			keys = append(keys, fmt.Sprintf("%q", k))
		}
	}
	u.names = strings.Join(names, ", ")
	u.noMatch = "matches no variant of " + u.Name + ": expected a member " + strings.Join(keys, " or ")
	u.set = len(u.Variants)
	if u.KeepsUnknown {
		u.set++
	}
}

// order is the indexes of the variants in the order shape selection tries them.
func (u *Union) order() []int {
	if u.Order != nil {
		return u.Order
	}
	out := make([]int, len(u.Variants))
	for i := range out {
		out[i] = i
	}
	return out
}

// pointer is the union struct v points to (see Object.pointer).
func (u *Union) pointer(v any) unsafe.Pointer {
	u.layout()
	e, want := (*eface)(unsafe.Pointer(&v)), (*eface)(unsafe.Pointer(&u.Type))
	if e.typ != want.typ {
		panic(fmt.Sprintf("wire: table of %T used on a %T", u.Type, v))
	}
	return e.data
}

// payloadOf is the payload of variant v of the union at p, nil when unset.
func payloadOf(p unsafe.Pointer, v *Variant) unsafe.Pointer {
	return *(*unsafe.Pointer)(at(p, v.offset))
}

// unknownOf is the Unknown variant of the union at p, nil when unset.
func (u *Union) unknownOf(p unsafe.Pointer) *UnknownVariant {
	if !u.KeepsUnknown {
		return nil
	}
	return *(**UnknownVariant)(at(p, u.unknown))
}

// active is the index of the first variant set, -1 for none.
func (u *Union) active(p unsafe.Pointer) int {
	for i := range u.Variants {
		if payloadOf(p, &u.Variants[i]) != nil {
			return i
		}
	}
	return -1
}
