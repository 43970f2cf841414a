// Package ir is acpgen's typed, resolved model of one ACP schema channel. It
// knows nothing of Go emission: every decision about shapes (which union kind,
// which field is nullable, which variant is the fallback) is made here once, so
// emitters only translate.
package ir

import "github.com/acpgen/acpgen/generator/load"

// Model is one channel of the protocol: stable, unstable, v2 or v2-unstable.
type Model struct {
	Channel string // "stable", "unstable", "v2" or "v2-unstable"
	File    string
	Types   []*Type // named ($defs) types in schema order, each followed by its inline types
	Methods []*Method
	// Turn is the prompt turn, nil without a session/prompt request;
	// Version the negotiated protocol version, nil without a ProtocolVersion
	// def. Build recognises both (see protocol.go).
	Turn    *Turn
	Version *Versioning
	byDef   map[string]*Type
	names   map[string]*Type
}

// TypeByDef returns the type built from the named $defs entry.
func (m *Model) TypeByDef(def string) *Type { return m.byDef[def] }

// Kind says which Go shape a type takes.
type Kind int

// Type kinds.
const (
	Struct      Kind = iota // an object with declared members, maybe with an embedded object union
	ObjectUnion             // a union whose variants are all objects, told apart by a tag or shape
	ValueUnion              // a union with non-object variants, told apart by JSON kind, then shape
	Enum                    // string or integer constants, closed or open
	Alias                   // a named scalar, array, map or free-form value
)

// Type is one named Go type.
type Type struct {
	Name    string // Go name
	Def     string // $defs name; "" for inline types
	Parent  *Type  // for inline types: the type they were found in
	File    string
	Pointer string // JSON pointer of the schema node
	Kind    Kind

	Title       string
	Description string
	Overlay     []string

	// Struct
	Fields []*Field
	// Union is the variant set of an ObjectUnion or ValueUnion, or the embedded
	// union of a Struct whose schema has both properties and anyOf/oneOf.
	Union *Union
	// Rules are a Struct's object-wide constraints (additionalProperties,
	// patternProperties, propertyNames, dependentRequired); nil when none.
	Rules *ObjectRules

	// Enum
	EnumBase   *Ref
	EnumValues []*EnumValue
	EnumOpen   bool

	// Alias
	Target *Ref

	// Methods whose params or result this type is.
	Uses []MethodUse
	// Hot marks a type on the streaming path (see hot.go): it keeps
	// specialised generated code; a struct that is not hot may be
	// described by a table the runtime interprets instead.
	Hot bool
}

// Underlying follows a chain of aliases that name other named types
// (A = B = C) to the type at its end: t itself when t is not such an alias.
// An alias of a scalar, array, map or free-form value ends the chain. On a
// $ref cycle (which Build rejects) it stops at an alias inside the cycle.
func (t *Type) Underlying() *Type {
	slow := t
	for t.namesType() {
		if t = t.Target.Type; !t.namesType() {
			break
		}
		t, slow = t.Target.Type, slow.Target.Type
		if t == slow {
			break
		}
	}
	return t
}

// NamedType is the type a Named ref resolves to through aliases (see
// Underlying); nil for a nil ref or any other shape.
func (r *Ref) NamedType() *Type {
	if r == nil || r.Kind != Named {
		return nil
	}
	return r.Type.Underlying()
}

// namesType reports an alias whose target is another named type.
func (t *Type) namesType() bool { return t.Kind == Alias && t.Target.Kind == Named }

// MethodUse ties a type to a method it carries.
type MethodUse struct {
	Method *Method
	Role   string // "params" or "result"
}

// Field is one object member.
type Field struct {
	JSON        string
	Name        string // Go name
	Ref         *Ref
	Required    bool
	Nullable    bool // null is a valid value
	Default     *load.Node
	Pointer     string
	Description string
	Overlay     []string

	// Ephemeral members are used for one turn and dropped from durable history.
	Ephemeral bool
	// Meta types namespaces of a _meta map member: key -> value shape.
	Meta []MetaNamespace
	// Aliases are other JSON names of the member (overlay alias changes), in
	// precedence order: lenient decoding reads the first one present when the
	// member itself is absent; strict decoding refuses them; encoding never
	// writes them.
	Aliases []string

	// Leniency hints, honoured by lenient decoding only.
	DefaultOnError bool
	DefaultOnNull  bool
}

// MetaNamespace is one typed key of a _meta object.
type MetaNamespace struct {
	Key string
	Ref *Ref
}

// RefKind is the shape of a value.
type RefKind int

// Value shapes.
const (
	String RefKind = iota
	Bool
	Int   // Format says the width: int32, uint16, uint32, int64 (default), uint64
	Float // double
	Raw   // any JSON value, kept verbatim
	Array
	Map
	Named
	Routed // a method-dependent payload: decoded by method, kept verbatim here
)

// Ref is a use of a value shape.
type Ref struct {
	Kind   RefKind
	Format string
	Elem   *Ref  // Array, Map
	Type   *Type // Named
	// Routes lists the defs a Routed payload can be, in schema order.
	Routes []string
	// OpenRoute: a Routed payload may also be any value (an extension method).
	OpenRoute bool

	// Constraints, for validation.
	Const *load.Node
	// Enum lists the allowed values of an inline enum (null excluded: it
	// makes the use nullable); nil when any value of the type goes.
	Enum      []*load.Node
	Minimum   *string
	Maximum   *string
	MinLength *int
	MaxLength *int
	Pattern   string
	// PatternName says what Pattern means, for error messages.
	PatternName string
	URI         bool
	// Number constraints beyond Minimum and Maximum, as written in the schema.
	ExclusiveMinimum, ExclusiveMaximum, MultipleOf *string
	// Array constraints.
	MinItems, MaxItems *int
	UniqueItems        bool
	// ContentEncoding and ContentMediaType annotate a string's content
	// (base64, image/png); JSON Schema does not check them, nor does acpgen.
	ContentEncoding, ContentMediaType string
	// Rules are a Map's object-wide constraints; nil when none.
	Rules *ObjectRules

	// Array items that fail to decode are dropped in lenient mode.
	SkipInvalidItems bool
	// Nullable items (arrays) or values (maps).
	ElemNullable bool
}

// Union is a set of variants.
type Union struct {
	Name          string // Go name of the union type (for embedded unions, a member of the struct)
	Discriminator string // tag member; "" when variants are told apart by shape
	Exclusive     bool   // oneOf: exactly one variant may match
	Variants      []*Variant
	// SelectOrder is the order object variants are tried in when they are
	// told apart by all their required members (most first); nil: Variants.
	SelectOrder []*Variant
	bySupersets bool
}

// Role says how a variant is selected.
type Role int

// Variant roles.
const (
	Tagged   Role = iota // the discriminator has this const value
	Fallback             // no or unknown tag: the untagged default variant (keeps the tag it saw)
	CatchAll             // an unknown tag: the open union's "other" variant
	Absent               // the discriminator is absent or null
	Shape                // told apart by JSON kind and required members
)

// Variant is one alternative of a union.
type Variant struct {
	Name  string // Go name of the variant field
	Tag   string // Tagged: the discriminator value
	Role  Role
	Title string
	// Description is the branch's own text (its payload's is the payload type's).
	Description string
	Pointer     string
	Payload     *Ref // a Named struct for object variants; any shape for value unions; nil for a null variant
	// Object marks a variant whose JSON is an object (its Payload is a struct).
	Object bool
	// Null marks the variant of a ValueUnion that is the JSON null.
	Null bool
	// Keys are required members that tell this object variant apart from its
	// siblings in a shape union.
	Keys []string
	// nullable: the variant's schema also admits null, which the union's
	// null variant then holds.
	nullable bool
	// titled: the name comes from a title or tag, not from the payload.
	titled bool
}

// EnumValue is one named constant.
type EnumValue struct {
	Name        string // Go constant name
	String      string
	Int         int64
	Title       string
	Description string
}

// Method is one JSON-RPC method.
type Method struct {
	// Name is the Go name of the handler method and of the peer
	// connection's call: GoName(Wire), qualified with Request or
	// Notification by the naming rule (names.go) when it clashes.
	Name         string
	Wire         string
	Side         string // agent, client, protocol, proxy: the side that handles it
	Notification bool
	Params       *Type
	Result       *Type // requests only
}
