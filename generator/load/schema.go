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
	XAliases          []string   // x-acpgen-aliases: other names of this member, accepted by lenient decoding only
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
	return LoadTree(file, n, data)
}

// LoadTree is Load for a document already parsed: n is its tree and data
// its text (the overlay step, which edits the tree, loads its result so
// without parsing the text again).
func LoadTree(file string, n *Node, data []byte) (*Document, error) {
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
