package facts

import "testing"

// Every hand-kept row says why it holds: gate rows and ungated methods.
func TestEveryRowHasAReason(t *testing.T) {
	for v := 1; v <= 2; v++ {
		for _, g := range ForProtocol(v) {
			if g.Reason == "" {
				t.Errorf("v%d gate row %s %s [%s] has no reason", v, g.Method, g.Path, g.Variant)
			}
		}
		for _, u := range UngatedForProtocol(v) {
			if u.Reason == "" {
				t.Errorf("v%d ungated %s has no reason", v, u.Method)
			}
		}
	}
}
