package ir

// What overlays say beyond JSON Schema, as plain data: generator/overlay
// fills these, emit reads them, so emit never depends on the overlay engine.

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
