package acpgentest

import (
	"strings"

	"github.com/acpgen/acpgen/generator/load"
)

// replacements are the values every position is replaced with: each breaks
// some rule (type, null, range, exclusive bound, multipleOf, format, enum,
// tag, emptiness, length, absoluteness).
var replacements = []string{
	`null`, `true`, `0`, `-1`, `1.5`, `7`, `0.3`, `4294967296`, `18446744073709551616`, `1e400`,
	`""`, `"x_future_kind"`, `"relative/path"`, `"not a uri"`, `"` + strings.Repeat("x", 300) + `"`,
	`[]`, `{}`, `[null]`, `[1]`,
}

// extraMembers are added to every object: unknown members whose names and
// values break propertyNames, patternProperties, additionalProperties false
// or an additionalProperties schema.
var extraMembers = []load.Member{
	{Name: "x_unknown_member", Value: &load.Node{Kind: load.String, String: "value"}},
	{Name: "x-overlong-value", Value: &load.Node{Kind: load.String, String: strings.Repeat("y", 40)}},
	{Name: "N_COUNT", Value: &load.Node{Kind: load.Number, Number: "-1"}},
	{Name: "Not A Valid Name Of Any Pattern Or Length", Value: &load.Node{Kind: load.Bool, Bool: true}},
}

// mutants returns systematic mutations of a valid instance: every member
// dropped, every value (and the whole instance) replaced by each of the
// replacements, an unknown member added to every object, null appended to
// every array, its last item dropped and its first repeated.
func mutants(instance []byte) [][]byte {
	root, err := load.Parse(instance)
	if err != nil {
		return nil
	}
	var out [][]byte
	emit := func() { out = append(out, root.JSON()) }
	var walk func(slot **load.Node)
	walk = func(slot **load.Node) {
		n := *slot
		for _, r := range replacements {
			rep, _ := load.Parse([]byte(r))
			*slot = rep
			emit()
		}
		*slot = n
		switch n.Kind {
		case load.Object:
			mutateObject(n, emit)
			for i := range n.Members {
				walk(&n.Members[i].Value)
			}
		case load.Array:
			mutateArray(n, emit)
			for i := range n.Items {
				walk(&n.Items[i])
			}
		}
	}
	walk(&root)
	return out
}

// mutateObject drops each member in turn, then adds each extra member.
func mutateObject(n *load.Node, emit func()) {
	members := n.Members
	for i := range members {
		n.Members = append(append([]load.Member{}, members[:i]...), members[i+1:]...)
		emit()
	}
	for _, x := range extraMembers {
		n.Members = append(append([]load.Member{}, members...), x)
		emit()
	}
	n.Members = members
}

// mutateArray appends null, drops the last item and repeats the first.
func mutateArray(n *load.Node, emit func()) {
	items := n.Items
	n.Items = append(append([]*load.Node{}, items...), &load.Node{Kind: load.Null})
	emit()
	if len(items) > 0 {
		n.Items = items[:len(items)-1]
		emit()
		n.Items = append(append([]*load.Node{}, items...), items[0])
		emit()
	}
	n.Items = items
}
