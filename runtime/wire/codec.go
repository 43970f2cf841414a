package wire

// Table is how the runtime decodes, encodes and validates the values of
// one generated type, each given as a pointer to it: an *Object for a
// struct described by data, a *Union for an object union described by
// data, Methods for a type whose generated code does it. What reaches a
// generated type from outside its package (runtime/dispatch's method
// descriptors, the generated tests) holds the type's Table, so a type
// described by data needs no codec methods of its own.
type Table interface {
	// DecodeValue decodes one value into *v, as DecodeJSON does.
	DecodeValue(d *Decoder, v any) error
	// AppendValue appends the encoding of *v to b, as AppendJSON does.
	AppendValue(b []byte, v any) []byte
	// ValidateValue adds the violations of *v to vd at vd's position.
	ValidateValue(vd *Validator, v any)
}

// DecodeValue decodes one object into *v (see DecodeTable).
func (o *Object) DecodeValue(d *Decoder, v any) error { return DecodeTable(d, v, o) }

// AppendValue appends the object *v (see AppendTable).
func (o *Object) AppendValue(b []byte, v any) []byte { return AppendTable(b, v, o) }

// ValidateValue adds the violations of the object *v to vd (see ValidateTable).
func (o *Object) ValidateValue(vd *Validator, v any) { ValidateTable(vd, v, o) }

// DecodeValue decodes one object union into *v (see DecodeUnion).
func (u *Union) DecodeValue(d *Decoder, v any) error { return DecodeUnion(d, v, u) }

// AppendValue appends the object union *v (see AppendUnion).
func (u *Union) AppendValue(b []byte, v any) []byte { return AppendUnion(b, v, u) }

// ValidateValue adds the violations of the object union *v to vd (see ValidateUnion).
func (u *Union) ValidateValue(vd *Validator, v any) { ValidateUnion(vd, v, u) }

// OwnCodec is the Table of a generated type with a codec of its own (a
// Coded type, one of the hot types): it calls the type's methods.
type OwnCodec struct{}

// DecodeValue calls v's DecodeJSON.
func (OwnCodec) DecodeValue(d *Decoder, v any) error { return v.(Decodable).DecodeJSON(d) }

// AppendValue calls v's AppendJSON.
func (OwnCodec) AppendValue(b []byte, v any) []byte { return v.(Appender).AppendJSON(b) }

// ValidateValue calls v's ValidateWith.
func (OwnCodec) ValidateValue(vd *Validator, v any) { v.(Coded).ValidateWith(vd) }

// DecodeWith decodes data into *v with t, requiring that nothing but
// whitespace follows: Decode for a type reached through its Table.
func DecodeWith(data []byte, v any, t Table, mode Mode) error {
	d := acquireDecoder(data, mode)
	return releaseDecoder(d, t.DecodeValue(d, v))
}

// MarshalWith encodes *v with t for encoding/json after checking that every
// union in it has exactly one variant set (a *EncodeError naming the Go type
// name otherwise), as MarshalTable does for an Object.
func MarshalWith(v any, t Table, name string) ([]byte, error) {
	vd := validators.Get().(*Validator)
	*vd = Validator{}
	t.ValidateValue(vd, v)
	err := vd.EncodeErr(name)
	*vd = Validator{} // the error owns the violations now
	validators.Put(vd)
	if err != nil {
		return nil, err
	}
	return t.AppendValue(nil, v), nil
}
