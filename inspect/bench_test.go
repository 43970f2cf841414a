package inspect

import (
	"strings"
	"testing"
)

// BenchmarkObserveUpdate is the checker's cost per agent_message_chunk.
func BenchmarkObserveUpdate(b *testing.B) {
	c := NewChecker(testProfiles(b))
	for _, s := range v1Session[:5] {
		dir := ToAgent
		if strings.HasPrefix(s, "< ") {
			dir = ToClient
		}
		c.Observe(dir, []byte(s[2:]))
	}
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", 1024) + `"}}}}`)
	b.ResetTimer()
	for b.Loop() {
		c.Observe(ToClient, line)
	}
}
