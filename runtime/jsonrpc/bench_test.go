package jsonrpc

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// BenchmarkCallRoundTrip measures one request and its response between two
// Conns over io.Pipe, including the handler goroutine.
func BenchmarkCallRoundTrip(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, _ := pair(b, funcs{}, funcs{req: echo}, Options{Logger: quiet})
	params := wire.Raw(`{"sessionId":"sess_1","prompt":[{"type":"text","text":"hello"}]}`)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := client.Call(ctx, "session/prompt", params)
		if err != nil {
			b.Fatal(err)
		}
		if len(res) != len(params) {
			b.Fatalf("result %s", res)
		}
	}
}

// BenchmarkParse measures classifying one request frame.
func BenchmarkParse(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"sess_1","prompt":[{"type":"text","text":"hello"}]}}`)
	var d wire.Decoder
	b.ReportAllocs()
	for b.Loop() {
		var m message
		if e := parseEntry(&d, frame, &m); e != nil {
			b.Fatal(e.Reason)
		}
	}
}

// BenchmarkParseResponse measures classifying one error response frame, the
// path that also decodes the error object.
func BenchmarkParseResponse(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":{"details":"sessionId"}}}`)
	var d wire.Decoder
	b.ReportAllocs()
	for b.Loop() {
		var m message
		if e := parseEntry(&d, frame, &m); e != nil || m.rpcErr == nil {
			b.Fatal("not an error response")
		}
	}
}
