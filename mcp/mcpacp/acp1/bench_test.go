package acp1_test

import (
	"context"
	"io"
	"testing"

	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two benchmarks time one tools/call round trip (greet) of an SDK
// client session on the same server, at the same MCP revision, over a pair
// of in-process pipes: through ACP (mcp/message over a generated
// connection) and through the SDK's own stdio-class transport
// (IOTransport, what CommandTransport uses over a child's pipes). Compare
// them as a ratio (benchstat).

func benchCall(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "ada"}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToolCallOverACP(b *testing.B) {
	p := newPair(b, true)
	reg, err := p.editor.mcp.Register("project-tools", mcptestHandler(), nil)
	if err != nil {
		b.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := p.agent.mcp.Connect(context.Background(), client, reg.ServerID)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchCall(b, cs)
}

func BenchmarkToolCallOverSDKPipes(b *testing.B) {
	ctx := context.Background()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ss, err := mcptest.Server(nil, nil).Connect(ctx, &mcp.IOTransport{Reader: toServerR, Writer: toClientW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClientR, Writer: toServerW}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchCall(b, cs)
}
