package dispatch

import (
	"context"
	"testing"
	"unsafe"
)

// TestTurnSessionInterned: a turn's session reads as the params' bytes
// read, and a session seen lately is the same string, made once.
func TestTurnSessionInterned(t *testing.T) {
	tt := &turnTable{methods: &TurnMethods{Prompt: "p", Cancel: "c"}}
	a := TurnFrom(tt.start(context.Background(), []byte("s1")))
	b := TurnFrom(tt.start(context.Background(), []byte("s1"))) // a live: its string
	tt.answered(&a.ctx)
	tt.answered(&b.ctx)
	c := TurnFrom(tt.start(context.Background(), []byte("s1"))) // none live: a recent one
	d := TurnFrom(tt.start(context.Background(), []byte("s2")))
	for _, x := range []*Turn{a, b, c} {
		if x.Session() != "s1" || unsafe.StringData(x.Session()) != unsafe.StringData(a.Session()) {
			t.Errorf("session %q at %p, want s1 at %p", x.Session(), unsafe.StringData(x.Session()), unsafe.StringData(a.Session()))
		}
	}
	if d.Session() != "s2" {
		t.Errorf("session %q, want s2", d.Session())
	}
	tt.cancel([]byte("s1"))
	if !c.Cancelled() || d.Cancelled() || a.Cancelled() {
		t.Errorf("cancel of s1: live s1 %v, s2 %v, answered s1 %v; want true, false, false", c.Cancelled(), d.Cancelled(), a.Cancelled())
	}
}
