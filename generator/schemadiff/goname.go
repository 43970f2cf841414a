package schemadiff

import (
	"regexp"
	"strings"
)

// The report names what changed as the schema spells it (McpServer,
// SessionId, SessionInfo.archived); a Go SDK's release notes want the
// identifiers acpgen generates (MCPServer, SessionID, SessionInfo.Archived).
// Both surfaces carry the IR's Go name of every type, member, variant, enum
// value and method, so the mapping is a lookup.

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

func (n goNamer) method(wire string) string {
	for _, s := range n {
		for _, m := range s.Methods {
			if m.Wire == wire {
				return m.Go
			}
		}
	}
	return ""
}

// typeName is the Go type of a type path, "" when neither revision has it.
func (n goNamer) typeName(path string) string {
	if t := n.typ(path); t != nil {
		return t.Go
	}
	return ""
}

// subject is the Go identifier of a change's subject.
func (n goNamer) subject(c Change) string {
	switch c.Category {
	case "method":
		wire, _, _ := strings.Cut(c.Subject, " (")
		return n.method(wire)
	case "enum value":
		owner, value, _ := strings.Cut(c.Subject, " ")
		for _, s := range n {
			if t := s.Types[owner]; t != nil && t.ValueGo[value] != "" {
				return t.ValueGo[value]
			}
		}
	case "variant":
		if i := lastTopLevel(c.Subject, '['); i > 0 && strings.HasSuffix(c.Subject, "]") {
			return n.variant(c.Subject[:i], c.Subject[i+1:len(c.Subject)-1])
		}
	case "field", "decoding", "capability":
		if i := lastTopLevel(c.Subject, '.'); i > 0 {
			if f := n.field(c.Subject[:i], c.Subject[i+1:]); f != "" {
				return f
			}
		}
	}
	return n.typeName(c.Subject)
}

// field is the Go field of an object member: its owner's type, a dot, the
// member's field; "" when neither revision has it.
func (n goNamer) field(owner, name string) string {
	for _, s := range n {
		if t := s.Types[owner]; t != nil {
			for _, f := range t.Fields {
				if f.Name == name {
					return t.Go + "." + f.Go
				}
			}
		}
	}
	return ""
}

// variant is the Go field of a variant: its union's type, a dot, the field.
func (n goNamer) variant(owner, key string) string {
	for _, s := range n {
		if t := s.Types[owner]; t != nil {
			for _, v := range t.Variants {
				if v.Key == key {
					return t.UnionGo + "." + v.Go
				}
			}
		}
	}
	return ""
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
		if g := n.typeName(tok); g != "" {
			return g
		}
		if i := strings.IndexAny(tok, ".[{"); i > 0 {
			if g := n.typeName(tok[:i]); g != "" {
				return g + tok[i:]
			}
		}
		return tok
	})
}
