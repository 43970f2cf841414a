package conform

import (
	"encoding/json"
	"testing"
)

// capGranted follows a capability's tokens, so a _meta key holding a dot is
// one step, as the JSON pointer form names it.
func TestCapGrantedFollowsTokens(t *testing.T) {
	init := json.RawMessage(`{"agentCapabilities":{"_meta":{"sandboxagent.dev":{"extensions":{"sessionMetadata":true,"sessionEventsPoll":false}}}}}`)
	path := func(leaf string) []string {
		return []string{"agentCapabilities", "_meta", "sandboxagent.dev", "extensions", leaf}
	}
	for _, c := range []struct {
		path []string
		want bool
	}{
		{path("sessionMetadata"), true},
		{path("sessionEventsPoll"), false},
		{path("requestQuestion"), false},
		{[]string{"agentCapabilities", "_meta", "sandboxagent", "dev"}, false},
		{[]string{"agentCapabilities", "_meta", "sandboxagent.dev"}, true},
	} {
		if got := capGranted(init, c.path); got != c.want {
			t.Errorf("capGranted(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
