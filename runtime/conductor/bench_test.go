package conductor

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

// BenchmarkRoute measures routing one 1 KiB session/update between
// in-memory peers, each way a frame can go: as it is (a component to the
// editor), wrapped (a component to a proxy), unwrapped (a proxy's
// proxy/successor to its successor); "copy" is the frame's bytes copied
// to the writer, the floor the others compare with.
func BenchmarkRoute(b *testing.B) {
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", 1024) + `"}}}}`
	wrapped := `{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("x", 1024) + `"}}},"_meta":{"hop":"a"}}}`
	c := &chain{log: slog.New(slog.DiscardHandler)}
	for i := range 4 {
		c.peers = append(c.peers, newPeer(i, "peer", io.Discard))
	}
	for _, bc := range []struct {
		name, frame string
		from        int
	}{
		{"as-is", update, 1},
		{"wrapped", update, 2},
		{"unwrapped", wrapped, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := &router{chain: c, from: c.peers[bc.from]}
			frame := []byte(bc.frame)
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				r.route(frame)
			}
		})
	}
	b.Run("copy", func(b *testing.B) {
		frame := []byte(update + "\n")
		p := c.peers[0]
		buf := make([]byte, 0, 2048)
		b.SetBytes(int64(len(frame)))
		b.ReportAllocs()
		for b.Loop() {
			buf = append(buf[:0], frame...)
			p.write(buf)
		}
	})
}
