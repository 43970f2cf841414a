package wire

import (
	"fmt"
	"slices"
)

// Enum describes a string enumeration off the streaming path: what a cold
// enum type (see table.go) decodes and validates with, instead of a switch
// in methods of its own. It is the type's Table.
type Enum struct {
	Name string // the Go type's name, for messages
	// Type is a nil pointer of the Go type, a string type such as
	// (*Role)(nil).
	Type   any
	Values []string
	// Open: any string is a value (the listed ones are the known ones).
	Open bool
}

func (e *Enum) has(s []byte) bool {
	for _, v := range e.Values {
		if v == string(s) {
			return true
		}
	}
	return false
}

// DecodeEnum reads a string into *p, refusing one a closed e does not list.
func DecodeEnum(d *Decoder, p *string, e *Enum) error {
	s, err := d.ReadStringBytes()
	if err != nil {
		return err
	}
	if !e.Open && !e.has(s) {
		return d.Errorf("unknown %s value %q", e.Name, s)
	}
	*p = string(s)
	return nil
}

// Check adds a violation to v when s is not one of a closed e's values.
func (e *Enum) Check(v *Validator, s string) {
	if !e.Open && !slices.Contains(e.Values, s) {
		v.Add(fmt.Sprintf("unknown %s value %q", e.Name, s))
	}
}

// DecodeValue decodes one value into *v, a pointer of e's type.
func (e *Enum) DecodeValue(d *Decoder, v any) error { return DecodeEnum(d, e.string(v), e) }

// AppendValue appends the value *v.
func (e *Enum) AppendValue(b []byte, v any) []byte { return AppendString(b, *e.string(v)) }

// ValidateValue adds a violation to vd when *v is not one of e's values.
func (e *Enum) ValidateValue(vd *Validator, v any) { e.Check(vd, *e.string(v)) }
