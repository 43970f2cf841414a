package load

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Error is a loader error located by file and JSON pointer.
type Error struct {
	File    string
	Pointer string
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s#%s: %s", e.File, e.Pointer, e.Msg)
}

// Schema is one schema node with every keyword the ACP schemas use, typed.
type Schema struct {
	File    string
	Pointer string

	// IsBool marks a boolean schema (true accepts anything, false nothing).
	IsBool    bool
	BoolValue bool

	Ref   string
	Types []string // from "type"; a single type is a one-element slice

	Properties            []Property
	Required              []string
	AdditionalProperties  *Schema
	UnevaluatedProperties *Schema
	Items                 *Schema

	AllOf []*Schema
	AnyOf []*Schema
	OneOf []*Schema
	Not   *Schema

	Const      *Node
	Enum       []*Node
	Default    *Node
	Format     string
	Minimum    *json.Number
	Maximum    *json.Number
	MinLength  *int
	MaxLength  *int
	Pattern    string
	HasPattern bool

	Vocabulary

	Title         string
	Description   string
	Discriminator string // discriminator.propertyName

	XMethod           string
	XSide             string
	XDefaultOnError   bool
	XSkipInvalidItems bool
	XDefaultOnNull    bool
	XDocsIgnore       bool
	XOverlay          []string   // provenance: ids of the overlays that added or changed this node
	XEphemeral        bool       // x-acpgen-ephemeral: used for this turn only, not part of durable history
	XPatternName      string     // x-acpgen-pattern-name: what the pattern means, for error messages ("an absolute path")
	XMeta             []Property // x-acpgen-meta: typed namespaces of a _meta object (key -> schema, usually a $ref)
	SchemaURI         string     // "$schema", root only
	Defs              []Def      // "$defs", root only
	defsIndex         map[string]*Schema
}

// Property is one named entry of "properties", in schema order.
type Property struct {
	Name   string
	Schema *Schema
}

// Def is one named entry of "$defs", in schema order.
type Def struct {
	Name   string
	Schema *Schema
}

// Document is a loaded schema file.
type Document struct {
	File string
	Root *Schema
	Raw  []byte
}

// Def returns the named definition, or nil.
func (d *Document) Def(name string) *Schema { return d.Root.defsIndex[name] }

// DefPointer is the JSON pointer of the named definition in its document;
// "#" + DefPointer(name) is the $ref that names it.
func DefPointer(name string) string { return "/$defs/" + jsonpointer.Escape(name) }

// RefName is the definition a "#/$defs/<name>" $ref names, unescaped; ok is
// false for any other reference.
func RefName(ref string) (name string, ok bool) {
	name, ok = strings.CutPrefix(ref, "#/$defs/")
	return jsonpointer.Unescape(name), ok
}

// Resolve follows a "#/$defs/Name" reference.
func (d *Document) Resolve(s *Schema) (*Schema, string, error) {
	name, ok := RefName(s.Ref)
	if !ok {
		return nil, "", &Error{s.File, s.Pointer + "/$ref", fmt.Sprintf("unsupported reference %q: only #/$defs/<name> is understood", s.Ref)}
	}
	t := d.Root.defsIndex[name]
	if t == nil {
		return nil, "", &Error{s.File, s.Pointer + "/$ref", fmt.Sprintf("dangling reference %q: no such definition", s.Ref)}
	}
	return t, name, nil
}

// ReadFile loads a schema file.
func ReadFile(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, data)
}

// Load parses and strictly checks a schema document.
func Load(file string, data []byte) (*Document, error) {
	n, err := Parse(data)
	if err != nil {
		return nil, &Error{file, "", "invalid JSON: " + err.Error()}
	}
	s, err := convert(file, "", n, true)
	if err != nil {
		return nil, err
	}
	doc := &Document{File: file, Root: s, Raw: data}
	if err := checkRefs(doc, s); err != nil {
		return nil, err
	}
	return doc, nil
}

// FromNode checks a schema fragment (used for overlay-provided schemas).
func FromNode(file, pointer string, n *Node) (*Schema, error) {
	return convert(file, pointer, n, false)
}

func checkRefs(doc *Document, s *Schema) error {
	var err error
	Walk(s, func(x *Schema) bool {
		if err != nil {
			return false
		}
		if x.Ref != "" {
			_, _, err = doc.Resolve(x)
		}
		return true
	})
	return err
}

// Walk visits s and every sub-schema, depth first, in document order.
func Walk(s *Schema, f func(*Schema) bool) {
	if s == nil || !f(s) {
		return
	}
	for _, p := range s.Properties {
		Walk(p.Schema, f)
	}
	Walk(s.AdditionalProperties, f)
	Walk(s.UnevaluatedProperties, f)
	Walk(s.Items, f)
	for _, l := range [][]*Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, x := range l {
			Walk(x, f)
		}
	}
	Walk(s.Not, f)
	Walk(s.PropertyNames, f)
	for _, p := range s.PatternProperties {
		Walk(p.Schema, f)
	}
	for _, p := range s.XMeta {
		Walk(p.Schema, f)
	}
	for _, d := range s.Defs {
		Walk(d.Schema, f)
	}
}

var knownTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

var knownFormats = map[string]bool{"int32": true, "uint16": true, "uint32": true, "int64": true, "uint64": true, "double": true, "float": true, "uint8": true, "int8": true, "int16": true, "uint": true, "int": true, "uri": true,
	"date-time": true, "date": true, "uuid": true, "regex": true}

func convert(file, ptr string, n *Node, root bool) (*Schema, error) {
	s := &Schema{File: file, Pointer: ptr}
	bad := func(key, msg string) error {
		p := ptr
		if key != "" {
			p += "/" + jsonpointer.Escape(key)
		}
		return &Error{file, p, msg}
	}
	switch n.Kind {
	case Bool:
		s.IsBool, s.BoolValue = true, n.Bool
		return s, nil
	case Object:
	default:
		return nil, bad("", fmt.Sprintf("a schema must be an object or a boolean, found %s", n.Kind))
	}
	sub := func(key string, v *Node) (*Schema, error) {
		return convert(file, ptr+"/"+jsonpointer.Escape(key), v, false)
	}
	list := func(key string, v *Node) ([]*Schema, error) {
		if v.Kind != Array || len(v.Items) == 0 {
			return nil, bad(key, key+" must be a non-empty array of schemas")
		}
		out := make([]*Schema, len(v.Items))
		for i, it := range v.Items {
			x, err := convert(file, fmt.Sprintf("%s/%s/%d", ptr, key, i), it, false)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	str := func(key string, v *Node) (string, error) {
		if v.Kind != String {
			return "", bad(key, key+" must be a string")
		}
		return v.String, nil
	}
	flag := func(key string, v *Node) (bool, error) {
		if v.Kind != Bool {
			return false, bad(key, key+" must be a boolean")
		}
		return v.Bool, nil
	}
	nonNegInt := func(key string, v *Node) (*int, error) {
		if v.Kind != Number {
			return nil, bad(key, key+" must be a non-negative integer")
		}
		i, err := v.Number.Int64()
		if err != nil || i < 0 {
			return nil, bad(key, key+" must be a non-negative integer")
		}
		x := int(i)
		return &x, nil
	}
	var err error
	for _, m := range n.Members {
		k, v := m.Name, m.Value
		switch k {
		case "$schema":
			if !root {
				return nil, bad(k, "$schema is only allowed at the document root")
			}
			s.SchemaURI, err = str(k, v)
		case "$defs":
			if !root {
				return nil, bad(k, "$defs is only allowed at the document root")
			}
			if v.Kind != Object {
				return nil, bad(k, "$defs must be an object")
			}
			s.defsIndex = map[string]*Schema{}
			for _, d := range v.Members {
				x, err := convert(file, DefPointer(d.Name), d.Value, false)
				if err != nil {
					return nil, err
				}
				s.Defs = append(s.Defs, Def{d.Name, x})
				s.defsIndex[d.Name] = x
			}
		case "$ref":
			s.Ref, err = str(k, v)
		case "type":
			switch v.Kind {
			case String:
				s.Types = []string{v.String}
			case Array:
				for _, it := range v.Items {
					if it.Kind != String {
						return nil, bad(k, "type must be a string or an array of strings")
					}
					s.Types = append(s.Types, it.String)
				}
			default:
				return nil, bad(k, "type must be a string or an array of strings")
			}
			for _, t := range s.Types {
				if !knownTypes[t] {
					return nil, bad(k, fmt.Sprintf("unknown type %q", t))
				}
			}
		case "properties":
			if v.Kind != Object {
				return nil, bad(k, "properties must be an object")
			}
			// Members here are property names, not keywords: "pattern" or "format"
			// as a property name is legitimate (elicitation's StringPropertySchema).
			for _, p := range v.Members {
				x, err := convert(file, ptr+"/properties/"+jsonpointer.Escape(p.Name), p.Value, false)
				if err != nil {
					return nil, err
				}
				s.Properties = append(s.Properties, Property{p.Name, x})
			}
		case "required":
			if v.Kind != Array {
				return nil, bad(k, "required must be an array of strings")
			}
			for _, it := range v.Items {
				if it.Kind != String {
					return nil, bad(k, "required must be an array of strings")
				}
				s.Required = append(s.Required, it.String)
			}
		case "additionalProperties":
			s.AdditionalProperties, err = sub(k, v)
		case "unevaluatedProperties":
			s.UnevaluatedProperties, err = sub(k, v)
		case "items":
			s.Items, err = sub(k, v)
		case "allOf":
			s.AllOf, err = list(k, v)
		case "anyOf":
			s.AnyOf, err = list(k, v)
		case "oneOf":
			s.OneOf, err = list(k, v)
		case "not":
			s.Not, err = sub(k, v)
		case "const":
			s.Const = v
		case "enum":
			if v.Kind != Array || len(v.Items) == 0 {
				return nil, bad(k, "enum must be a non-empty array")
			}
			s.Enum = v.Items
		case "default":
			s.Default = v
		case "format":
			s.Format, err = str(k, v)
			if err == nil && !knownFormats[s.Format] {
				return nil, bad(k, fmt.Sprintf("unknown format %q", s.Format))
			}
		case "minimum", "maximum":
			if v.Kind != Number {
				return nil, bad(k, k+" must be a number")
			}
			num := v.Number
			if k == "minimum" {
				s.Minimum = &num
			} else {
				s.Maximum = &num
			}
		case "minLength":
			s.MinLength, err = nonNegInt(k, v)
		case "maxLength":
			s.MaxLength, err = nonNegInt(k, v)
		case "pattern":
			s.Pattern, err = str(k, v)
			s.HasPattern = true
			if err == nil {
				_, err = Pattern(file, ptr+"/pattern", s.Pattern)
			}
		case "title":
			s.Title, err = str(k, v)
		case "description":
			s.Description, err = str(k, v)
		case "discriminator":
			if v.Kind != Object {
				return nil, bad(k, "discriminator must be an object")
			}
			for _, dm := range v.Members {
				if dm.Name != "propertyName" {
					return nil, bad(k, fmt.Sprintf("unknown discriminator keyword %q", dm.Name))
				}
				s.Discriminator, err = str(k, dm.Value)
			}
			if s.Discriminator == "" && err == nil {
				return nil, bad(k, "discriminator needs propertyName")
			}
		case "x-method":
			s.XMethod, err = str(k, v)
		case "x-side":
			s.XSide, err = str(k, v)
			if err == nil {
				switch s.XSide {
				case "agent", "client", "protocol", "proxy", "both":
				default:
					return nil, bad(k, fmt.Sprintf("unknown x-side %q", s.XSide))
				}
			}
		case "x-deserialize-default-on-error":
			s.XDefaultOnError, err = flag(k, v)
		case "x-deserialize-skip-invalid-items":
			s.XSkipInvalidItems, err = flag(k, v)
		case "x-deserialize-default-on-null":
			s.XDefaultOnNull, err = flag(k, v)
		case "x-docs-ignore":
			s.XDocsIgnore, err = flag(k, v)
		case "x-acpgen-ephemeral":
			s.XEphemeral, err = flag(k, v)
		case "x-acpgen-pattern-name":
			s.XPatternName, err = str(k, v)
		case "x-acpgen-meta":
			if v.Kind != Object {
				return nil, bad(k, "x-acpgen-meta must map namespace keys to schemas")
			}
			for _, m := range v.Members {
				x, err := convert(file, ptr+"/x-acpgen-meta/"+jsonpointer.Escape(m.Name), m.Value, false)
				if err != nil {
					return nil, err
				}
				s.XMeta = append(s.XMeta, Property{m.Name, x})
			}
		case "x-acpgen-overlay":
			if v.Kind != Array {
				return nil, bad(k, "x-acpgen-overlay must be an array of strings")
			}
			for _, it := range v.Items {
				if it.Kind != String {
					return nil, bad(k, "x-acpgen-overlay must be an array of strings")
				}
				s.XOverlay = append(s.XOverlay, it.String)
			}
		default:
			known, verr := s.vocabulary(k, v, &converter{file, ptr})
			if !known {
				return nil, bad(k, fmt.Sprintf("unknown keyword %q", k))
			}
			err = verr
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// HasType reports whether t is among the schema's declared types.
func (s *Schema) HasType(t string) bool {
	for _, x := range s.Types {
		if x == t {
			return true
		}
	}
	return false
}

// IsRequired reports whether name is listed in required.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// Property returns the named property schema, or nil.
func (s *Schema) Property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}
