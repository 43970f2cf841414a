package inspect

import (
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/cputime"
)

// BenchmarkObserveUpdate is the checker's cost per agent_message_chunk of
// 1 KiB: wall time, and the process's CPU time per update (cpu-ns/op, the
// garbage collector's included), which a loaded machine scatters less.
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
	if m := c.Observe(ToClient, line); len(m.Findings) > 0 {
		b.Fatalf("findings on a valid update: %+v", m.Findings)
	}
	b.ReportAllocs()
	start := cputime.Now()
	for b.Loop() {
		c.Observe(ToClient, line)
	}
	b.ReportMetric(float64(cputime.Now()-start)/float64(b.N), "cpu-ns/op")
}
