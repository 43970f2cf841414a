package acpgentest

import (
	"github.com/acpgen/acpgen/generator/load"
)

// replacements are the values every position is replaced with: each breaks
// some rule (type, null, range, format, enum, tag, emptiness, absoluteness).
var replacements = []string{
	`null`, `true`, `0`, `-1`, `1.5`, `4294967296`, `18446744073709551616`, `1e400`,
	`""`, `"x_future_kind"`, `"relative/path"`, `"not a uri"`, `[]`, `{}`, `[null]`, `[1]`,
}

// mutants returns systematic mutations of a valid instance: every member
// dropped, every value (and the whole instance) replaced by each of the
// replacements, and null appended to every array.
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
			members := n.Members
			for i := range members {
				n.Members = append(append([]load.Member{}, members[:i]...), members[i+1:]...)
				emit()
				n.Members = members
			}
			for i := range n.Members {
				walk(&n.Members[i].Value)
			}
		case load.Array:
			items := n.Items
			n.Items = append(append([]*load.Node{}, items...), &load.Node{Kind: load.Null})
			emit()
			n.Items = items
			for i := range n.Items {
				walk(&n.Items[i])
			}
		}
	}
	walk(&root)
	return out
}
