// Package otel traces an acpgen connection with OpenTelemetry: a span per
// request and notification a generated AgentConn or ClientConn receives or
// sends, and W3C trace context carried in the params' _meta (the keys
// traceparent, tracestate and baggage, which ACP reserves there). Set the
// Observer New returns as the connection's ConnOptions.Observer.
//
// It is a module of its own, so a program pulls OpenTelemetry only when it
// imports this package.
package otel

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/acpgen/acpgen/otel"

// SessionIDKey is the attribute holding the ACP session a message belongs
// to (its params' sessionId).
const SessionIDKey = attribute.Key("acp.session.id")

// MaxStringLength bounds, in bytes, a string a peer chose (the method, the
// sessionId) as a span's name or attribute: a longer one is cut on a UTF-8
// boundary and ends with "…".
const MaxStringLength = 256

// MaxCarriedLength bounds a trace-context member of _meta (traceparent,
// tracestate, baggage), in bytes as written: W3C Baggage's limit for the
// whole header. A longer one is dropped, and reported through
// OpenTelemetry's error handler at most once per reportEvery.
const MaxCarriedLength = 8192

// reportEvery is how often an Observer reports dropped _meta members.
const reportEvery = time.Minute

// Option configures New.
type Option func(*observer)

// WithTracerProvider sets where spans go; the default is the global
// provider at the time New is called.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *observer) { o.tracer = tp.Tracer(ScopeName) }
}

// WithPropagator sets how context is read from and written to _meta; the
// default is W3C Trace Context and Baggage.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(o *observer) { o.prop = p }
}

// New returns an Observer that traces every message of the connection it
// is set on.
func New(opts ...Option) dispatch.Observer {
	o := &observer{
		tracer: global.GetTracerProvider().Tracer(ScopeName),
		prop:   propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

type observer struct {
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
	dropped limiter
}

// Begin starts the message's span: a received message's is a child of
// the context in its _meta when there is one; a sent message's context is
// injected into its _meta.
func (o *observer) Begin(ctx context.Context, m *dispatch.Message) (context.Context, dispatch.Finish) {
	if m.Direction == dispatch.Inbound {
		ctx = o.prop.Extract(ctx, o.metaCarrier(m.Meta))
	}
	ctx, span := o.tracer.Start(ctx, bound(m.Method), trace.WithSpanKind(kind(m)), trace.WithAttributes(attributes(m)...))
	if m.Direction == dispatch.Outbound {
		c := propagation.MapCarrier{}
		o.prop.Inject(ctx, c)
		m.Inject = c
	}
	return ctx, func(code wire.ErrorCode, err error) {
		if code != 0 {
			span.SetAttributes(semconv.RPCJsonrpcErrorCode(int(code)))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// kind is a request's client or server side, a notification's producer or
// consumer side.
func kind(m *dispatch.Message) trace.SpanKind {
	switch {
	case m.Notification && m.Direction == dispatch.Outbound:
		return trace.SpanKindProducer
	case m.Notification:
		return trace.SpanKindConsumer
	case m.Direction == dispatch.Outbound:
		return trace.SpanKindClient
	}
	return trace.SpanKindServer
}

func attributes(m *dispatch.Message) []attribute.KeyValue {
	a := []attribute.KeyValue{
		semconv.RPCSystemKey.String("jsonrpc"),
		semconv.RPCJsonrpcVersion("2.0"),
		semconv.RPCMethod(bound(m.Method)),
	}
	if m.SessionID != "" {
		a = append(a, SessionIDKey.String(bound(m.SessionID)))
	}
	return a
}

// bound returns s cut to MaxStringLength bytes, on a rune boundary, its
// end marked.
func bound(s string) string {
	if len(s) <= MaxStringLength {
		return s
	}
	const mark = "…"
	n := MaxStringLength - len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

// metaCarrier returns the string members of a _meta object that the
// propagator reads, each up to MaxCarriedLength bytes; anything else
// carries nothing. The other members are skipped, not decoded, so reading
// costs what the trace context holds, whatever the size of _meta.
func (o *observer) metaCarrier(meta wire.Raw) propagation.MapCarrier {
	if len(meta) == 0 {
		return nil
	}
	d := wire.NewDecoder(meta, wire.Lenient)
	if d.BeginObject() != nil {
		return nil
	}
	fields := o.prop.Fields()
	c := propagation.MapCarrier{}
	for {
		key, ok, err := d.NextKey()
		if err != nil || !ok {
			return c
		}
		field := ""
		for _, f := range fields {
			if string(key) == f {
				field = f
			}
		}
		if field == "" || d.Peek() != wire.KindString {
			if d.Skip() != nil {
				return c
			}
			continue
		}
		start, from := d.Mark(), d.Offset()
		if d.Skip() != nil {
			return c
		}
		if size := d.Offset() - from; size > MaxCarriedLength+2 { // quotes and leading space
			o.dropped.report(field, size)
			continue
		}
		d.Rewind(start)
		if v, err := d.ReadString(); err == nil {
			c[field] = v
		}
	}
}

// limiter reports dropped _meta members through OpenTelemetry's error
// handler: the first, then at most one report per reportEvery, counting
// those dropped since.
type limiter struct {
	mu      sync.Mutex
	last    time.Time
	dropped int
}

func (l *limiter) report(field string, size int) {
	l.mu.Lock()
	l.dropped++
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < reportEvery {
		l.mu.Unlock()
		return
	}
	n := l.dropped
	l.last, l.dropped = now, 0
	l.mu.Unlock()
	global.Handle(fmt.Errorf("acpgen otel: _meta.%s of %d bytes dropped, over %d (%d dropped since the last report)", field, size, MaxCarriedLength, n))
}
