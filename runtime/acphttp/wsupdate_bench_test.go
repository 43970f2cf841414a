package acphttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/coder/websocket"
)

// BenchmarkWebSocketUpdate measures one session/update a WebSocket
// connection streams, with the resumable log on (the default: each message
// carries its cursor and is retained) and off (RetainMessages -1). The
// client reads the frames into one buffer, so what differs between the two
// is the server's. Compare allocs/op, and instructions under cachegrind.
func BenchmarkWebSocketUpdate(b *testing.B) {
	for _, tc := range []struct {
		name   string
		retain int
	}{{"log=on", 0}, {"log=off", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			s := NewServer(func(ctx context.Context, c *Conn) error {
				f := &flooder{}
				f.conn = jsonrpc.NewConn(c, c, f, jsonrpc.Options{Logger: quiet()})
				return f.conn.Run(ctx)
			}, Options{Logger: quiet(), RetainMessages: tc.retain})
			url := "ws" + strings.TrimPrefix(startServer(b, s), "http")
			ctx := context.Background()
			ws, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.CloseNow()
			var buf bytes.Buffer
			read := func() []byte {
				buf.Reset()
				_, r, err := ws.Reader(ctx)
				if err == nil {
					_, err = io.Copy(&buf, r)
				}
				if err != nil {
					b.Fatal(err)
				}
				return buf.Bytes()
			}
			if err := ws.Write(ctx, websocket.MessageText, []byte(initBody)); err != nil {
				b.Fatal(err)
			}
			if m := read(); !bytes.Contains(m, []byte(`"result"`)) {
				b.Fatalf("initialize: %s", m)
			}
			b.SetBytes(int64(len(benchUpdate)))
			b.ResetTimer()
			flood := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"flood","params":{"sessionId":"s","n":%d}}`, b.N)
			if err := ws.Write(ctx, websocket.MessageText, flood); err != nil {
				b.Fatal(err)
			}
			for n := 0; ; n++ {
				m := read()
				if bytes.HasPrefix(m, []byte(`{"jsonrpc":"2.0","id":2`)) {
					if n != b.N {
						b.Fatalf("%d updates before the answer, want %d", n, b.N)
					}
					break
				}
			}
			b.StopTimer()
		})
	}
}
