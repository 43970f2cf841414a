package acp1_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/acpgen/acpgen/runtime/acphttp"
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

// The network pair: ACP over loopback WebSocket (runtime/acphttp, the
// agent served, the editor dialing) against the SDK's own Streamable HTTP
// transport on loopback.

func BenchmarkToolCallOverACPWebSocket(b *testing.B) {
	cs := make(chan *mcp.ClientSession, 1)
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		a := &agent{acp: true, mcp: mcpacp.NewCaller(nil), sessions: make(chan []unstable.MCPServer, 1)}
		conn := unstable.NewAgentConn(a, c, c, unstable.ConnOptions{})
		a.mcp.Bind(conn)
		go func() {
			servers := acp1.ACPServers(<-a.sessions)
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			s, err := a.mcp.Connect(ctx, client, string(servers[0].ServerID))
			if err != nil {
				b.Error(err)
			}
			cs <- s
		}()
		return conn.Run(ctx)
	}, acphttp.Options{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx := context.Background()
	c, err := acphttp.Dial(ctx, hs.URL, acphttp.DialOptions{Profile: acphttp.WebSocket})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ed := &editor{mcp: mcpacp.NewProvider()}
	conn := unstable.NewClientConn(ed, c, c, unstable.ConnOptions{})
	ed.mcp.Bind(conn)
	go conn.Run(ctx)
	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		b.Fatal(err)
	}
	reg, err := ed.mcp.Register("project-tools", mcptestHandler(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: "/", MCPServers: acp1.Declarations(init, reg)}); err != nil {
		b.Fatal(err)
	}
	s := <-cs
	if s == nil {
		b.FailNow()
	}
	defer s.Close()
	benchCall(b, s)
}

func BenchmarkToolCallOverSDKStreamableHTTP(b *testing.B) {
	server := mcptest.Server(nil, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: mcpacp.ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchCall(b, cs)
}
