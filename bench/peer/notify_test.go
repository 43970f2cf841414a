package peer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// BenchmarkNotify measures one streamed session/update the agent sends:
// checked, encoded and written, on stdio's framing (newline-delimited).
func BenchmarkNotify(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := newStream()
	a := acp.NewAgentConn(agent{}, s, s, acp.ConnOptions{RPC: jsonrpc.Options{Logger: quiet}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()
	s.push(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%d}}`+"\n", acp.CurrentProtocolVersion))
	s.wait(1)
	update := new(acp.SessionNotification)
	for _, m := range messages {
		if m.name == "update" {
			if err := wire.DecodeWith(m.params, update, acp.TableOf(update), wire.Strict); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.SessionUpdate(ctx, update); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.close()
	if err := <-runDone; err != nil {
		b.Fatal(err)
	}
}
