// Package load turns schema bytes into a typed, strictly checked schema model.
// Every keyword the ACP schemas use is understood; anything else is an error that
// names the file and the JSON pointer, so upstream additions are noticed, never
// silently ignored.
package load

import (
	"bytes"
	"encoding/json"
	"errors"
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

// SyntaxError is a document that is not one JSON value, located by line
// and column (both from 1; the column counts bytes).
type SyntaxError struct {
	Line, Column int
	Offset       int64 // bytes before the error
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// at returns the SyntaxError msg at byte offset off of data.
func at(data []byte, off int64, msg string) *SyntaxError {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := 1 + bytes.Count(before, []byte("\n"))
	col := len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return &SyntaxError{Line: line, Column: col, Offset: off, Msg: msg}
}

const truncated = "unexpected end of input: the document is truncated"

// located finds where the first value of data stops being JSON: the
// standard scanner's offsets count from the start of the data (a Decoder's
// count from the value it was reading).
func located(data []byte, err error) *SyntaxError {
	var raw json.RawMessage
	var js *json.SyntaxError
	if errors.As(json.Unmarshal(data, &raw), &js) {
		if js.Error() == "unexpected end of JSON input" {
			return at(data, int64(len(data)), truncated)
		}
		return at(data, js.Offset-1, js.Error()) // Offset counts the offending byte
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return at(data, int64(len(data)), truncated)
	}
	return at(data, int64(len(data)), err.Error())
}

// duplicateError is a member name given twice in one object.
type duplicateError struct {
	name string
	end  int64 // where the second one ends
}

// start returns where the key ending at e.end starts in data: at the
// opening quote, the last one before the closing quote that no backslash
// escapes.
func (e *duplicateError) start(data []byte) int64 {
	for i := e.end - 2; i >= 0 && i < int64(len(data)); i-- {
		if data[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
	}
	return e.end
}

func (e *duplicateError) Error() string { return fmt.Sprintf("duplicate member %q", e.name) }

// Parse parses one JSON document into a Node tree. A document that is not
// one JSON value gives a *SyntaxError.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		var dup *duplicateError
		if errors.As(err, &dup) {
			return nil, at(data, dup.start(data), dup.Error())
		}
		return nil, located(data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		for end < int64(len(data)) && strings.IndexByte(" \t\r\n", data[end]) >= 0 {
			end++
		}
		return nil, at(data, end, "unexpected data after the top-level value")
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
					return nil, &duplicateError{name: name, end: dec.InputOffset()}
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
