package jsonrpc

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// gatedHandler blocks each notification until the test releases it.
type gatedHandler struct{ gate chan struct{} }

func (gatedHandler) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, nil
}
func (h gatedHandler) HandleNotification(context.Context, string, wire.Raw) { <-h.gate }

// readSignal reports each Read call after the first: the reader goroutine
// reads again only once it has handled the frame it read before.
type readSignal struct {
	r     io.Reader
	reads chan struct{}
	n     int
}

func (s *readSignal) Read(p []byte) (int, error) {
	if s.n > 0 {
		s.reads <- struct{}{}
	}
	s.n++
	return s.r.Read(p)
}

// A response is held behind the notifications read before it.
func TestResponseWaitsForEarlierNotifications(t *testing.T) {
	peerOut, connIn := io.Pipe()
	connOut, peerIn := io.Pipe()
	go io.Copy(io.Discard, connOut) // our request frame
	rs := &readSignal{r: peerOut, reads: make(chan struct{}, 8)}
	h := gatedHandler{gate: make(chan struct{})}
	c := NewConn(rs, peerIn, h, Options{})
	go c.Run(context.Background())
	defer connIn.Close()

	result := make(chan string, 1)
	go func() {
		r, err := c.Call(context.Background(), "m", nil)
		if err != nil {
			result <- err.Error()
			return
		}
		result <- string(r)
	}()
	// Wait until the call is registered (id 1), then send a notification and the answer.
	for {
		c.mu.Lock()
		_, ok := c.pending[1]
		c.mu.Unlock()
		if ok {
			break
		}
	}
	io.WriteString(connIn, `{"jsonrpc":"2.0","method":"n","params":{}}`+"\n")
	<-rs.reads
	io.WriteString(connIn, `{"jsonrpc":"2.0","id":1,"result":{"done":true}}`+"\n")
	<-rs.reads // the reader has handled the response frame
	c.mu.Lock()
	_, held := c.pending[1]
	c.mu.Unlock()
	if !held {
		t.Fatal("the response was delivered while an earlier notification was still being handled")
	}
	select {
	case r := <-result:
		t.Fatalf("Call returned %s before the notification was handled", r)
	default:
	}
	h.gate <- struct{}{}
	if r := <-result; !strings.Contains(r, `"done":true`) {
		t.Fatalf("result %s", r)
	}
}

// A notification handler that calls the peer gets its answer at once.
func TestCallFromNotificationHandlerIsDirect(t *testing.T) {
	c := NewConn(strings.NewReader(""), io.Discard, gatedHandler{}, Options{})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), inNotification{}, true))
	returned := make(chan struct{})
	go func() { c.Call(ctx, "m", nil); close(returned) }()
	defer func() { cancel(); <-returned }()
	for {
		c.mu.Lock()
		p := c.pending[1]
		c.mu.Unlock()
		if p != nil {
			if !p.direct {
				t.Fatal("call from a notification handler not marked direct")
			}
			return
		}
	}
}
