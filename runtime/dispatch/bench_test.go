package dispatch_test

import (
	"context"
	"testing"
)

// BenchmarkCall measures a typed call and its response over pipes, and a
// typed notification, with no Observer: the cost tracing adds when unset.
func BenchmarkCall(b *testing.B) {
	_, c := connect(b)
	ctx := context.Background()
	if err := c.Open(ctx, &openM.Method, &msg{}, &msg{}); err != nil {
		b.Fatal(err)
	}
	c.SetNegotiated(nil, grants(`{"a":true,"b":true}`))
	p := &msg{S: "s1", X: "echo"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call(ctx, c, doM, p); err != nil {
			b.Fatal(err)
		}
	}
}
