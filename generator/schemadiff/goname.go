package schemadiff

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator/emit"
	"github.com/acpgen/acpgen/generator/ir"
)

// The report names what changed as the schema spells it (McpServer,
// SessionId, SessionInfo.archived); a Go SDK's release notes want the
// identifiers acpgen generates (MCPServer, SessionID, SessionInfo.Archived).
// These map one to the other with the generator's own naming: ir.GoName for
// every def, member, tag and title, and the IR's rules for inline types
// (owner + member, "Item" for array items, "Value" for map values, the union
// + the variant for an inline variant payload) and emit.MethodConst for
// methods. Variants told apart by shape alone are named by their key, which
// may differ from the generated name in rare cases.

// variantGoName is the Go field of a variant in its union.
func variantGoName(v *Variant, title string) string {
	switch {
	case v.Role == "tagged":
		return ir.GoName(v.Key)
	case title != "":
		return ir.GoName(title)
	case v.Role == "catch-all":
		return "Other"
	case v.Role == "null":
		return "Null"
	case strings.HasPrefix(v.Key, "[]"):
		return "Array"
	case strings.HasPrefix(v.Key, "map[") || v.Key == "object":
		return "Object"
	}
	return ir.GoName(v.Key)
}

// goNamer resolves type paths against the surfaces of both revisions, the
// new one first: a change's subject exists in at least one.
type goNamer []*Surface

func (n goNamer) typ(path string) *Type {
	for _, s := range n {
		if s != nil {
			if t, ok := s.Types[path]; ok {
				return t
			}
		}
	}
	return nil
}

// subject is the Go identifier of a change's subject.
func (n goNamer) subject(c Change) string {
	switch c.Category {
	case "method":
		wire, _, _ := strings.Cut(c.Subject, " (")
		return emit.MethodConst(wire)
	case "enum value":
		owner, value, ok := strings.Cut(c.Subject, " ")
		if !ok {
			return n.typeName(c.Subject)
		}
		if s, err := strconv.Unquote(value); err == nil {
			return n.typeName(owner) + ir.GoName(s)
		}
		// Integer values are named by titles the surface does not keep.
		return n.typeName(owner) + " " + value
	case "variant":
		if i := lastTopLevel(c.Subject, '['); i > 0 && strings.HasSuffix(c.Subject, "]") {
			owner := c.Subject[:i]
			t := n.typ(owner)
			return unionName(t, n.typeName(owner)) + "." + n.variantName(t, c.Subject[i+1:len(c.Subject)-1])
		}
	case "field", "decoding":
		return n.member(c.Subject)
	case "capability":
		// A capability is a *Capabilities type or a member of one.
		if i := lastTopLevel(c.Subject, '.'); i > 0 && n.hasField(c.Subject[:i], c.Subject[i+1:]) {
			return n.member(c.Subject)
		}
	}
	return n.typeName(c.Subject)
}

// member is the Go field of an object member: its owner's type, a dot, the
// member's field.
func (n goNamer) member(subject string) string {
	i := lastTopLevel(subject, '.')
	if i <= 0 {
		return n.typeName(subject)
	}
	return n.typeName(subject[:i]) + "." + ir.GoName(subject[i+1:])
}

func (n goNamer) hasField(owner, name string) bool {
	for _, s := range n {
		if s == nil {
			continue
		}
		if t := s.Types[owner]; t != nil {
			for _, f := range t.Fields {
				if f.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// typeName is the Go type of a type path: a def ("McpServer"), or an inline
// type inside one ("Foo.bar", "Foo.bar[]", "Foo.bar{}", "Union[tag]").
func (n goNamer) typeName(path string) string {
	end := strings.IndexAny(path, ".[{")
	if end < 0 {
		return ir.GoName(path)
	}
	out := ir.GoName(path[:end])
	for end < len(path) {
		rest := path[end:]
		switch {
		case strings.HasPrefix(rest, "[]"):
			out += "Item"
			end += 2
		case strings.HasPrefix(rest, "{}"):
			out += "Value"
			end += 2
		case rest[0] == '[':
			close := matching(rest)
			if close < 0 {
				return out + rest
			}
			t := n.typ(path[:end])
			out = unionName(t, out) + n.variantName(t, rest[1:close])
			end += close + 1
		case rest[0] == '.':
			m := len(rest)
			if i := strings.IndexAny(rest[1:], ".[{"); i >= 0 {
				m = i + 1
			}
			out += ir.GoName(rest[1:m])
			end += m
		default:
			return out + rest
		}
	}
	return out
}

// unionName is the Go type of the union t holds: t itself, or for a struct
// with an embedded union its union member's type (the struct's name and the
// member's, which is the discriminator or "Variant").
func unionName(t *Type, goType string) string {
	if t == nil || t.Kind != Struct || len(t.Variants) == 0 {
		return goType
	}
	if t.Discriminator != "" {
		return goType + ir.GoName(t.Discriminator)
	}
	return goType + "Variant"
}

func (n goNamer) variantName(t *Type, key string) string {
	if t != nil {
		for _, v := range t.Variants {
			if v.Key == key && v.Go != "" {
				return v.Go
			}
		}
	}
	return variantGoName(&Variant{Key: key}, "")
}

// matching returns the index of the bracket closing s[0], or -1.
func matching(s string) int {
	depth := 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// lastTopLevel is the index of the last c outside brackets, or -1.
func lastTopLevel(s string, c byte) int {
	depth, at := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			if s[i] == c && depth == 0 {
				at = i
			}
			depth++
		case ']', '}':
			depth--
		default:
			if s[i] == c && depth == 0 {
				at = i
			}
		}
	}
	return at
}

// typeToken finds the type paths a detail text mentions.
var typeToken = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[[^\]\s]*\]|\{\})*`)

// text spells every type a detail mentions as its Go type. A token that is
// no type of either revision is kept, but a def it starts with is renamed.
func (n goNamer) text(detail string) string {
	return typeToken.ReplaceAllStringFunc(detail, func(tok string) string {
		if n.typ(tok) != nil {
			return n.typeName(tok)
		}
		if i := strings.IndexAny(tok, ".[{"); i > 0 && n.typ(tok[:i]) != nil {
			return ir.GoName(tok[:i]) + tok[i:]
		}
		return tok
	})
}
