package wire

// Generated code decodes and encodes every member through the functions in
// this file: one call per member instead of a specialised block, and one
// generic helper per container shape instead of one function per element
// type. A value is decoded in place (func(*T, *Decoder) error) and encoded
// from its address (func(*T, []byte) []byte), the signatures of the
// generated DecodeJSON and AppendJSON methods as method expressions, so
// (*ContentBlock).DecodeJSON passes straight to DecodeSlice.

// DecodeString decodes a JSON string into *p.
func DecodeString(p *string, d *Decoder) (err error) { *p, err = d.ReadString(); return err }

// DecodeBool decodes a JSON boolean into *p.
func DecodeBool(p *bool, d *Decoder) (err error) { *p, err = d.ReadBool(); return err }

// DecodeInt64 decodes an integer into *p.
func DecodeInt64(p *int64, d *Decoder) (err error) { *p, err = d.ReadInt64(); return err }

// DecodeInt32 decodes an integer into *p, rejecting one out of range.
func DecodeInt32(p *int32, d *Decoder) (err error) { *p, err = d.ReadInt32(); return err }

// DecodeUint16 decodes an integer into *p, rejecting one out of range.
func DecodeUint16(p *uint16, d *Decoder) (err error) { *p, err = d.ReadUint16(); return err }

// DecodeUint32 decodes an integer into *p, rejecting one out of range.
func DecodeUint32(p *uint32, d *Decoder) (err error) { *p, err = d.ReadUint32(); return err }

// DecodeUint64 decodes an integer into *p, rejecting one out of range.
func DecodeUint64(p *uint64, d *Decoder) (err error) { *p, err = d.ReadUint64(); return err }

// DecodeFloat64 decodes a number into *p.
func DecodeFloat64(p *float64, d *Decoder) (err error) { *p, err = d.ReadFloat64(); return err }

// DecodeRaw keeps the next value, whatever it is, in *p.
func DecodeRaw(p *Raw, d *Decoder) (err error) { *p, err = d.ReadRaw(); return err }

// EncodeString appends *p as a JSON string.
func EncodeString(p *string, b []byte) []byte { return AppendString(b, *p) }

// EncodeBool appends *p.
func EncodeBool(p *bool, b []byte) []byte { return AppendBool(b, *p) }

// EncodeInt64 appends *p.
func EncodeInt64(p *int64, b []byte) []byte { return AppendInt(b, *p) }

// EncodeInt32 appends *p.
func EncodeInt32(p *int32, b []byte) []byte { return AppendInt(b, int64(*p)) }

// EncodeUint16 appends *p.
func EncodeUint16(p *uint16, b []byte) []byte { return AppendUint(b, uint64(*p)) }

// EncodeUint32 appends *p.
func EncodeUint32(p *uint32, b []byte) []byte { return AppendUint(b, uint64(*p)) }

// EncodeUint64 appends *p.
func EncodeUint64(p *uint64, b []byte) []byte { return AppendUint(b, *p) }

// EncodeFloat64 appends *p.
func EncodeFloat64(p *float64, b []byte) []byte { return AppendFloat(b, *p) }

// EncodeRaw appends *p unchanged (null when empty).
func EncodeRaw(p *Raw, b []byte) []byte { return AppendRaw(b, *p) }

// DecodeSlice decodes an array into *s, each item in place with elem. An
// empty array gives a non-nil empty slice, so [] stays distinguishable from
// absent. In lenient mode with skipInvalid, items that fail to decode (short
// of a syntax error) are dropped.
func DecodeSlice[T any](d *Decoder, s *[]T, skipInvalid bool, elem func(*T, *Decoder) error) error {
	if err := d.BeginArray(); err != nil {
		return err
	}
	out := []T{}
	for i := 0; ; i++ {
		ok, err := d.NextItem()
		if err != nil {
			return err
		}
		if !ok {
			*s = out
			return nil
		}
		m := d.Mark()
		var zero T
		out = append(out, zero)
		if err := elem(&out[len(out)-1], d); err != nil {
			if !skipInvalid || !d.Lenient() || IsSyntax(err) {
				return AtIndex(err, i)
			}
			out[len(out)-1] = zero
			out = out[:len(out)-1]
			d.Rewind(m)
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
}

// DecodeNullableSlice is DecodeSlice for an array whose items may be null
// (kept as nil).
func DecodeNullableSlice[T any](d *Decoder, s *[]*T, skipInvalid bool, elem func(*T, *Decoder) error) error {
	return DecodeSlice(d, s, skipInvalid, func(p **T, d *Decoder) error {
		if d.TryNull() {
			*p = nil
			return nil
		}
		*p = new(T)
		return elem(*p, d)
	})
}

// DecodeMap decodes an object used as a map into *m, each value with elem.
func DecodeMap[T any](d *Decoder, m *map[string]T, elem func(*T, *Decoder) error) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	out := map[string]T{}
	var x *T // one scratch value for the whole map
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			*m = out
			return nil
		}
		name := string(key)
		if x == nil {
			x = new(T)
		}
		var zero T
		*x = zero
		if err := elem(x, d); err != nil {
			return AtKey(err, name)
		}
		out[name] = *x
	}
}

// DecodeRawMap is DecodeMap for values kept as raw JSON (such as _meta),
// the common case, without the scratch value.
func DecodeRawMap(d *Decoder, m *map[string]Raw) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	out := map[string]Raw{}
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			*m = out
			return nil
		}
		name := string(key)
		raw, err := d.ReadRaw()
		if err != nil {
			return AtKey(err, name)
		}
		out[name] = raw
	}
}

// DecodeRawMapMember decodes member key, a map of raw values that may be
// null (leaving *m nil) and that lenient decoding leaves nil when it is
// invalid (see Recover): every "_meta" member, decoded here once rather than
// in each type's generated code.
func DecodeRawMapMember(d *Decoder, m *map[string]Raw, key string) error {
	if d.TryNull() {
		*m = nil
		return nil
	}
	mark := d.Mark()
	if err := DecodeRawMap(d, m); err != nil {
		*m = nil
		return AtKey(d.Recover(mark, err), key)
	}
	return nil
}

// DecodeNullableMap is DecodeMap for an object whose values may be null
// (kept as nil).
func DecodeNullableMap[T any](d *Decoder, m *map[string]*T, elem func(*T, *Decoder) error) error {
	return DecodeMap(d, m, func(p **T, d *Decoder) error {
		if d.TryNull() {
			*p = nil
			return nil
		}
		*p = new(T)
		return elem(*p, d)
	})
}

// AppendSlice appends s as an array, each item with elem; nil appends [].
func AppendSlice[T any](b []byte, s []T, elem func(*T, []byte) []byte) []byte {
	b = append(b, '[')
	for i := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(&s[i], b)
	}
	return append(b, ']')
}

// AppendNullableSlice is AppendSlice for items that may be nil (null).
func AppendNullableSlice[T any](b []byte, s []*T, elem func(*T, []byte) []byte) []byte {
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		if x == nil {
			b = append(b, "null"...)
		} else {
			b = elem(x, b)
		}
	}
	return append(b, ']')
}

// AppendMap appends m as an object with its keys sorted, so output is
// deterministic; nil appends {}.
func AppendMap[T any](b []byte, m map[string]T, elem func(*T, []byte) []byte) []byte {
	b = append(b, '{')
	var x *T // one scratch value for the whole map
	for i, k := range SortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		if x == nil {
			x = new(T)
		}
		*x = m[k]
		b = elem(x, b)
	}
	return append(b, '}')
}

// AppendRawMap is AppendMap for values kept as raw JSON, without the
// scratch value.
func AppendRawMap(b []byte, m map[string]Raw) []byte {
	b = append(b, '{')
	for i, k := range SortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = AppendRaw(b, m[k])
	}
	return append(b, '}')
}

// AppendNullableMap is AppendMap for values that may be nil (null).
func AppendNullableMap[T any](b []byte, m map[string]*T, elem func(*T, []byte) []byte) []byte {
	return AppendMap(b, m, func(p **T, b []byte) []byte {
		if *p == nil {
			return append(b, "null"...)
		}
		return elem(*p, b)
	})
}

// Key appends an object member's quoted name and colon (key holds both,
// `"name":`), after a comma when *comma says a member was written before.
// Out of line: see Validator.Push.
//
//go:noinline
func Key(b []byte, comma *bool, key string) []byte {
	if *comma {
		b = append(b, ',')
	}
	*comma = true
	return append(b, key...)
}

// KeepUnknown reads the value of a member the type does not declare and
// keeps it, by name, in *sink; a nil sink drops it.
func (d *Decoder) KeepUnknown(key []byte, sink *Fields) error {
	name := string(key)
	raw, err := d.ReadRaw()
	if err != nil {
		return AtKey(err, name)
	}
	if sink != nil {
		*sink = append(*sink, Field{Name: name, Value: raw})
	}
	return nil
}

// Recover handles a member that failed to decode with err, for a schema that
// treats an invalid value as absent: in lenient mode, short of a syntax
// error, it rewinds to m, skips the value and reports nil (the caller leaves
// the member unset); otherwise it returns err.
func (d *Decoder) Recover(m Mark, err error) error {
	if !d.Lenient() || IsSyntax(err) {
		return err
	}
	d.Rewind(m)
	return d.Skip()
}
