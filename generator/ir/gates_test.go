package ir

import (
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/facts"
)

func TestGatesResolveOnPinnedSchema(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct{ f, ch string }{{"schema.json", "stable"}, {"schema.unstable.json", "unstable"}} {
		m := loadModel(t, c.f, c.ch)
		gates, skipped := m.ResolveGates(facts.Gates)
		for _, g := range gates {
			used[GateString(g.Row)] = true
		}
		if len(gates) == 0 {
			t.Errorf("%s: no gate applies (%d do not)", c.ch, len(skipped))
		}
	}
	for _, row := range facts.Gates {
		if !used[GateString(row)] {
			t.Errorf("table row matches nothing in either channel: %s", GateString(row))
		}
	}
}

func TestGateMismatchesAreReported(t *testing.T) {
	m := loadModel(t, "schema.unstable.json", "unstable")
	for _, c := range []struct {
		row  facts.Gate
		want string
	}{
		{facts.Gate{Method: "session/teleport", Capability: "agentCapabilities.loadSession"}, "no method session/teleport"},
		{facts.Gate{Method: "session/new", Path: "/extraDirectories", Capability: "agentCapabilities.loadSession"}, `NewSessionRequest has no member "extraDirectories"`},
		{facts.Gate{Method: "session/prompt", Path: "/prompt/*", Variant: "video", Capability: "agentCapabilities.loadSession"}, `no variant or enum value "video"`},
		{facts.Gate{Method: "session/prompt", Capability: "agentCapabilities.promptCapabilities.video"}, `no member "agentCapabilities.promptCapabilities.video"`},
		{facts.Gate{Method: "session/prompt", Capability: "serverCapabilities.x"}, `initialize's result (the agent's advertisement) has no member "serverCapabilities"`},
		// The client's capabilities cannot grant what the client sends.
		{facts.Gate{Method: "session/prompt", Capability: "clientCapabilities.terminal"}, `initialize's result (the agent's advertisement) has no member "clientCapabilities"`},
		{facts.Gate{Method: "session/update", Path: "/update", Variant: "plan_update", Capability: "agentCapabilities.loadSession"}, `initialize's params (the client's advertisement) has no member "agentCapabilities"`},
		{facts.Gate{Method: "session/prompt", Path: "/sessionId/*", Capability: "agentCapabilities.loadSession"}, `* needs an array or map`},
		{facts.Gate{Method: "session/list", Result: true, Path: "/sessions/*", Require: true, Capability: "agentCapabilities.loadSession"}, `require gate must end at a member`},
		// A _meta key is entered only through a namespace an overlay types.
		{facts.Gate{Method: "session/prompt", Capability: "/agentCapabilities/_meta/vendor.dev/x"}, `"vendor.dev" is no typed namespace of agentCapabilities._meta`},
		{facts.Gate{Method: "session/prompt", Capability: "/agentCapabilities/_meta/vendor~2dev"}, `has a ~ that is not ~0 or ~1`},
		{facts.Gate{Method: "session/prompt", Capability: "agentCapabilities..loadSession"}, `empty token`},
	} {
		gates, skipped := m.ResolveGates([]facts.Gate{c.row})
		if len(gates) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, c.want) {
			t.Errorf("%s: got %d gates, skipped %+v; want reason %q", GateString(c.row), len(gates), skipped, c.want)
		}
	}
}

func TestStaleGatesAreThoseNoChannelOfTheirProtocolUses(t *testing.T) {
	teleport := facts.Gate{Method: "session/teleport", Capability: "agentCapabilities.loadSession", Source: "test"}
	fork := facts.Gate{Method: "session/fork", Capability: "agentCapabilities.loadSession", Source: "test"}
	rows := []facts.Gate{teleport, fork}
	var channels []ChannelGates
	for _, c := range []struct{ f, ch string }{{"schema.json", "stable"}, {"schema.unstable.json", "unstable"}} {
		gates, skipped := loadModel(t, c.f, c.ch).ResolveGates(rows)
		channels = append(channels, ChannelGates{Channel: c.ch, Protocol: 1, Gates: gates, Skipped: skipped})
	}
	// session/fork is unstable only: skipped in stable, used in unstable.
	// The same row kept for protocol 2 is stale there although v1 uses it.
	channels = append(channels, ChannelGates{Channel: "v2", Protocol: 2, Skipped: []SkippedGate{{fork, "no method session/fork"}}})
	got := StaleGates(channels)
	want := []string{
		"v1 session/teleport params -> agentCapabilities.loadSession (test): stable: no method session/teleport; unstable: no method session/teleport",
		"v2 session/fork params -> agentCapabilities.loadSession (test): v2: no method session/fork",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stale rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A capability written as a JSON pointer is the same capability as its
// dotted form, and is named dotted.
func TestCapabilityPointerForm(t *testing.T) {
	m := loadModel(t, "schema.json", "stable")
	rows := []facts.Gate{
		{Method: "session/load", Capability: "agentCapabilities.loadSession", Source: "table"},
		{Method: "session/load", Capability: "/agentCapabilities/loadSession", Source: "overlay"},
	}
	gates, skipped := m.ResolveGates(rows)
	if len(gates) != 1 || len(skipped) != 0 {
		t.Fatalf("got %d gates, skipped %+v; want the two rows as one gate", len(gates), skipped)
	}
	c := gates[0].Cap
	if c.Path != "agentCapabilities.loadSession" || !c.Bool || !c.InResult || strings.Join(c.Tokens, ",") != "agentCapabilities,loadSession" {
		t.Errorf("capability %+v", c)
	}
}
