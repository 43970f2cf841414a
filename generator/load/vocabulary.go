package load

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Vocabulary holds the JSON Schema 2020-12 keywords beyond those the pinned
// ACP schema uses: the ones schema generators such as schemars emit for
// common Rust types (uniqueItems for sets, minItems and maxItems for
// fixed-size arrays, exclusive bounds, ...), which upstream could start
// using in any release. Knowing them here keeps an upstream addition from
// failing the loader; an unknown keyword still does.
type Vocabulary struct {
	MinItems, MaxItems *int
	UniqueItems        bool

	ExclusiveMinimum, ExclusiveMaximum *json.Number
	MultipleOf                         *json.Number // > 0

	// PropertyNames constrains every member name of an object.
	PropertyNames *Schema
	// PatternProperties are the schemas of members whose names match a
	// pattern (Property.Name holds the pattern), in schema order.
	PatternProperties []Property
	// DependentRequired: when the member Name is present, Requires must be too.
	DependentRequired []Dependency

	// Annotations: recorded, never enforced (JSON Schema 2020-12 makes the
	// content keywords annotations; validators do not decode the content).
	ContentEncoding  string
	ContentMediaType string
	Comment          string // $comment
	Deprecated       bool
	ReadOnly         bool
	WriteOnly        bool
	Examples         []*Node
}

// Dependency is one entry of dependentRequired.
type Dependency struct {
	Name     string
	Requires []string
}

// vocabulary reads keyword k of s if it is one of Vocabulary's; ok is false
// for a keyword it does not know.
func (s *Schema) vocabulary(k string, v *Node, c *converter) (ok bool, err error) {
	switch k {
	case "minItems":
		s.MinItems, err = c.nonNegInt(k, v)
	case "maxItems":
		s.MaxItems, err = c.nonNegInt(k, v)
	case "uniqueItems":
		s.UniqueItems, err = c.flag(k, v)
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = c.number(k, v)
	case "exclusiveMaximum":
		s.ExclusiveMaximum, err = c.number(k, v)
	case "multipleOf":
		s.MultipleOf, err = c.positive(k, v)
	case "propertyNames":
		s.PropertyNames, err = c.sub(k, v)
	case "patternProperties":
		s.PatternProperties, err = c.patternProperties(k, v)
	case "dependentRequired":
		s.DependentRequired, err = c.dependentRequired(k, v)
	case "contentEncoding":
		s.ContentEncoding, err = c.str(k, v)
	case "contentMediaType":
		s.ContentMediaType, err = c.str(k, v)
	case "$comment":
		s.Comment, err = c.str(k, v)
	case "deprecated":
		s.Deprecated, err = c.flag(k, v)
	case "readOnly":
		s.ReadOnly, err = c.flag(k, v)
	case "writeOnly":
		s.WriteOnly, err = c.flag(k, v)
	case "examples":
		if v.Kind != Array {
			return true, c.bad(k, "examples must be an array")
		}
		s.Examples = v.Items
	default:
		return false, nil
	}
	return true, err
}

// number reads a numeric keyword. Draft 4 wrote exclusiveMinimum and
// exclusiveMaximum as booleans; 2020-12 (the dialect of the ACP schemas)
// writes the bound itself, and only that form is read.
func (c *converter) number(key string, v *Node) (*json.Number, error) {
	if v.Kind != Number {
		return nil, c.bad(key, key+" must be a number (the JSON Schema 2020-12 form)")
	}
	n := v.Number
	return &n, nil
}

func (c *converter) positive(key string, v *Node) (*json.Number, error) {
	n, err := c.number(key, v)
	if err != nil {
		return nil, err
	}
	if r, ok := new(big.Rat).SetString(n.String()); !ok || r.Sign() <= 0 {
		return nil, c.bad(key, key+" must be a number greater than 0")
	}
	return n, nil
}

// Pattern compiles a pattern keyword. Generated validators use Go's regexp
// (RE2), so a pattern it cannot compile (a look-around, a back-reference) is
// refused here, at its pointer, not when the generated package starts.
func Pattern(file, pointer, re string) (*regexp.Regexp, error) {
	x, err := regexp.Compile(re)
	if err != nil {
		return nil, &Error{file, pointer, fmt.Sprintf("pattern %q is not supported by Go's regexp (RE2): %v", re, err)}
	}
	return x, nil
}

func (c *converter) patternProperties(key string, v *Node) ([]Property, error) {
	if v.Kind != Object {
		return nil, c.bad(key, key+" must map patterns to schemas")
	}
	var out []Property
	for _, m := range v.Members {
		ptr := c.ptr + "/" + key + "/" + jsonpointer.Escape(m.Name)
		if _, err := Pattern(c.file, ptr, m.Name); err != nil {
			return nil, err
		}
		x, err := convert(c.file, ptr, m.Value, false)
		if err != nil {
			return nil, err
		}
		out = append(out, Property{m.Name, x})
	}
	return out, nil
}

func (c *converter) dependentRequired(key string, v *Node) ([]Dependency, error) {
	msg := key + " must map member names to arrays of member names"
	if v.Kind != Object {
		return nil, c.bad(key, msg)
	}
	var out []Dependency
	for _, m := range v.Members {
		if m.Value.Kind != Array {
			return nil, c.bad(key, msg)
		}
		d := Dependency{Name: m.Name}
		for _, it := range m.Value.Items {
			if it.Kind != String {
				return nil, c.bad(key, msg)
			}
			d.Requires = append(d.Requires, it.String)
		}
		out = append(out, d)
	}
	return out, nil
}
