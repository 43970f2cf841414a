package load

import (
	"encoding/json"
	"fmt"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

var knownTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

var knownFormats = map[string]bool{"int32": true, "uint16": true, "uint32": true, "int64": true, "uint64": true, "double": true, "float": true, "uint8": true, "int8": true, "int16": true, "uint": true, "int": true, "uri": true,
	"date-time": true, "date": true, "uuid": true, "regex": true}

// convert reads the schema n found at ptr in file, refusing anything the
// typed Schema cannot hold: a keyword no reader knows, or a known keyword
// with a value of the wrong shape. root allows $schema and $defs.
func convert(file, ptr string, n *Node, root bool) (*Schema, error) {
	s := &Schema{File: file, Pointer: ptr}
	c := &converter{file, ptr}
	switch n.Kind {
	case Bool:
		s.IsBool, s.BoolValue = true, n.Bool
		return s, nil
	case Object:
	default:
		return nil, c.bad("", fmt.Sprintf("a schema must be an object or a boolean, found %s", n.Kind))
	}
	// Each reader owns a group of keywords and reports whether k is one of them.
	readers := []func(k string, v *Node, c *converter) (bool, error){
		s.structure, s.assertion, s.extension, s.vocabulary,
	}
	for _, m := range n.Members {
		k, v := m.Name, m.Value
		if (k == "$schema" || k == "$defs") && !root {
			return nil, c.bad(k, k+" is only allowed at the document root")
		}
		known := false
		for _, read := range readers {
			ok, err := read(k, v, c)
			if err != nil {
				return nil, err
			}
			if known = ok; known {
				break
			}
		}
		if !known {
			return nil, c.bad(k, fmt.Sprintf("unknown keyword %q", k))
		}
	}
	return s, nil
}

// structure reads the keywords that shape a schema: references, types,
// members, items and the combinators.
func (s *Schema) structure(k string, v *Node, c *converter) (ok bool, err error) {
	switch k {
	case "$schema":
		s.SchemaURI, err = c.str(k, v)
	case "$defs":
		err = s.defs(k, v, c)
	case "$ref":
		s.Ref, err = c.str(k, v)
	case "type":
		s.Types, err = c.types(k, v)
	case "properties":
		// Members here are property names, not keywords: "pattern" or
		// "format" as a property name is legitimate (elicitation's
		// StringPropertySchema).
		s.Properties, err = c.schemaMap(k, v, k+" must be an object")
	case "required":
		s.Required, err = c.strings(k, v)
	case "additionalProperties":
		s.AdditionalProperties, err = c.sub(k, v)
	case "unevaluatedProperties":
		s.UnevaluatedProperties, err = c.sub(k, v)
	case "items":
		s.Items, err = c.sub(k, v)
	case "allOf":
		s.AllOf, err = c.list(k, v)
	case "anyOf":
		s.AnyOf, err = c.list(k, v)
	case "oneOf":
		s.OneOf, err = c.list(k, v)
	case "not":
		s.Not, err = c.sub(k, v)
	default:
		return false, nil
	}
	return true, err
}

// assertion reads the keywords that constrain or describe a value.
func (s *Schema) assertion(k string, v *Node, c *converter) (ok bool, err error) {
	switch k {
	case "const":
		s.Const = v
	case "enum":
		if v.Kind != Array || len(v.Items) == 0 {
			return true, c.bad(k, "enum must be a non-empty array")
		}
		s.Enum = v.Items
	case "default":
		s.Default = v
	case "format":
		if s.Format, err = c.str(k, v); err == nil && !knownFormats[s.Format] {
			err = c.bad(k, fmt.Sprintf("unknown format %q", s.Format))
		}
	case "minimum":
		s.Minimum, err = c.bound(k, v)
	case "maximum":
		s.Maximum, err = c.bound(k, v)
	case "minLength":
		s.MinLength, err = c.nonNegInt(k, v)
	case "maxLength":
		s.MaxLength, err = c.nonNegInt(k, v)
	case "pattern":
		s.Pattern, err = c.str(k, v)
		s.HasPattern = true
		if err == nil {
			_, err = Pattern(c.file, c.ptr+"/pattern", s.Pattern)
		}
	case "title":
		s.Title, err = c.str(k, v)
	case "description":
		s.Description, err = c.str(k, v)
	case "discriminator":
		s.Discriminator, err = c.discriminator(k, v)
	default:
		return false, nil
	}
	return true, err
}

// extension reads the x- keywords: ACP's own and acpgen's overlay ones.
func (s *Schema) extension(k string, v *Node, c *converter) (ok bool, err error) {
	switch k {
	case "x-method":
		if s.XMethod, err = c.str(k, v); err == nil && s.XMethod == "" {
			err = c.bad(k, "x-method must be a non-empty string")
		}
	case "x-side":
		if s.XSide, err = c.str(k, v); err == nil {
			switch s.XSide {
			case "agent", "client", "protocol", "proxy", "both":
			default:
				err = c.bad(k, fmt.Sprintf("unknown x-side %q", s.XSide))
			}
		}
	case "x-deserialize-default-on-error":
		s.XDefaultOnError, err = c.flag(k, v)
	case "x-deserialize-skip-invalid-items":
		s.XSkipInvalidItems, err = c.flag(k, v)
	case "x-deserialize-default-on-null":
		s.XDefaultOnNull, err = c.flag(k, v)
	case "x-docs-ignore":
		s.XDocsIgnore, err = c.flag(k, v)
	case "x-acpgen-ephemeral":
		s.XEphemeral, err = c.flag(k, v)
	case "x-acpgen-pattern-name":
		s.XPatternName, err = c.str(k, v)
	case "x-acpgen-meta":
		s.XMeta, err = c.schemaMap(k, v, "x-acpgen-meta must map namespace keys to schemas")
	case "x-acpgen-overlay":
		s.XOverlay, err = c.strings(k, v)
	case "x-acpgen-aliases":
		s.XAliases, err = c.strings(k, v)
	default:
		return false, nil
	}
	return true, err
}

// defs reads the root's $defs, in document order and indexed by name.
func (s *Schema) defs(k string, v *Node, c *converter) error {
	if v.Kind != Object {
		return c.bad(k, "$defs must be an object")
	}
	s.defsIndex = map[string]*Schema{}
	for _, d := range v.Members {
		x, err := convert(c.file, DefPointer(d.Name), d.Value, false)
		if err != nil {
			return err
		}
		s.Defs = append(s.Defs, Def{d.Name, x})
		s.defsIndex[d.Name] = x
	}
	return nil
}

// converter reads the keywords of one schema object; its methods report
// errors at the keyword's JSON pointer.
type converter struct {
	file, ptr string
}

func (c *converter) bad(key, msg string) error {
	p := c.ptr
	if key != "" {
		p += "/" + jsonpointer.Escape(key)
	}
	return &Error{c.file, p, msg}
}

func (c *converter) sub(key string, v *Node) (*Schema, error) {
	return convert(c.file, c.ptr+"/"+jsonpointer.Escape(key), v, false)
}

// list reads a combinator: a non-empty array of schemas.
func (c *converter) list(key string, v *Node) ([]*Schema, error) {
	if v.Kind != Array || len(v.Items) == 0 {
		return nil, c.bad(key, key+" must be a non-empty array of schemas")
	}
	out := make([]*Schema, len(v.Items))
	for i, it := range v.Items {
		x, err := convert(c.file, fmt.Sprintf("%s/%s/%d", c.ptr, key, i), it, false)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// schemaMap reads an object whose members are names (not keywords) mapped to
// schemas, in document order.
func (c *converter) schemaMap(key string, v *Node, msg string) ([]Property, error) {
	if v.Kind != Object {
		return nil, c.bad(key, msg)
	}
	var out []Property
	for _, m := range v.Members {
		x, err := convert(c.file, c.ptr+"/"+key+"/"+jsonpointer.Escape(m.Name), m.Value, false)
		if err != nil {
			return nil, err
		}
		out = append(out, Property{m.Name, x})
	}
	return out, nil
}

// types reads "type": one known type name or an array of them.
func (c *converter) types(key string, v *Node) ([]string, error) {
	var out []string
	switch v.Kind {
	case String:
		out = []string{v.String}
	case Array:
		for _, it := range v.Items {
			if it.Kind != String {
				return nil, c.bad(key, "type must be a string or an array of strings")
			}
			out = append(out, it.String)
		}
	default:
		return nil, c.bad(key, "type must be a string or an array of strings")
	}
	for _, t := range out {
		if !knownTypes[t] {
			return nil, c.bad(key, fmt.Sprintf("unknown type %q", t))
		}
	}
	return out, nil
}

func (c *converter) str(key string, v *Node) (string, error) {
	if v.Kind != String {
		return "", c.bad(key, key+" must be a string")
	}
	return v.String, nil
}

func (c *converter) strings(key string, v *Node) ([]string, error) {
	if v.Kind != Array {
		return nil, c.bad(key, key+" must be an array of strings")
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind != String {
			return nil, c.bad(key, key+" must be an array of strings")
		}
		out = append(out, it.String)
	}
	return out, nil
}

func (c *converter) flag(key string, v *Node) (bool, error) {
	if v.Kind != Bool {
		return false, c.bad(key, key+" must be a boolean")
	}
	return v.Bool, nil
}

func (c *converter) nonNegInt(key string, v *Node) (*int, error) {
	if v.Kind != Number {
		return nil, c.bad(key, key+" must be a non-negative integer")
	}
	i, err := v.Number.Int64()
	if err != nil || i < 0 {
		return nil, c.bad(key, key+" must be a non-negative integer")
	}
	x := int(i)
	return &x, nil
}

// bound reads minimum or maximum.
func (c *converter) bound(key string, v *Node) (*json.Number, error) {
	if v.Kind != Number {
		return nil, c.bad(key, key+" must be a number")
	}
	n := v.Number
	return &n, nil
}

// discriminator reads discriminator.propertyName, the only member allowed.
func (c *converter) discriminator(key string, v *Node) (string, error) {
	if v.Kind != Object {
		return "", c.bad(key, "discriminator must be an object")
	}
	var name string
	var err error
	for _, dm := range v.Members {
		if dm.Name != "propertyName" {
			return "", c.bad(key, fmt.Sprintf("unknown discriminator keyword %q", dm.Name))
		}
		name, err = c.str(key, dm.Value)
	}
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", c.bad(key, "discriminator needs propertyName")
	}
	return name, nil
}
