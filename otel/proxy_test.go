package otel_test

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	acpotel "github.com/acpgen/acpgen/otel"
	"github.com/acpgen/acpgen/runtime/proxy"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// One trace spans client -> proxy -> agent: the proxy, traced with the
// same Observer, continues the client's context from _meta and injects its
// own into what it forwards, both ways.
func TestOneTraceThroughProxy(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	done := make(ended, 64)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSpanProcessor(done))
	obs := acpotel.New(acpotel.WithTracerProvider(tp))
	cr, pw := io.Pipe() // proxy -> client
	pr, cw := io.Pipe() // client -> proxy
	ar, qw := io.Pipe() // proxy -> agent
	qr, aw := io.Pipe() // agent -> proxy
	a := &agent{}
	a.conn = acp.NewAgentConn(a, ar, aw, acp.ConnOptions{Observer: obs})
	cc := acp.NewClientConn(client{}, cr, cw, acp.ConnOptions{Observer: obs})
	p := proxy.New(proxy.Options{Observer: obs})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.conn.Run(ctx) })
	wg.Go(func() { _ = cc.Run(ctx) })
	wg.Go(func() { _ = p.Run(ctx, proxy.Stream(pr, pw), proxy.Stream(qr, qw)) })
	defer func() {
		cancel()
		for _, c := range []io.Closer{cr, pw, pr, cw, ar, qw, qr, aw} {
			c.Close()
		}
		wg.Wait()
	}()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	exp.Reset()
	tctx, root := tp.Tracer("test").Start(context.Background(), "editor")
	if _, err := cc.SessionPrompt(tctx, &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); err != nil {
		t.Fatal(err)
	}
	root.End()
	waitFor(t, done, "session/update consumer") // the proxy's consumer span ends first
	waitFor(t, done, "session/update consumer") // then the client's
	spans := exp.GetSpans()
	prompts := spanList(spans, "session/prompt")
	updates := spanList(spans, "session/update")
	if len(prompts) != 4 || len(updates) != 4 {
		t.Fatalf("%d session/prompt and %d session/update spans, want 4 each (client, proxy in and out, agent)", len(prompts), len(updates))
	}
	first, _ := childOf(span(t, spans, "editor", trace.SpanKindInternal), prompts)
	down := chainOf(first, prompts)
	if got := kindsOf(down); !kindsEqual(got, trace.SpanKindClient, trace.SpanKindServer, trace.SpanKindClient, trace.SpanKindServer) {
		t.Fatalf("session/prompt spans from the editor down: %v, want client, server (proxy), client (proxy), server (agent)", got)
	}
	producer, _ := childOf(down[3], updates) // the agent's update, in its prompt handler
	for _, s := range append(prompts, updates...) {
		if s.SpanContext.TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s %s in trace %s, want %s", s.Name, s.SpanKind, s.SpanContext.TraceID(), root.SpanContext().TraceID())
		}
	}
	if got := kindsOf(chainOf(producer, updates)); !kindsEqual(got, trace.SpanKindProducer, trace.SpanKindConsumer, trace.SpanKindProducer, trace.SpanKindConsumer) {
		t.Errorf("session/update spans from the agent up: %v, want producer, consumer (proxy), producer (proxy), consumer (client)", got)
	}
}

func spanList(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// chainOf returns first and its descendants among all, each the child of
// the one before.
func chainOf(first tracetest.SpanStub, all []tracetest.SpanStub) []tracetest.SpanStub {
	out := []tracetest.SpanStub{first}
	for cur := first; ; {
		next, ok := childOf(cur, all)
		if !ok {
			return out
		}
		out, cur = append(out, next), next
	}
}

func kindsOf(spans []tracetest.SpanStub) []trace.SpanKind {
	var k []trace.SpanKind
	for _, s := range spans {
		k = append(k, s.SpanKind)
	}
	return k
}

// childOf returns the span among all whose parent is s.
func childOf(s tracetest.SpanStub, all []tracetest.SpanStub) (tracetest.SpanStub, bool) {
	for _, c := range all {
		if c.Parent.SpanID() == s.SpanContext.SpanID() {
			return c, true
		}
	}
	return tracetest.SpanStub{}, false
}

func kindsEqual(got []trace.SpanKind, want ...trace.SpanKind) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
