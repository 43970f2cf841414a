package acphttp

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openStream GETs the event stream of the connection id (and session, when
// not empty) and returns its open response.
func openStream(t *testing.T, ctx context.Context, url, id, session string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderConnectionID, id)
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %q: %v %v", session, resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// countEvents reads an event stream to its end and counts its events.
func countEvents(resp *http.Response) (int, error) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	return n, sc.Err()
}

// When the agent's side ends, the connection stream ends only after the open
// session streams have delivered their output: a client that drops its
// session streams when the connection stream ends loses nothing the server
// still held. The session's output (32 MiB, unread) is more than the socket
// buffers take, so its stream is still delivering while the check runs.
func TestConnectionStreamEndsAfterSessionStreams(t *testing.T) {
	const n, size = 8192, 4 << 10
	start, returned := make(chan struct{}), make(chan struct{})
	serve := func(ctx context.Context, c *Conn) error {
		defer close(returned)
		m, err := c.ReadMessage() // initialize
		if err != nil {
			return err
		}
		p, _ := peekMessage(m)
		c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, p.ID))
		<-start
		pad := strings.Repeat("x", size)
		for i := range n {
			msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","i":%d,"pad":%q}}`, i, pad)
			if err := c.WriteMessage(msg); err != nil {
				return err
			}
		}
		return nil // the agent's side ends with the session's output queued
	}
	s := NewServer(serve, Options{MaxBuffered: 64 << 20, Logger: quiet()})
	url := startServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 8*guard)
	defer cancel()
	id := initConn(t, url)
	session := openStream(t, ctx, url, id, "s1")
	conn := openStream(t, ctx, url, id, "")
	connEnded := make(chan error, 1)
	go func() { _, err := countEvents(conn); connEnded <- err }()
	close(start)
	select {
	case <-returned:
	case <-time.After(4 * guard): // 32 MiB through peek and queue, on a loaded machine
		t.Fatal("the agent's side did not end")
	}
	select {
	case <-connEnded:
		t.Fatal("the connection stream ended while the session stream still held output")
	case <-time.After(500 * time.Millisecond):
	}
	got, err := countEvents(session)
	if err != nil || got != n {
		t.Fatalf("session stream: %d events (%v), want %d", got, err, n)
	}
	select {
	case err := <-connEnded:
		if err != nil {
			t.Fatalf("connection stream: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("the connection stream did not end after the session stream")
	}
}
