package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// BenchmarkRetentionAppend measures what keeping a delivered message costs
// each Retention, per message (ns/op), as acphttp calls it: a WebSocket
// connection appends each message as it is written (batch 1), a Streamable
// HTTP stream what its receiver took at once (batch 64 under a flood);
// past RetainMessages (4,096) each append also forgets the oldest. The
// store's Retention writes behind: the time runs until the last message is
// committed, so ns/msg is what a stream sustains.
func BenchmarkRetentionAppend(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"_meta":{"acp/cursor":"0123456789ab.1234"},"sessionId":"sess_5f0c8b3e9a1d4c7b","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" word"}}}}`)
	stores := []struct {
		name string
		open func(b *testing.B) acphttp.Retention
	}{
		{"memory", func(*testing.B) acphttp.Retention { return acphttp.MemoryRetention{} }},
		{"sqlite", func(b *testing.B) acphttp.Retention {
			st, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "s.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			r, _ := st.Retention(ctx, 0)
			return r
		}},
		{"postgres", func(b *testing.B) acphttp.Retention {
			r, _ := openPostgres(b, postgresURL(b)).Retention(ctx, 0)
			return r
		}},
	}
	for _, batch := range []int{1, 64} {
		for _, s := range stores {
			b.Run(fmt.Sprintf("%s/batch=%d", s.name, batch), func(b *testing.B) {
				l := s.open(b).Open("p", fmt.Sprintf("bench%d", batch))
				defer l.Close()
				msgs := make([][]byte, batch)
				for i := range msgs {
					msgs[i] = msg
				}
				next := uint64(1)
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					if err := l.Append(next, msgs); err != nil {
						b.Fatal(err)
					}
					next += uint64(batch)
					if next > acphttp.DefaultRetainMessages {
						l.Forget(next - acphttp.DefaultRetainMessages - 1)
					}
				}
				// Until the last is committed: what a sustained stream costs.
				if _, err := l.After(next-2, next-1); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*batch), "ns/msg")
			})
		}
	}
}
