package ir

import (
	"fmt"
	"strings"
	"unicode"
)

// initialisms are the words written in capitals in Go names, following Go's
// own convention (ID, URL, HTTP); one rule applied to every name.
var initialisms = map[string]string{
	"id": "ID", "ids": "IDs", "url": "URL", "uri": "URI", "http": "HTTP", "https": "HTTPS",
	"sse": "SSE", "mcp": "MCP", "acp": "ACP", "json": "JSON", "api": "API", "rpc": "RPC",
}

// words splits a wire or schema name into words at case changes, digits and
// separators: "session/set_mode" -> session set mode, "McpServerHttp" -> Mcp Server Http.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter after a lower-case one, or
			// before the last capital of a run followed by lower case ("HTTPServer").
			if len(cur) > 0 {
				prev := rs[i-1]
				next := rune(0)
				if i+1 < len(rs) {
					next = rs[i+1]
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// MethodConst is the Go constant that holds a method's wire name:
// "session/set_mode" -> MethodSessionSetMode. Build rejects a schema in which
// two wire names share one.
func MethodConst(wire string) string { return "Method" + GoName(wire) }

// GoName turns a schema or wire name into an exported Go identifier.
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	out := b.String()
	if out == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(out)[0]) {
		out = "V" + out
	}
	return out
}

// The naming rule. Go names come from the schema: a def's name, a member's
// name, a variant's tag or title (an untitled variant: the def it
// references, else its JSON type), a method's wire name, an inline type's owner and member.
// When names clash in one scope (a union's variants; a struct's fields with
// the methods and fields acpgen generates on every type; a side's methods
// with its connection's own methods; the package's types and constants with
// the declarations acpgen generates), acpgen's own names stay and every
// schema-derived name in the clash is qualified by what it is:
//
//   - a variant by its payload: an untitled one is named after it
//     (SessionConfigSelectOptionArray), a titled one gets it appended;
//   - a member by its value's type (validate -> ValidateString);
//   - a method by its kind (MCPMessageRequest, MCPMessageNotification);
//   - an inline type, an enum constant or a def clashing with acpgen's
//     declarations by Type or Value (AgentConn -> AgentConnType).
//
// A name that still clashes is numbered (variants, members and methods by
// their 1-based position in the scope, types and constants from 2). Two
// defs with one Go name stay an error: no published schema has them (def
// names are distinct Rust type names), and renaming either would silently
// change a type's name when the other appears.

// reservedMethods are the exported methods acpgen generates on every model
// type, unions included; reservedMembers adds what structs also get (the
// emitter's test keeps both complete).
var (
	reservedMethods = setOf("Validate", "ValidateWith", "AppendJSON", "DecodeJSON", "MarshalJSON", "UnmarshalJSON")
	// reservedVariants adds the union's own API: its Kind and Value
	// accessors and the Unknown variant of a closed tagged union.
	reservedVariants = setOf("Validate", "ValidateWith", "AppendJSON", "DecodeJSON", "MarshalJSON", "UnmarshalJSON", "Kind", "Value", "Unknown")
	reservedMembers  = setOf("Unknown", "Validate", "ValidateWith", "AppendJSON", "DecodeJSON", "MarshalJSON", "UnmarshalJSON",
		"EffectiveRoots", "ActiveAdditionalDirectories", "DedupeAdditionalDirectories", "Matches", "ForHistory")
)

// reservedConn are the methods of the generated connections and handlers
// besides those named after wire methods.
var reservedConn = setOf("Run", "Close", "Negotiated", "Send", "SendNotification", "ExtRequest", "ExtNotification", "HandleRequest", "HandleNotification")

// reservedDecls are the package-level names acpgen declares besides the
// model's types and constants (and Method<Wire>, added per schema).
var reservedDecls = setOf("AgentConn", "ClientConn", "AgentHandler", "ClientHandler", "UnimplementedAgentHandler", "UnimplementedClientHandler",
	"NewAgentConn", "NewClientConn", "ExtHandler", "ConnOptions", "AgentMethods", "ClientMethods", "AgentMethodTable", "ClientMethodTable", "Negotiated", "MethodCapability", "MethodInfo", "Methods",
	"CurrentProtocolVersion", "SchemaPackage", "SchemaVersion", "SchemaFile", "SchemaSHA256", "OverlayInfo", "Overlays", "DedupeRoots",
	// api.go: the runtime's types under the package's names, and the checks.
	"RPCError", "Raw", "ValidationError", "GateError", "LocalError", "EncodeError", "RPCOptions", "NewError", "CheckAgentHandler", "CheckClientHandler",
	// codec.go: the tables' lookup.
	"TableOf")

// Reserved reports the names acpgen generates itself, by scope: "method"
// (on every model type), "variant" (on unions), "member" (on structs), "conn" (on connections and handlers), "decl" (package
// level, without the per-method constants).
func Reserved(scope string) []string {
	m := map[string]map[string]bool{"method": reservedMethods, "variant": reservedVariants, "member": reservedMembers, "conn": reservedConn, "decl": reservedDecls}[scope]
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	return out
}

func setOf(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// candidate is one schema-derived name: its base, and the name it takes
// when the base clashes.
type candidate struct{ base, qualified string }

// resolveNames applies the naming rule to the names of one scope.
func resolveNames(cs []candidate, reserved func(string) bool) []string {
	out := make([]string, len(cs))
	count := map[string]int{}
	for _, c := range cs {
		count[c.base]++
	}
	for i, c := range cs {
		out[i] = c.base
		if count[c.base] > 1 || reserved(c.base) {
			out[i] = c.qualified
		}
	}
	count = map[string]int{}
	for _, n := range out {
		count[n]++
	}
	for i, n := range out {
		if count[n] > 1 || reserved(n) {
			out[i] = fmt.Sprintf("%s%d", n, i+1)
		}
	}
	return out
}

// ShapeName names a value shape for the naming rule: a named type's Go name,
// an array's or map's item shape with Array or Map, else the JSON type.
func ShapeName(r *Ref) string {
	if r == nil {
		return "Null"
	}
	switch r.Kind {
	case Named:
		return r.Type.Name
	case Array:
		return ShapeName(r.Elem) + "Array"
	case Map:
		return ShapeName(r.Elem) + "Map"
	case String:
		return "String"
	case Bool:
		return "Boolean"
	case Int:
		return "Integer"
	case Float:
		return "Number"
	}
	return "Value"
}

// nameVariants applies the rule to a union's variants.
func nameVariants(u *Union) {
	cs := make([]candidate, len(u.Variants))
	for i, v := range u.Variants {
		q := ShapeName(v.Payload)
		if v.titled {
			q = v.Name + q
		}
		cs[i] = candidate{v.Name, q}
	}
	for i, n := range resolveNames(cs, func(s string) bool { return reservedVariants[s] }) {
		u.Variants[i].Name = n
	}
}

// nameFields applies the rule to a struct's fields; the embedded union's
// field (named by acpgen after the discriminator) keeps its name.
func nameFields(t *Type) {
	cs := make([]candidate, len(t.Fields))
	for i, f := range t.Fields {
		base := GoName(f.JSON)
		cs[i] = candidate{base, base + ShapeName(f.Ref)}
	}
	unionField := ""
	if t.Union != nil {
		unionField = t.Union.fieldName()
	}
	for i, n := range resolveNames(cs, func(s string) bool { return reservedMembers[s] || s == unionField }) {
		t.Fields[i].Name = n
	}
}

// nameMethods applies the rule to each side's methods: they name the
// handler's methods and the peer connection's calls.
func nameMethods(ms []*Method) {
	bySide := map[string][]*Method{}
	for _, m := range ms {
		bySide[m.Side] = append(bySide[m.Side], m)
	}
	for _, side := range bySide {
		cs := make([]candidate, len(side))
		for i, m := range side {
			kind := "Request"
			if m.Notification {
				kind = "Notification"
			}
			cs[i] = candidate{GoName(m.Wire), GoName(m.Wire) + kind}
		}
		for i, n := range resolveNames(cs, func(s string) bool { return reservedConn[s] }) {
			side[i].Name = n
		}
	}
}
