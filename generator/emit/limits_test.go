package emit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/emit"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
)

// The runtime's object loop keeps one alias state per aliased member on its
// stack, eight at most: a def with more is refused, naming it.
func TestAliasedMembersLimit(t *testing.T) {
	schema := func(n int) string {
		var props []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"m%d": {"type": "string", "x-acpgen-aliases": ["a%d"]}`, i, i))
		}
		return `{"$defs": {"S": {"type": "object", "properties": {` + strings.Join(props, ", ") + `}}}}`
	}
	files := func(n int) error {
		doc, err := load.Load("x.json", []byte(schema(n)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := ir.Build(doc, "stable")
		if err != nil {
			t.Fatal(err)
		}
		_, err = emit.Files(m, emit.Config{Package: "x", ImportPath: "example.com/x"})
		return err
	}
	if err := files(8); err != nil {
		t.Fatalf("8 aliased members: %v", err)
	}
	if err := files(9); err == nil || !strings.Contains(err.Error(), "x.json#/$defs/S: 9 members have aliases; at most 8") {
		t.Fatalf("9 aliased members: %v", err)
	}
}
