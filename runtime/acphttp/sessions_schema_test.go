package acphttp_test

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// TestDefaultSessionMethods: the default Options.SessionMethods is the
// union, over the channels acpgen.json generates, of the client-to-agent
// methods whose params require a sessionId, as the IR reads them. A method
// the schema adds or drops fails here until the list follows.
func TestDefaultSessionMethods(t *testing.T) {
	root := pinned.Root(t)
	pinned.Dir(t) // the release in the cache
	r, err := config.Setup(context.Background(), filepath.Join(root, "acpgen.json"), config.Overrides{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, ch := range r.Config.Channels {
		ld, err := generator.LoadChannel(filepath.Join(r.Config.SchemaDir, ch.SchemaFile), ch.Overlays, ch.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ld.Model.Methods {
			if m.Side == "agent" && requiresSessionID(m.Params) && !slices.Contains(want, m.Wire) {
				want = append(want, m.Wire)
			}
		}
	}
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(acphttp.DefaultSessionMethods())); !slices.Equal(got, want) {
		t.Errorf("DefaultSessionMethods() = %q\nthe schema's session methods: %q", got, want)
	}
}

func requiresSessionID(params *ir.Type) bool {
	if params == nil {
		return false
	}
	for _, f := range params.Underlying().Fields {
		if f.JSON == "sessionId" && f.Required {
			return true
		}
	}
	return false
}
