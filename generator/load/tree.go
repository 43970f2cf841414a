// Package load turns schema bytes into a typed, strictly checked schema model.
// Every keyword the ACP schemas use is understood; anything else is an error that
// names the file and the JSON pointer, so upstream additions are noticed, never
// silently ignored.
package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Node is a parsed JSON value that keeps object member order, which the
// generator needs for stable, upstream-ordered struct fields.
type Node struct {
	Kind    Kind
	Bool    bool
	Number  json.Number
	String  string
	Items   []*Node
	Members []Member
}

// Member is one object member.
type Member struct {
	Name  string
	Value *Node
}

// Kind is a JSON value kind.
type Kind int

// JSON value kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Get returns the value of the named member, or nil.
func (n *Node) Get(name string) *Node {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Name == name {
			return n.Members[i].Value
		}
	}
	return nil
}

// Parse parses one JSON document into a Node tree.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the top-level value at offset %d", dec.InputOffset())
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &Node{Kind: Null}, nil
	case bool:
		return &Node{Kind: Bool, Bool: t}, nil
	case json.Number:
		return &Node{Kind: Number, Number: t}, nil
	case string:
		return &Node{Kind: String, String: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &Node{Kind: Array, Items: []*Node{}}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
			_, err := dec.Token()
			return n, err
		case '{':
			n := &Node{Kind: Object, Members: []Member{}}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				name := kt.(string)
				if seen[name] {
					return nil, fmt.Errorf("duplicate member %q at offset %d", name, dec.InputOffset())
				}
				seen[name] = true
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.Members = append(n.Members, Member{name, v})
			}
			_, err := dec.Token()
			return n, err
		}
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// JSON renders the node as compact JSON with members in their original order.
func (n *Node) JSON() []byte {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

func (n *Node) write(b *bytes.Buffer) {
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Number.String())
	case String:
		s, _ := json.Marshal(n.String)
		b.Write(s)
	case Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range n.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(m.Name)
			b.Write(s)
			b.WriteByte(':')
			m.Value.write(b)
		}
		b.WriteByte('}')
	}
}

// PointerToken escapes one reference token of an RFC 6901 JSON pointer.
func PointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
