package otel_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	acpotel "github.com/acpgen/acpgen/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// agent answers a prompt with one agent_message_chunk update, and refuses
// a prompt for a session other than "s1".
type agent struct {
	acp.UnimplementedAgentHandler
	conn *acp.AgentConn
}

func (a *agent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	if p.SessionID != "s1" {
		return nil, acp.NewResourceNotFoundError(nil)
	}
	u := acp.SessionNotification{SessionID: p.SessionID, Update: acp.NewSessionUpdateAgentMessageChunk(acp.ContentChunk{Content: acp.NewContentBlockText(acp.TextContent{Text: "hi"})})}
	if err := a.conn.SessionUpdate(ctx, &u); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type client struct{ acp.UnimplementedClientHandler }

func (client) SessionUpdate(context.Context, *acp.SessionNotification) {}

// ended tells the name and kind of each span that ends.
type ended chan string

func (e ended) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (e ended) OnEnd(s sdktrace.ReadOnlySpan)                   { e <- s.Name() + " " + s.SpanKind().String() }
func (e ended) Shutdown(context.Context) error                  { return nil }
func (e ended) ForceFlush(context.Context) error                { return nil }

// pair runs a traced client and agent of gen/acp over pipes until the test
// ends, both exporting to exp; they have completed initialize.
func pair(t *testing.T, exp *tracetest.InMemoryExporter, done ended) (*acp.ClientConn, trace.Tracer) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSpanProcessor(done))
	opts := acp.ConnOptions{Observer: acpotel.New(acpotel.WithTracerProvider(tp))}
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	a := &agent{}
	a.conn = acp.NewAgentConn(a, ar, aw, opts)
	cc := acp.NewClientConn(client{}, cr, cw, opts)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.conn.Run(ctx) }()
	go func() { defer wg.Done(); cc.Run(ctx) }()
	t.Cleanup(func() { cancel(); cw.Close(); aw.Close(); wg.Wait() })
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return cc, tp.Tracer("test")
}

// waitFor reads ended spans until want has ended.
func waitFor(t *testing.T, done ended, want string) {
	t.Helper()
	for {
		select {
		case got := <-done:
			if got == want {
				return
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s never ended", want)
		}
	}
}

// span returns the span named name of kind, failing unless there is one.
func span(t *testing.T, spans tracetest.SpanStubs, name string, kind trace.SpanKind) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name && s.SpanKind == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s spans of kind %s, want 1", len(found), name, kind)
	}
	return found[0]
}

func attr(s tracetest.SpanStub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func TestOneTraceAcrossClientAndAgent(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	done := make(ended, 64)
	cc, tracer := pair(t, exp, done)
	exp.Reset()
	ctx, root := tracer.Start(context.Background(), "editor")
	r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "x"})}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", r, err)
	}
	root.End()
	waitFor(t, done, "session/update consumer")

	spans := exp.GetSpans()
	call := span(t, spans, "session/prompt", trace.SpanKindClient)
	handler := span(t, spans, "session/prompt", trace.SpanKindServer)
	update := span(t, spans, "session/update", trace.SpanKindProducer)
	received := span(t, spans, "session/update", trace.SpanKindConsumer)
	for _, link := range []struct {
		child, parent tracetest.SpanStub
	}{{call, span(t, spans, "editor", trace.SpanKindInternal)}, {handler, call}, {update, handler}, {received, update}} {
		if link.child.Parent.SpanID() != link.parent.SpanContext.SpanID() || link.child.SpanContext.TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s %s: parent %s in trace %s, want %s %s (%s) in trace %s", link.child.Name, link.child.SpanKind,
				link.child.Parent.SpanID(), link.child.SpanContext.TraceID(),
				link.parent.Name, link.parent.SpanKind, link.parent.SpanContext.SpanID(), root.SpanContext().TraceID())
		}
	}
	if !handler.Parent.IsRemote() || !received.Parent.IsRemote() {
		t.Errorf("the agent's and the client's inbound spans continue the context from _meta: remote %v, %v", handler.Parent.IsRemote(), received.Parent.IsRemote())
	}
	for _, s := range []tracetest.SpanStub{call, handler, update, received} {
		if attr(s, "rpc.system").AsString() != "jsonrpc" || attr(s, "rpc.method").AsString() != s.Name || attr(s, acpotel.SessionIDKey).AsString() != "s1" {
			t.Errorf("%s %s attributes: %v", s.Name, s.SpanKind, s.Attributes)
		}
	}
}

func TestErrorCodeOnBothEnds(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	done := make(ended, 64)
	cc, _ := pair(t, exp, done)
	exp.Reset()
	if _, err := cc.SessionPrompt(context.Background(), &acp.PromptRequest{SessionID: "s2", Prompt: []acp.ContentBlock{}}); err == nil {
		t.Fatal("a prompt for an unknown session succeeded")
	}
	waitFor(t, done, "session/prompt client")
	spans := exp.GetSpans()
	for _, s := range []tracetest.SpanStub{span(t, spans, "session/prompt", trace.SpanKindClient), span(t, spans, "session/prompt", trace.SpanKindServer)} {
		if attr(s, "rpc.jsonrpc.error_code").AsInt64() != -32002 || s.Status.Code != codes.Error {
			t.Errorf("%s %s: attributes %v, status %v; want error code -32002", s.Name, s.SpanKind, s.Attributes, s.Status)
		}
	}
}
