package acphttp

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// benchUpdate is an agent_message_chunk session/update's params, the
// message a prompt turn streams most.
const benchUpdate = `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The build fails because the import path is wrong."}}}`

// flooder answers "initialize"; "flood" {"sessionId":"s","n":N} sends N
// session/update notifications, then answers.
type flooder struct{ conn *jsonrpc.Conn }

func (f *flooder) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if method == "initialize" {
		return wire.Raw(`{"protocolVersion":1}`), nil
	}
	var n int
	fmt.Sscanf(string(params), `{"sessionId":"s","n":%d}`, &n)
	for range n {
		if err := f.conn.Notify(ctx, "session/update", wire.Raw(benchUpdate)); err != nil {
			return nil, err
		}
	}
	return wire.Raw(`{}`), nil
}

func (f *flooder) HandleNotification(context.Context, string, wire.Raw) {}

// counter counts notifications.
type counter struct{ n int }

func (c *counter) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
}
func (c *counter) HandleNotification(context.Context, string, wire.Raw) { c.n++ }

// BenchmarkNotificationStream measures one session/update from agent to
// client, end to end: over in-process pipes (stdio framing) and over the two
// network profiles on loopback. Compare the ns/op as ratios of one run.
func BenchmarkNotificationStream(b *testing.B) {
	b.Run("stdio", func(b *testing.B) {
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		f := &flooder{}
		f.conn = jsonrpc.NewConn(ar, aw, f, jsonrpc.Options{Logger: quiet()})
		go f.conn.Run(context.Background())
		defer f.conn.Close()
		benchClient(b, cr, cw)
	})
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		b.Run(string(p), func(b *testing.B) {
			s := NewServer(func(ctx context.Context, c *Conn) error {
				f := &flooder{}
				f.conn = jsonrpc.NewConn(c, c, f, jsonrpc.Options{Logger: quiet()})
				return f.conn.Run(ctx)
			}, Options{Logger: quiet()})
			url := startServer(b, s)
			c, err := Dial(context.Background(), url, DialOptions{Profile: p, Logger: quiet()})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchClient(b, c, c)
		})
	}
}

func benchClient(b *testing.B, r io.Reader, w io.Writer) {
	cnt := &counter{}
	conn := jsonrpc.NewConn(r, w, cnt, jsonrpc.Options{Logger: quiet()})
	go conn.Run(context.Background())
	defer conn.Close()
	ctx := context.Background()
	if _, err := conn.Call(ctx, "initialize", wire.Raw(`{}`)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchUpdate)))
	b.ResetTimer()
	if _, err := conn.Call(ctx, "flood", fmt.Appendf(nil, `{"sessionId":"s","n":%d}`, b.N)); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if cnt.n != b.N {
		b.Fatalf("%d notifications handled, want %d", cnt.n, b.N)
	}
}
