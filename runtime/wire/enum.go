package wire

import (
	"fmt"
	"slices"
)

// Enum is the values of a closed string enumeration: what a cold enum type
// (see table.go) decodes and validates with, instead of a switch in each of
// its methods.
type Enum struct {
	Name   string // the Go type's name, for messages
	Values []string
}

func (e *Enum) has(s []byte) bool {
	for _, v := range e.Values {
		if v == string(s) {
			return true
		}
	}
	return false
}

// DecodeEnum reads a string into *p, refusing one e does not list.
func DecodeEnum(d *Decoder, p *string, e *Enum) error {
	s, err := d.ReadStringBytes()
	if err != nil {
		return err
	}
	if !e.has(s) {
		return d.Errorf("unknown %s value %q", e.Name, s)
	}
	*p = string(s)
	return nil
}

// Check adds a violation to v when s is not one of e's values.
func (e *Enum) Check(v *Validator, s string) {
	if !slices.Contains(e.Values, s) {
		v.Add(fmt.Sprintf("unknown %s value %q", e.Name, s))
	}
}
