package acphttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// heapSlack is what the memory tests allow on top of MaxServerBuffered: the
// test's own jsonrpc readers (MaxBuffered 256 KiB each, plus the message in
// hand), the HTTP machinery and the runtime.
const heapSlack = 32 << 20

// heapWatch samples the live heap (after a forced GC) until stopped.
type heapWatch struct {
	base    uint64
	peak    atomic.Uint64
	samples atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func watchHeap() *heapWatch {
	w := &heapWatch{base: liveHeap(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			if v := liveHeap(); v > w.peak.Load() {
				w.peak.Store(v)
			}
			w.samples.Add(1)
			select {
			case <-w.stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return w
}

// check stops sampling and fails t if the heap grew past bound.
func (w *heapWatch) check(t *testing.T, bound uint64) {
	t.Helper()
	close(w.stop)
	<-w.done
	grew := int64(w.peak.Load()) - int64(w.base)
	t.Logf("live heap grew by at most %d MiB over %d samples (bound %d MiB)", grew>>20, w.samples.Load(), bound>>20)
	if grew > int64(bound) {
		t.Errorf("live heap grew by %d MiB, past the bound of %d MiB", grew>>20, bound>>20)
	}
}

// padded is a JSON-RPC message of size bytes, generated as it is read so
// that the client side of a test holds none of it.
func padded(head string, size int) (io.Reader, int64) {
	prefix, suffix := head+`"params":{"pad":"`, `"}}`
	pad := size - len(prefix) - len(suffix)
	return io.MultiReader(strings.NewReader(prefix), io.LimitReader(xs{}, int64(pad)), strings.NewReader(suffix)), int64(size)
}

type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// postPadded POSTs a padded message on connection id and returns the status.
func postPadded(ctx context.Context, url, id, head string, size int) (int, http.Header, error) {
	body, n := padded(head, size)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return 0, nil, err
	}
	req.ContentLength = n
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderConnectionID, id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

// initConn opens a Streamable HTTP connection with a raw initialize.
func initConn(t *testing.T, url string) string {
	t.Helper()
	st, h, body := rawPost(t, url, initBody, nil)
	if st != http.StatusOK || h.Get(HeaderConnectionID) == "" {
		t.Fatalf("initialize: %d %s", st, body)
	}
	return h.Get(HeaderConnectionID)
}

// countingAgent is testAgent counting the notifications it handles.
type countingAgent struct {
	testAgent
	notes *atomic.Int64
}

func (a *countingAgent) HandleNotification(context.Context, string, wire.Raw) { a.notes.Add(1) }

// serveCounting runs countingAgent with a small jsonrpc MaxBuffered, so the
// reader holds one message (plus the one in hand) beyond the server's budget.
func serveCounting(notes *atomic.Int64) ServeFunc {
	return func(ctx context.Context, c *Conn) error {
		a := &countingAgent{notes: notes}
		a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{MaxBuffered: 256 << 10, Logger: quiet()})
		return a.conn.Run(ctx)
	}
}

// waitFor polls cond until it holds, failing t after guard.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * guard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// 20 concurrent 15 MiB POSTs on one connection: each waits for room under
// MaxServerBuffered instead of being read at once, and every one is taken.
func TestBudgetBoundsConcurrentPosts(t *testing.T) {
	if raceEnabled {
		t.Skip("memory bound not meaningful under -race")
	}
	const budget = 32 << 20
	var notes atomic.Int64
	url := startServer(t, NewServer(serveCounting(&notes), Options{MaxServerBuffered: budget, Logger: quiet()}))
	id := initConn(t, url)
	w := watchHeap()
	ctx, cancel := context.WithTimeout(context.Background(), 6*guard)
	defer cancel()
	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for range 20 {
		wg.Go(func() {
			st, _, err := postPadded(ctx, url, id, `{"jsonrpc":"2.0","method":"note",`, 15<<20)
			if err != nil {
				t.Error(err)
			}
			statuses <- st
		})
	}
	wg.Wait()
	waitFor(t, "20 notifications", func() bool { return notes.Load() == 20 })
	w.check(t, budget+heapSlack)
	close(statuses)
	for st := range statuses {
		if st != http.StatusAccepted {
			t.Errorf("POST: %d, want 202", st)
		}
	}
}

// Eight connections whose event streams are open and never read, flooded
// with 256 KiB requests whose answers go to those streams: bodies and
// answers wait under MaxServerBuffered.
func TestBudgetBoundsUnreadStreams(t *testing.T) {
	if raceEnabled {
		t.Skip("memory bound not meaningful under -race")
	}
	const budget = 32 << 20
	var notes atomic.Int64
	s := NewServer(serveCounting(&notes), Options{MaxServerBuffered: budget, Logger: quiet()})
	url := startServer(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	// Connections first: a flood that fills the budget makes an initialize
	// wait, until StallTimeout closes the stalled connections.
	var ids []string
	for range 8 {
		id := initConn(t, url)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderConnectionID, id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %v %v", resp, err)
		}
		defer resp.Body.Close() // never read
		ids = append(ids, id)
	}
	w := watchHeap()
	for _, id := range ids {
		for g := range 16 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					postPadded(ctx, url, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo",`, g*1000000+i), 256<<10)
				}
			})
		}
		wg.Go(func() { // output that outgrows what the agent holds of input
			for i := 0; ctx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"s%d","method":"stream","params":{"sessionId":"","n":5000}}`, i)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(HeaderConnectionID, id)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		})
	}
	// The flood has filled the budget when three quarters of it are held
	// (the rest are messages too large to fit); sample on for as long again
	// as that took.
	start := time.Now()
	waitFor(t, "the budget to fill", func() bool {
		s.budget.mu.Lock()
		defer s.budget.mu.Unlock()
		return s.budget.used >= budget*3/4
	})
	time.Sleep(max(time.Since(start), time.Second))
	w.check(t, budget+heapSlack)
}

// Past MaxWaitingPosts a POST is answered 503 with Retry-After, its body
// unread; the POSTs that waited are all taken once the reader reads.
func TestWaitingPostsBounded(t *testing.T) {
	release := make(chan struct{})
	var got atomic.Int64
	serve := func(ctx context.Context, c *Conn) error {
		m, err := c.ReadMessage() // initialize
		if err != nil {
			return err
		}
		p, _ := peekMessage(m)
		c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, p.ID))
		select {
		case <-release:
		case <-ctx.Done():
			return nil
		}
		for {
			if _, err := c.ReadMessage(); err != nil {
				return nil
			}
			got.Add(1)
		}
	}
	// Input may hold 32 KiB: one 20 KiB body at a time.
	s := NewServer(serve, Options{MaxServerBuffered: 64 << 10, MaxWaitingPosts: 2, Logger: quiet()})
	url := startServer(t, s)
	id := initConn(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 3*guard)
	defer cancel()
	var wg sync.WaitGroup
	statuses := make(chan int, 3)
	for i := range 3 {
		wg.Go(func() {
			st, _, _ := postPadded(ctx, url, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo",`, i), 20<<10)
			statuses <- st
		})
	}
	waitFor(t, "two POSTs waiting for room", func() bool {
		s.budget.mu.Lock()
		defer s.budget.mu.Unlock()
		return s.budget.waiting == 2
	})
	st, h, err := postPadded(ctx, url, id, `{"jsonrpc":"2.0","method":"note",`, 20<<10)
	if err != nil || st != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("POST past MaxWaitingPosts: %d Retry-After %q %v, want 503 with Retry-After", st, h.Get("Retry-After"), err)
	}
	close(release)
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != http.StatusAccepted {
			t.Errorf("waiting POST: %d, want 202", st)
		}
	}
	waitFor(t, "three messages", func() bool { return got.Load() == 3 })
}

// Under a budget smaller than what is in flight, every notification POSTed
// or sent over a WebSocket reaches the agent and every request is
// answered, on both profiles.
func TestBudgetLosesNothing(t *testing.T) {
	var notes atomic.Int64
	url := startServer(t, NewServer(serveCounting(&notes), Options{MaxServerBuffered: 256 << 10, Logger: quiet()}))
	const clients, perClient = 4, 40
	pad := strings.Repeat("y", 24<<10)
	var wg sync.WaitGroup
	for _, p := range []Profile{WebSocket, StreamableHTTP} {
		for range clients {
			rpc, client, _ := dialRPC(t, url, DialOptions{Profile: p})
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 6*guard)
				defer cancel()
				for i := range perClient {
					if err := rpc.Notify(ctx, "note", fmt.Appendf(nil, `{"pad":%q}`, pad)); err != nil {
						t.Errorf("%s notify: %v", p, err)
						return
					}
					res, err := rpc.Call(ctx, "echo", fmt.Appendf(nil, `{"i":%d,"pad":%q}`, i, pad))
					if err != nil || !strings.Contains(string(res), fmt.Sprintf(`"i":%d`, i)) {
						t.Errorf("%s echo %d: %v", p, i, err)
						return
					}
					if _, err := rpc.Call(ctx, "stream", wire.Raw(`{"sessionId":"","n":4}`)); err != nil {
						t.Errorf("%s stream: %v", p, err)
						return
					}
				}
				waitFor(t, "the streamed notifications", func() bool {
					client.mu.Lock()
					defer client.mu.Unlock()
					return len(client.notes) >= 4*perClient
				})
			})
		}
	}
	wg.Wait()
	waitFor(t, "every notification", func() bool { return notes.Load() == 2*clients*perClient })
}
