package jsonrpc

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// arrivals records Arrived calls and tags each request's context.
type arrivals struct {
	funcs
	mu  sync.Mutex
	got []string
}

type arrivalKey struct{}

func (a *arrivals) Arrived(ctx context.Context, method string, params wire.Raw, request bool) context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	kind := "note "
	if request {
		kind = "req "
	}
	a.got = append(a.got, kind+method)
	return context.WithValue(ctx, arrivalKey{}, method)
}

func (a *arrivals) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got)
}

// Arrived sees requests and notifications in the order they were read,
// batch entries included and $/cancel_request excluded, each before its
// handler runs; a request's handler gets the context Arrived returned.
func TestArrivedInWireOrder(t *testing.T) {
	a := &arrivals{}
	handled := make(chan string, 16)
	a.funcs = funcs{
		req: func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
			if ctx.Value(arrivalKey{}) != method {
				t.Errorf("%s: handler context not from Arrived", method)
			}
			for _, s := range a.seen() {
				if s == "req "+method {
					handled <- method
					return wire.Raw(`{}`), nil
				}
			}
			t.Errorf("%s handled before it arrived", method)
			return wire.Raw(`{}`), nil
		},
		note: func(ctx context.Context, method string, params wire.Raw) { handled <- method },
	}
	p := newPeer(t, a, Options{})
	p.write(`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" +
		`{"jsonrpc":"2.0","method":"b"}` + "\n" +
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":9}}` + "\n" +
		`[{"jsonrpc":"2.0","method":"c"},{"jsonrpc":"2.0","id":2,"method":"d"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"e"}` + "\n")
	for range 5 {
		select {
		case <-handled:
		case <-time.After(guard):
			t.Fatal("not every message was handled")
		}
	}
	want := []string{"req a", "note b", "note c", "req d", "req e"}
	if got := a.seen(); !slices.Equal(got, want) {
		t.Errorf("arrived %q, want %q", got, want)
	}
}
