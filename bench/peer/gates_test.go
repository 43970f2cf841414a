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

// BenchmarkGateCheck measures the capability gate check of each benchmark
// message through the Negotiated a client connection settled in initialize
// (the agent advertises additionalDirectories, nothing else), so every
// gate row on the message's method is evaluated and none is violated.
func BenchmarkGateCheck(b *testing.B) {
	n := negotiated(b)
	for _, m := range messages {
		v := m.acpgen()
		if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Strict); err != nil {
			b.Fatal(err)
		}
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if vs := n.CheckParams(m.method, v); len(vs) > 0 {
					b.Fatal(vs)
				}
			}
		})
	}
}

// negotiated runs a client connection's initialize against a scripted
// answer and returns what it settled.
func negotiated(b *testing.B) acp.Negotiated {
	s := newStream()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := acp.NewClientConn(acp.UnimplementedClientHandler{}, s, s, acp.ConnOptions{RPC: jsonrpc.Options{Logger: quiet}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Run(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Initialize(ctx, &acp.InitializeRequest{})
		done <- err
	}()
	s.wait(1) // the initialize request is written
	s.push(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":%d,"agentCapabilities":{"sessionCapabilities":{"additionalDirectories":{}}}}}`+"\n", acp.CurrentProtocolVersion))
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	s.close()
	return c.Negotiated()
}
