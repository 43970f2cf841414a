package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// node is one compiled schema of the draft 7 subset the byte interpreter
// judges (check.go). Its semantics are draft 7's as the reference reads
// them: a $ref stands for its target alone; type is checked first; the
// other keywords are each a condition on the value.
type node struct {
	never  bool   // the schema false
	ref    string // a $ref's def pointer, resolved into target
	target *node

	types uint8 // kind bits (typeNull...); 0 is any

	consts []constant // const (one) or enum (any of)
	// hasConsts tells an enum or const from neither.
	hasConsts bool

	props      map[string]*node
	cheap      []string // properties whose schema is a const or enum: checked first
	required   []string
	additional *node // nil is anything
	deps       map[string][]string

	items              *node
	minItems, maxItems int // -1 for none

	minLen, maxLen int // -1 for none
	pattern        *regexp.Regexp
	format         string

	// minimum, maximum, exclusiveMinimum, exclusiveMaximum: nil for none
	bounds [4]*big.Rat

	allOf, anyOf, oneOf []*node
	not                 *node
}

// The kind bits of type.
const (
	typeNull uint8 = 1 << iota
	typeBool
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{"null": typeNull, "boolean": typeBool, "integer": typeInteger,
	"number": typeNumber, "string": typeString, "array": typeArray, "object": typeObject}

// constant is a const or enum value the interpreter compares: a string, a
// number, a boolean or null. The reference compares a number as its float64
// written back (so 1 and 1.0 are equal, 0 and -0 are not).
type constant struct {
	kind uint8 // typeString, typeNumber, typeBool or typeNull
	s    string
	f    uint64 // a number's float64 bits
	b    bool
}

// errUnsupported marks a schema that uses a keyword, or a form of one, the
// interpreter does not judge; such a def is judged by the compiled JSON
// Schema validator instead.
var errUnsupported = errors.New("not in the interpreted subset")

// ignored are the keywords that do not constrain a value in draft 7 as the
// reference reads it: annotations, vocabulary extensions, and 2020-12
// keywords draft 7 does not know.
func ignored(k string) bool {
	switch k {
	case "title", "description", "default", "examples", "$comment", "discriminator",
		"contentEncoding", "contentMediaType", "readOnly", "writeOnly", "deprecated",
		"$schema", "unevaluatedProperties", "$defs", "definitions":
		return true
	}
	return strings.HasPrefix(k, "x-")
}

// compiler builds nodes from the draft 7 defs, one per schema position,
// shared by every def that reaches it.
type compiler struct {
	defs  map[string]any // the $defs, by name
	byDef map[string]*node
}

func newCompiler(defs json.RawMessage) (*compiler, error) {
	d := json.NewDecoder(bytes.NewReader(defs))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return &compiler{defs: m, byDef: map[string]*node{}}, nil
}

// def compiles the named def and every def it reaches.
func (c *compiler) def(name string) (*node, error) {
	if n, ok := c.byDef[name]; ok {
		return n, nil
	}
	s, ok := c.defs[name]
	if !ok {
		return nil, fmt.Errorf("no def %q", name)
	}
	n := &node{}
	c.byDef[name] = n // before compiling: defs refer to themselves
	if err := c.fill(n, s); err != nil {
		// Defs compiled meanwhile may point at this one, unfinished:
		// forget them all, so each is compiled again and fails alike.
		clear(c.byDef)
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

func (c *compiler) compile(s any) (*node, error) {
	n := &node{}
	return n, c.fill(n, s)
}

// fill compiles schema s into n.
func (c *compiler) fill(n *node, s any) error {
	n.minItems, n.maxItems, n.minLen, n.maxLen = -1, -1, -1, -1
	switch x := s.(type) {
	case bool:
		n.never = !x
		return nil
	case map[string]any:
		if r, ok := x["$ref"]; ok {
			return c.ref(n, r)
		}
		for k, v := range x {
			if ignored(k) {
				continue
			}
			if err := c.keyword(n, k, v); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		for name, p := range n.props {
			if p.target == nil && p.hasConsts {
				n.cheap = append(n.cheap, name)
			}
		}
		return nil
	}
	return errUnsupported
}

// ref resolves a $ref into the defs; draft 7 ignores its siblings.
func (c *compiler) ref(n *node, r any) error {
	s, ok := r.(string)
	name, found := strings.CutPrefix(s, "#/$defs/")
	if !ok || !found || strings.Contains(name, "/") {
		return errUnsupported
	}
	name, err := unescapeToken(name)
	if err != nil {
		return errUnsupported
	}
	t, err := c.def(name)
	if err != nil {
		return err
	}
	n.ref, n.target = name, t
	return nil
}

func unescapeToken(s string) (string, error) {
	toks, err := jsonpointer.Parse("/" + s)
	if err != nil || len(toks) != 1 {
		return "", errUnsupported
	}
	return toks[0], nil
}

// keyword compiles one keyword of a schema object.
func (c *compiler) keyword(n *node, k string, v any) error {
	var err error
	switch k {
	case "type":
		n.types, err = types(v)
	case "const":
		n.hasConsts = true
		var cv constant
		if cv, err = constOf(v); err == nil {
			n.consts = append(n.consts, cv)
		}
	case "enum":
		a, ok := v.([]any)
		if !ok {
			return errUnsupported
		}
		n.hasConsts = true
		for _, e := range a {
			cv, err := constOf(e)
			if err != nil {
				return err
			}
			n.consts = append(n.consts, cv)
		}
	case "properties":
		m, ok := v.(map[string]any)
		if !ok {
			return errUnsupported
		}
		n.props = map[string]*node{}
		for name, ps := range m {
			if n.props[name], err = c.compile(ps); err != nil {
				return err
			}
		}
	case "required":
		n.required, err = strs(v)
	case "additionalProperties":
		n.additional, err = c.compile(v)
	case "dependencies":
		m, ok := v.(map[string]any)
		if !ok {
			return errUnsupported
		}
		n.deps = map[string][]string{}
		for name, d := range m {
			if n.deps[name], err = strs(d); err != nil {
				return err // the schema form is not interpreted
			}
		}
	case "items":
		if _, ok := v.([]any); ok {
			return errUnsupported // the tuple form
		}
		n.items, err = c.compile(v)
	case "minItems":
		n.minItems, err = count(v)
	case "maxItems":
		n.maxItems, err = count(v)
	case "minLength":
		n.minLen, err = count(v)
	case "maxLength":
		n.maxLen, err = count(v)
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return errUnsupported
		}
		n.pattern, err = regexp.Compile(s)
	case "format":
		s, ok := v.(string)
		if !ok {
			return errUnsupported
		}
		n.format = s
	case "minimum":
		n.bounds[0], err = rat(v)
	case "maximum":
		n.bounds[1], err = rat(v)
	case "exclusiveMinimum":
		n.bounds[2], err = rat(v)
	case "exclusiveMaximum":
		n.bounds[3], err = rat(v)
	case "allOf":
		n.allOf, err = c.list(v)
	case "anyOf":
		n.anyOf, err = c.list(v)
	case "oneOf":
		n.oneOf, err = c.list(v)
	case "not":
		n.not, err = c.compile(v)
	default:
		return errUnsupported
	}
	return err
}

func (c *compiler) list(v any) ([]*node, error) {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		return nil, errUnsupported
	}
	out := make([]*node, len(a))
	for i, s := range a {
		var err error
		if out[i], err = c.compile(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func types(v any) (uint8, error) {
	var names []any
	switch x := v.(type) {
	case string:
		names = []any{x}
	case []any:
		names = x
	default:
		return 0, errUnsupported
	}
	var bits uint8
	for _, name := range names {
		s, _ := name.(string)
		b, ok := typeBits[s]
		if !ok {
			return 0, errUnsupported
		}
		bits |= b
	}
	if bits == 0 {
		return 0, errUnsupported
	}
	return bits, nil
}

func constOf(v any) (constant, error) {
	switch x := v.(type) {
	case string:
		return constant{kind: typeString, s: x}, nil
	case bool:
		return constant{kind: typeBool, b: x}, nil
	case nil:
		return constant{kind: typeNull}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return constant{}, errUnsupported
		}
		return constant{kind: typeNumber, f: math.Float64bits(f)}, nil
	}
	return constant{}, errUnsupported
}

func strs(v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, errUnsupported
	}
	out := make([]string, len(a))
	for i, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, errUnsupported
		}
		out[i] = s
	}
	return out, nil
}

func count(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errUnsupported
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, errUnsupported
	}
	return int(r.Num().Int64()), nil
}

func rat(v any) (*big.Rat, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, errUnsupported
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil, errUnsupported
	}
	return r, nil
}
