package corpus

import (
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
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

// Mutant is one mutation of a valid instance: what was done where.
type Mutant struct {
	Pointer string // the mutated position, a JSON pointer into the original
	Change  string // "dropped", "replaced by null", "added member N_COUNT", ...
	JSON    []byte
}

// Mutants returns systematic mutations of a valid instance: every member
// dropped, every value (and the whole instance) replaced by each of the
// replacements, an unknown member added to every object, null appended to
// every array, its last item dropped and its first repeated.
func Mutants(instance []byte) [][]byte {
	var out [][]byte
	for _, m := range Mutations(instance) {
		out = append(out, m.JSON)
	}
	return out
}

// Mutations is Mutants with each mutation described.
func Mutations(instance []byte) []Mutant {
	root, err := load.Parse(instance)
	if err != nil {
		return nil
	}
	var out []Mutant
	emit := func(ptr, change string) { out = append(out, Mutant{ptr, change, root.JSON()}) }
	var walk func(slot **load.Node, ptr string)
	walk = func(slot **load.Node, ptr string) {
		n := *slot
		for _, r := range replacements {
			rep, _ := load.Parse([]byte(r))
			*slot = rep
			emit(ptr, "replaced by "+abbrev(r))
		}
		*slot = n
		switch n.Kind {
		case load.Object:
			mutateObject(n, ptr, emit)
			for i := range n.Members {
				walk(&n.Members[i].Value, ptr+"/"+jsonpointer.Escape(n.Members[i].Name))
			}
		case load.Array:
			mutateArray(n, ptr, emit)
			for i := range n.Items {
				walk(&n.Items[i], ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(&root, "")
	return out
}

// mutateObject drops each member in turn, then adds each extra member.
func mutateObject(n *load.Node, ptr string, emit func(ptr, change string)) {
	members := n.Members
	for i := range members {
		n.Members = append(append([]load.Member{}, members[:i]...), members[i+1:]...)
		emit(ptr+"/"+jsonpointer.Escape(members[i].Name), "dropped")
	}
	for _, x := range extraMembers {
		n.Members = append(append([]load.Member{}, members...), x)
		emit(ptr, "added member "+abbrev(x.Name))
	}
	n.Members = members
}

// mutateArray appends null, drops the last item and repeats the first.
func mutateArray(n *load.Node, ptr string, emit func(ptr, change string)) {
	items := n.Items
	n.Items = append(append([]*load.Node{}, items...), &load.Node{Kind: load.Null})
	emit(ptr, "null appended")
	if len(items) > 0 {
		n.Items = items[:len(items)-1]
		emit(ptr, "last item dropped")
		n.Items = append(append([]*load.Node{}, items...), items[0])
		emit(ptr, "first item repeated")
	}
	n.Items = items
}

func abbrev(s string) string {
	if len(s) > 24 {
		return s[:12] + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}
