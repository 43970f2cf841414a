package dispatch_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without an OnDrop, a peer sending a flood of notifications that cannot be
// taken gets one warning line logged, not one per notification.
func TestDefaultDropWarningIsRateLimited(t *testing.T) {
	var logs syncBuffer
	s := &server{events: make(chan string, 8), turning: make(chan struct{})}
	in, peer := io.Pipe()
	out, answers := io.Pipe()
	dispatch.Connect(&s.end, routes, s.route, s, in, answers,
		dispatch.Options{RPC: jsonrpc.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.end.Conn.Run(ctx); close(done) }()
	defer func() { cancel(); peer.Close(); out.Close(); <-done }()
	fmt.Fprintln(peer, `{"jsonrpc":"2.0","id":1,"method":"open","params":{}}`)
	// The notifications follow open's answer: sent before it, they could be
	// read before open is handled, and dropped as received before it.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	for range 200 {
		fmt.Fprintln(peer, `{"jsonrpc":"2.0","method":"tell","params":{"x":"bad"}}`)
	}
	// Notifications are handled in order: once this one arrives, all the
	// bad ones before it have been dropped.
	fmt.Fprintln(peer, `{"jsonrpc":"2.0","method":"tell","params":{"x":"last"}}`)
	if e := event(t, s); e != "tell last" {
		t.Fatalf("event %q, want tell last", e)
	}
	if n := strings.Count(logs.String(), "dropped inbound notification"); n != 1 {
		t.Errorf("%d warning lines for 200 dropped notifications, want 1:\n%s", n, logs.String())
	}
}
