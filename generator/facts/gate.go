// Package facts holds the hand-kept facts upstream does not encode in its
// schema, starting with capability gates. Every entry is checked against the
// IR at generation time: an entry that names nothing, or matches nothing, is
// an error against the pinned schema.
package facts

// Gate says that something a peer sends is allowed only after the other side
// advertised a capability.
type Gate struct {
	// Method is the wire name of the method whose params (or result) carry the
	// gated thing; a gate with an empty Path gates the method itself.
	Method string `json:"method"`
	// Path locates the gated member inside the params (or result, see Result):
	// slash-separated member names, "*" for every array item or map value,
	// e.g. "/additionalDirectories" or "/prompt/*".
	Path string `json:"path,omitempty"`
	// Result is true when Path is inside the method's result, not its params.
	Result bool `json:"result,omitempty"`
	// Variant names the union variant (its tag value, or variant name for
	// untagged ones) at Path that is gated, e.g. "image"; "" gates the member's presence.
	Variant string `json:"variant,omitempty"`
	// Capability is the path of the capability in the other side's
	// initialize message, e.g. "agentCapabilities.sessionCapabilities.additionalDirectories":
	// dotted, or a JSON pointer when a member name holds a dot
	// ("/agentCapabilities/_meta/sandboxagent.dev/extensions/sessionMetadata").
	// It is granted by true, by the presence of a non-null object, or (a list
	// such as authMethods) by a non-empty list.
	Capability string `json:"capability"`
	// Require inverts the rule: when the capability is advertised, the member
	// at Path must be present (e.g. every SessionInfo carries
	// additionalDirectories once that capability is advertised).
	Require bool `json:"require,omitempty"`
	// Source says where the gate comes from: "table" or an overlay id.
	Source string `json:"source,omitempty"`
	// Reason says why the row holds: what the capability's description
	// says it allows. Every row this package keeps has one
	// (TestEveryRowHasAReason); an overlay's rows have the overlay's text.
	Reason string `json:"reason,omitempty"`
}
