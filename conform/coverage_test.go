package conform

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/pinned"
)

// Every method of every shipped channel (the repository's acpgen.json, its
// overlays applied) has its facts decided once: its session scope (by the
// schema or a facts.SessionScope row) and how conform covers it (by the
// schema-derived cases or a coverage row). Every hand-kept row has a
// reason and decides something of some channel.
func TestEveryMethodHasItsFacts(t *testing.T) {
	used := map[string]bool{}
	open := map[string]bool{}
	for _, channel := range []string{"stable", "unstable", "v2", "v2-unstable"} {
		p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: channel})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range p.Model.UndecidedSessionScope(facts.SessionScopes) {
			t.Errorf("%s: %s: no session-scope decision (add a facts.SessionScope row with its reason)", channel, w)
		}
		for _, r := range facts.SessionScopes {
			open[r.Method] = open[r.Method] || p.Model.SessionScopeOpen(r.Method)
		}
		for _, m := range p.Model.Methods {
			if _, _, ok := coverage(m); !ok {
				t.Errorf("%s: %s (%s): no conform coverage (add a coverageRow with its reason)", channel, m.Wire, m.Side)
			}
			used[m.Wire] = true
		}
	}
	for _, r := range coverageRows {
		if r.Reason == "" || !used[r.Method] {
			t.Errorf("coverage row %q: reason %q; used by a channel: %t", r.Method, r.Reason, used[r.Method])
		}
	}
	for _, r := range facts.SessionScopes {
		if r.Reason == "" || !open[r.Method] {
			t.Errorf("facts.SessionScope %q: reason %q; decides a method the schema leaves open: %t", r.Method, r.Reason, open[r.Method])
		}
	}
}

// A method the schema leaves open (an optional sessionId) and that no row
// decides is reported, and a method that is not an agent's or client's
// request needs a coverage row: the checks above can fail.
func TestUndecidedFactsReported(t *testing.T) {
	optional := &ir.Type{Name: "FrobnicateNotification", Fields: []*ir.Field{{JSON: "sessionId", Name: "SessionID"}}}
	m := &ir.Method{Wire: "session/frobnicate", Side: "client", Notification: true, Params: optional}
	model := &ir.Model{Methods: []*ir.Method{m}}
	if got := model.UndecidedSessionScope(nil); len(got) != 1 || got[0] != "session/frobnicate (client)" {
		t.Errorf("undecided: %q", got)
	}
	if got := model.UndecidedSessionScope([]facts.SessionScope{{Method: "session/frobnicate", Reason: "test"}}); len(got) != 0 {
		t.Errorf("decided by a row: %q", got)
	}
	if _, _, ok := coverage(m); ok {
		t.Error("a notification without a row is covered")
	}
}
