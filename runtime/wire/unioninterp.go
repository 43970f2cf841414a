package wire

import (
	"reflect"
	"unsafe"
)

// This file interprets Union tables (uniontable.go): the variant is
// selected from the object ahead, then its payload's members are read with
// the payload's Object table, as generated union code does.

// DecodeUnion decodes one object union described by u into *v, keeping
// unknown members in the selected payload. When the tagged variant fails,
// the object is retried as the fallback variant, as anyOf allows.
func DecodeUnion(d *Decoder, v any, u *Union) error {
	p := u.pointer(v)
	zeroUnion(u, p)
	return u.decodeAt(d, p)
}

// decodeAt decodes the union at p, zero, after its layout is read.
func (u *Union) decodeAt(d *Decoder, p unsafe.Pointer) error {
	fallback := u.fallback
	m := d.Mark()
	err := u.decode(d, p, -1)
	if err == nil || fallback < 0 || IsSyntax(err) || payloadOf(p, &u.Variants[fallback]) != nil {
		return err
	}
	d.Rewind(m)
	if u.decode(d, p, fallback) != nil {
		return err
	}
	return nil
}

// decode decodes the union at p once: variant as selected ahead, or the
// variant of index as when as is not -1.
func (u *Union) decode(d *Decoder, p unsafe.Pointer, as int) error {
	if as >= 0 { // a retry: the first try left its payload
		zeroUnion(u, p)
	}
	i, err := u.choose(d, p, as)
	if err != nil {
		return err
	}
	next := 0
	return DecodeObject(d, u.sink(p, i), func(d *Decoder, key []byte) (int, error) {
		return u.member(d, p, i, key, &next)
	}, nil, func(w int) []string {
		return u.required(p, i, w)
	})
}

// choose sets the variant of the union at p, selected ahead or, when as is
// not -1, variant as; it returns its index, -1 for an unknown variant.
func (u *Union) choose(d *Decoder, p unsafe.Pointer, as int) (int, error) {
	if as >= 0 {
		return as, u.setVariant(d, p, as)
	}
	return u.selectVariant(d, p)
}

// sink is where the union at p keeps members its variant (index i, -1
// for none) does not declare: the selected payload's Unknown, or the
// Unknown variant's Fields.
func (u *Union) sink(p unsafe.Pointer, i int) *Fields {
	if i >= 0 {
		vr := &u.Variants[i]
		return (*Fields)(at(payloadOf(p, vr), vr.Payload.unknown))
	}
	if x := u.unknownOf(p); x != nil {
		return &x.Fields
	}
	return nil
}

// member decodes the member named key of variant i (-1 for none or an
// unknown one) of the union at p, as DecodeMember does for an Object; a
// payload embedding a union reads that union's members a level down.
func (u *Union) member(d *Decoder, p unsafe.Pointer, i int, key []byte, next *int) (int, error) {
	if i < 0 {
		if u.unknownOf(p) != nil && string(key) == u.Discriminator {
			return Optional, d.Skip()
		}
		return NotMember, nil
	}
	vr := &u.Variants[i]
	if (vr.Role == VariantTagged || vr.Role == VariantAbsent) && string(key) == u.Discriminator {
		return Optional, d.Skip()
	}
	q := payloadOf(p, vr)
	slot, err := memberNext(d, q, vr.Payload, key, next)
	if slot != NotMember || vr.Payload.Union == nil {
		return slot, err
	}
	return embeddedMember(d, q, vr.Payload, key)
}

// embeddedMember decodes the member named key of the union embedded in the
// struct at p described by o, its required slot a level down. Levels below
// the first are rare: their members are found by name, with no order hint.
func embeddedMember(d *Decoder, p unsafe.Pointer, o *Object, key []byte) (int, error) {
	u, up := o.Union, at(p, o.unionAt)
	next := maxMembers
	return Inner(u.member(d, up, u.active(up), key, &next))
}

// maxMembers is past every member index: memberNext finds the member by
// name and clears it before decoding, as for a duplicate.
const maxMembers = int(^uint(0) >> 1)

// required names the required members of level w of variant i (-1 for
// none) of the union at p.
func (u *Union) required(p unsafe.Pointer, i, w int) []string {
	if i < 0 {
		return nil
	}
	vr := &u.Variants[i]
	return vr.Payload.requiredAt(payloadOf(p, vr), w)
}

// requiredAt names the required members of level w of the struct at p
// described by o: its own at level 0, then its embedded union's selected
// variant's.
func (o *Object) requiredAt(p unsafe.Pointer, w int) []string {
	if w == 0 {
		return o.required.Required
	}
	if o.Union == nil {
		return nil
	}
	up := at(p, o.unionAt)
	return o.Union.required(up, o.Union.active(up), w-1)
}

// decodeEmbedding decodes the struct at p described by o, which embeds a
// union: the variant selected ahead (or, failing, retried as the fallback),
// then the struct's members and the variant's in one object.
func decodeEmbedding(d *Decoder, p unsafe.Pointer, o *Object) error {
	u, up := o.Union, at(p, o.unionAt)
	fallback := u.fallback
	m := d.Mark()
	err := decodeEmbeddingAs(d, p, o, -1)
	if err == nil || fallback < 0 || IsSyntax(err) || payloadOf(up, &u.Variants[fallback]) != nil {
		return err
	}
	d.Rewind(m)
	if decodeEmbeddingAs(d, p, o, fallback) != nil {
		return err
	}
	return nil
}

func decodeEmbeddingAs(d *Decoder, p unsafe.Pointer, o *Object, as int) error {
	if as >= 0 { // a retry: the first try left its members
		zeroStruct(o, p)
	}
	u, up := o.Union, at(p, o.unionAt)
	i, err := u.choose(d, up, as)
	if err != nil {
		return err
	}
	own, inner := 0, 0
	return DecodeObject(d, (*Fields)(at(p, o.unknown)), func(d *Decoder, key []byte) (int, error) {
		if slot, err := memberNext(d, p, o, key, &own); slot != NotMember {
			return slot, err
		}
		return Inner(u.member(d, up, i, key, &inner))
	}, nil, func(w int) []string {
		return o.requiredAt(p, w)
	})
}

// zeroUnion sets the union at p to its zero value.
func zeroUnion(u *Union, p unsafe.Pointer) { zeroAt(u.typ, p) }

// setVariant sets variant i of the union at p to a new payload and, when
// the payload embeds a union, selects that union's variant from the object
// ahead too: all levels' members are members of the one object.
func (u *Union) setVariant(d *Decoder, p unsafe.Pointer, i int) error {
	v := &u.Variants[i]
	q := reflect.New(v.typ).UnsafePointer()
	*(*unsafe.Pointer)(at(p, v.offset)) = q
	if o := v.Payload; o.Union != nil {
		_, err := o.Union.selectVariant(d, at(q, o.unionAt))
		return err
	}
	return nil
}

// selectVariant sets the variant the object ahead selects and returns its
// index, -1 for an unknown variant.
func (u *Union) selectVariant(d *Decoder, p unsafe.Pointer) (int, error) {
	if u.Discriminator == "" {
		return u.selectByShape(d, p)
	}
	return u.selectByTag(d, p)
}

// variantOf is the index of the first variant of role r, -1 for none.
func (u *Union) variantOf(r VariantRole) int {
	for i := range u.Variants {
		if u.Variants[i].Role == r {
			return i
		}
	}
	return -1
}

func (u *Union) selectByTag(d *Decoder, p unsafe.Pointer) (int, error) {
	kind, tag, found, err := d.ScanKey(u.Discriminator)
	if err != nil {
		return -1, err
	}
	i := -1
	switch {
	case !found || kind == KindNull:
		if i = either(u.absent, u.fallback); i < 0 {
			return -1, d.Errorf("missing discriminator %q", u.Discriminator)
		}
	case kind != KindString:
		if i = u.fallback; i < 0 {
			return -1, AtKey(d.TypeError("string", kind), u.Discriminator)
		}
	default:
		i = u.byTag(tag)
	}
	if i >= 0 {
		return i, u.setVariant(d, p, i)
	}
	if d.Lenient() && u.KeepsUnknown {
		*(**UnknownVariant)(at(p, u.unknown)) = &UnknownVariant{Tag: string(tag)}
		return -1, nil
	}
	return -1, AtKey(d.Errorf("unknown %s %q of %s", u.Discriminator, tag, u.Name), u.Discriminator)
}

// byTag is the variant tag selects: the tagged one, else the catch-all or
// the fallback; -1 for none.
func (u *Union) byTag(tag []byte) int {
	for i := range u.Variants {
		if v := &u.Variants[i]; v.Role == VariantTagged && v.Tag == string(tag) {
			return i
		}
	}
	return either(u.catchAll, u.fallback)
}

// either is variant index i, or j when i is -1 (none).
func either(i, j int) int {
	if i >= 0 {
		return i
	}
	return j
}

func (u *Union) selectByShape(d *Decoder, p unsafe.Pointer) (int, error) {
	for _, i := range u.shapes {
		all := true
		for _, k := range u.Variants[i].Keys {
			_, _, found, err := d.ScanKey(k)
			if err != nil {
				return -1, err
			}
			all = all && found
		}
		if all {
			return i, u.setVariant(d, p, i)
		}
	}
	return -1, d.Errorf("%s", u.noMatch)
}

// AppendUnion appends the object union *v described by u: the selected
// variant's tag, then its payload's members; {} with none set.
func AppendUnion(b []byte, v any, u *Union) []byte {
	return u.appendAt(b, u.pointer(v))
}

// appendAt appends the union at p, after its layout is read.
func (u *Union) appendAt(b []byte, p unsafe.Pointer) []byte {
	b = append(b, '{')
	b, _ = u.appendVariant(b, p, false)
	return append(b, '}')
}

// appendVariant appends the selected variant's tag and members.
func (u *Union) appendVariant(b []byte, p unsafe.Pointer, comma bool) ([]byte, bool) {
	if i := u.active(p); i >= 0 {
		vr := &u.Variants[i]
		if vr.Role == VariantTagged {
			b = Key(b, &comma, vr.tagKey)
		}
		return appendMembers(b, payloadOf(p, vr), vr.Payload, comma)
	}
	if x := u.unknownOf(p); x != nil {
		return x.AppendFields(b, u.Discriminator, comma)
	}
	return b, comma
}

// ValidateUnion adds the violations of the object union *v described by u
// to vd: its payload's, a misplaced or unknown tag, and not exactly one
// variant set. Like ValidateTable it walks on a pooled Validator.
func ValidateUnion(vd *Validator, v any, u *Union) {
	w := vd.borrow()
	u.validate(w, u.pointer(v))
	vd.giveBack(w)
}

func (u *Union) validate(vd *Validator, p unsafe.Pointer) {
	n := 0
	for i := range u.Variants {
		vr := &u.Variants[i]
		q := payloadOf(p, vr)
		if q == nil {
			continue
		}
		n++
		validateObject(vd, q, vr.Payload.layout())
		if vr.Role == VariantCatchAll && vr.hasTag && u.tagged(*(*string)(at(q, vr.tagAt))) {
			vd.AddAt(u.Discriminator, "is a known "+u.Discriminator+"; the catch-all variant "+vr.Name+" is for unknown ones")
		}
	}
	if x := u.unknownOf(p); x != nil {
		n++
		vd.UnknownVariant(u.Discriminator, x.Tag, u.tagged(x.Tag))
	}
	if n != 1 {
		set := make([]bool, 0, u.set)
		for i := range u.Variants {
			set = append(set, payloadOf(p, &u.Variants[i]) != nil)
		}
		if u.KeepsUnknown {
			set = append(set, u.unknownOf(p) != nil)
		}
		vd.Variants(u.Name, u.names, set...)
	}
}

// tagged reports a tag one of u's tagged variants has.
func (u *Union) tagged(tag string) bool {
	for i := range u.Variants {
		if v := &u.Variants[i]; v.Role == VariantTagged && v.Tag == tag {
			return true
		}
	}
	return false
}
