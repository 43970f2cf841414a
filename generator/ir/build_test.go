package ir

import (
	"testing"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/internal/pinned"
)

func loadModel(t *testing.T, file, channel string) *Model {
	t.Helper()
	doc, err := load.ReadFile(pinned.Path(t, file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(doc, channel)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildPinned(t *testing.T) {
	for _, c := range []struct{ file, channel string }{{"schema.json", "stable"}, {"schema.unstable.json", "unstable"}} {
		m := loadModel(t, c.file, c.channel)
		defs := 0
		kinds := map[Kind]int{}
		for _, ty := range m.Types {
			if ty.Def != "" {
				defs++
			}
			kinds[ty.Kind]++
		}
		t.Logf("%s: %d defs, %d types, kinds %v, %d methods", c.channel, defs, len(m.Types), kinds, len(m.Methods))
	}
}
