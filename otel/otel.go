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
	"encoding/json"

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
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// Begin starts the message's span: a received message's is a child of
// the context in its _meta when there is one; a sent message's context is
// injected into its _meta.
func (o *observer) Begin(ctx context.Context, m *dispatch.Message) (context.Context, dispatch.Finish) {
	if m.Direction == dispatch.Inbound {
		ctx = o.prop.Extract(ctx, metaCarrier(m.Meta))
	}
	ctx, span := o.tracer.Start(ctx, m.Method, trace.WithSpanKind(kind(m)), trace.WithAttributes(attributes(m)...))
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
		semconv.RPCMethod(m.Method),
	}
	if m.SessionID != "" {
		a = append(a, SessionIDKey.String(m.SessionID))
	}
	return a
}

// metaCarrier returns the string members of a _meta object; anything else
// carries nothing.
func metaCarrier(meta wire.Raw) propagation.MapCarrier {
	var members map[string]json.RawMessage
	if len(meta) == 0 || json.Unmarshal(meta, &members) != nil {
		return nil
	}
	c := propagation.MapCarrier{}
	for k, v := range members {
		var s string
		if json.Unmarshal(v, &s) == nil {
			c[k] = s
		}
	}
	return c
}
