package jsonrpc

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// A request whose id is longer than MaxIDLength is answered -32600 with id
// null and never handled, as the proxy and the conductor answer it; one at
// the bound is handled.
func TestIDLengthBound(t *testing.T) {
	var handled atomic.Int32
	p := newPeer(t, funcs{req: func(context.Context, string, wire.Raw) (wire.Raw, error) {
		handled.Add(1)
		return wire.Raw(`{}`), nil
	}}, Options{})
	long := `"` + strings.Repeat("i", MaxIDLength-1) + `"` // MaxIDLength+1 bytes written
	p.send(`{"jsonrpc":"2.0","id":` + long + `,"method":"m"}`)
	if got := p.recv(); !strings.Contains(got, `"id":null`) || !strings.Contains(got, "-32600") {
		t.Errorf("a %d-byte id answered %.120s", len(long), got)
	}
	fits := `"` + strings.Repeat("i", MaxIDLength-2) + `"`
	p.send(`{"jsonrpc":"2.0","id":` + fits + `,"method":"m"}`)
	if got := p.recv(); !strings.Contains(got, `"result":{}`) {
		t.Errorf("a %d-byte id answered %.120s", len(fits), got)
	}
	if n := handled.Load(); n != 1 {
		t.Errorf("%d requests handled, want the one within the bound", n)
	}
}
