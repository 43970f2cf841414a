package facts

// What overlays say beyond JSON Schema, as plain data: generator/overlay
// fills these, ir binds the gates to methods, and emit and conform read the
// rest, so no later stage depends on the overlay engine.

// OverlayInfo is an overlay's provenance, carried into generated doc comments.
type OverlayInfo struct {
	ID     string // short id written into x-acpgen-overlay of what it touches
	Title  string
	URL    string
	Status string // e.g. "draft", "proposed", "vendor extension"
}

// Semantics is the typed meaning overlays give that JSON Schema cannot say;
// it drives the helpers of the generated extras.go.
type Semantics struct {
	Roots   []Roots
	Filters []Filter
}

// Roots says Def carries the ordered root list [Primary, ...Additional].
type Roots struct {
	Def, Primary, Additional, Source string
}

// Filter says the members of Request filter Item values.
type Filter struct {
	Request, Item string
	Members       []FilterMember
	Source        string
}

// FilterMember is one filtering member: Match is "equal" or "ordered".
type FilterMember struct {
	Name, Match string
}

// DefGate is a gate an overlay declares on a member of a def rather than on
// a method: which methods it gates depends on where the def is used, which
// only the merged schema's IR knows (ir's Model.BindGates makes Gate rows of it).
type DefGate struct {
	Def, Member, Capability string
	// Require makes it a presence rule: wherever Def occurs inside a
	// method's params or result, Member must be present once Capability is
	// advertised. Otherwise Member is gated in the methods whose params or
	// result Def is.
	Require bool
	Source  string // the overlay id
	Where   string // the overlay file and change pointer, for errors
}
