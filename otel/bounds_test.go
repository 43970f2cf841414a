package otel_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	acpotel "github.com/acpgen/acpgen/otel"
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
	global "go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// observe runs one inbound message through a fresh Observer and returns
// its span.
func observe(t *testing.T, m *dispatch.Message) tracetest.SpanStub {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	_, finish := acpotel.New(acpotel.WithTracerProvider(tp)).Begin(context.Background(), m)
	finish(0, nil)
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	return spans[0]
}

// A peer's strings reach a span bounded: a 100 KB method name (a method
// no handler knows) and a 4 MiB sessionId are cut to
// acpotel.MaxStringLength bytes, on a UTF-8 boundary, with what was cut
// marked.
func TestSpanStringsBounded(t *testing.T) {
	method := "_x/" + strings.Repeat("é", 50_000)
	session := strings.Repeat("s", 4<<20)
	s := observe(t, &dispatch.Message{Method: method, SessionID: session, Direction: dispatch.Inbound})
	for what, got := range map[string]string{
		"span name":  s.Name,
		"rpc.method": attr(s, "rpc.method").AsString(),
		"session id": attr(s, acpotel.SessionIDKey).AsString(),
	} {
		if len(got) > acpotel.MaxStringLength || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
			t.Errorf("%s: %d bytes (valid UTF-8 %t), want at most %d, marked cut", what, len(got), utf8.ValidString(got), acpotel.MaxStringLength)
		}
	}
	if full := observe(t, &dispatch.Message{Method: "session/prompt", SessionID: "s1", Direction: dispatch.Inbound}); full.Name != "session/prompt" || attr(full, acpotel.SessionIDKey).AsString() != "s1" {
		t.Errorf("short strings: %q, %v; want them whole", full.Name, full.Attributes)
	}
}

// allocated returns the bytes f allocates, as the mean of runs.
func allocated(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// Reading the trace context out of _meta costs memory in proportion to
// what it carries, not to the size of _meta: 1 MiB of other members, small
// ones or one long string, allocates under 1/8 of that.
func TestMetaReadBounded(t *testing.T) {
	traceparent := `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`
	var small strings.Builder
	small.WriteString("{" + traceparent)
	for i := 0; small.Len() < 1<<20; i++ {
		fmt.Fprintf(&small, `,"k%d":%d`, i, i)
	}
	small.WriteString("}")
	long := "{" + traceparent + `,"other":"` + strings.Repeat("\\n", 1<<19) + `"}`
	tp := sdktrace.NewTracerProvider()
	obs := acpotel.New(acpotel.WithTracerProvider(tp))
	for name, meta := range map[string]string{"many small members": small.String(), "one long string": long} {
		m := &dispatch.Message{Method: "session/prompt", Direction: dispatch.Inbound, Meta: wire.Raw(meta)}
		var traceID trace.TraceID
		got := allocated(5, func() {
			ctx, finish := obs.Begin(context.Background(), m)
			traceID = trace.SpanContextFromContext(ctx).TraceID()
			finish(0, nil)
		})
		if got > uint64(len(meta))/8 {
			t.Errorf("%s: Begin allocated %d bytes for a _meta of %d", name, got, len(meta))
		}
		if traceID.String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("%s: the span is in trace %s, want the traceparent's", name, traceID)
		}
	}
}

// Baggage past the W3C limit (8192 bytes) is dropped, and reported
// through OpenTelemetry's error handler at most once in a while, however
// many messages carry it.
func TestOversizeBaggageReportedRarely(t *testing.T) {
	var reports atomic.Int64
	global.SetErrorHandler(global.ErrorHandlerFunc(func(error) { reports.Add(1) }))
	defer global.SetErrorHandler(global.ErrorHandlerFunc(func(error) {}))
	meta := wire.Raw(`{"baggage":"k=` + strings.Repeat("v", 10_000) + `"}`)
	obs := acpotel.New(acpotel.WithTracerProvider(sdktrace.NewTracerProvider()))
	for range 100 {
		_, finish := obs.Begin(context.Background(), &dispatch.Message{Method: "session/prompt", Direction: dispatch.Inbound, Meta: meta})
		finish(0, nil)
	}
	if n := reports.Load(); n != 1 {
		t.Errorf("%d reports for 100 messages with oversize baggage, want 1", n)
	}
}
