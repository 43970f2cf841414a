package emit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// TestPatternNamesEveryAssertion emits a pattern using each zero-width
// assertion and finds each by its runtime/wire name.
func TestPatternNamesEveryAssertion(t *testing.T) {
	e := &emitter{}
	e.patternVar(`(?m)^\Aa\b-\B$\z`)
	if err := e.patternErr(); err != nil {
		t.Fatal(err)
	}
	f := jen.NewFile("x")
	e.flushPatterns(f)
	src := fmt.Sprintf("%#v", f)
	for _, n := range emptyNames {
		if !strings.Contains(src, "wire."+n.name) {
			t.Errorf("no wire.%s in\n%s", n.name, src)
		}
	}
}
