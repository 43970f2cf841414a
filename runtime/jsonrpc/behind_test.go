package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// testRecorder records the "update" notifications: Record keeps their n,
// Commit makes them committed. failAt makes Record fail on that n (-1:
// never); hold, when set, is waited for by the first Commit.
type testRecorder struct {
	failAt int
	hold   chan struct{}

	kept      []int
	mu        sync.Mutex
	committed []int
	commits   int
}

func (r *testRecorder) Record(_ context.Context, method, _ string, params []byte) error {
	if method != "update" {
		return nil
	}
	var p struct{ N int }
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	if p.N == r.failAt {
		return errors.New("disk full")
	}
	r.kept = append(r.kept, p.N)
	return nil
}

func (r *testRecorder) Commit(context.Context) error {
	r.mu.Lock()
	first := r.commits == 0
	r.commits++
	r.mu.Unlock()
	if first && r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	r.committed = append(r.committed, r.kept...)
	r.mu.Unlock()
	r.kept = r.kept[:0]
	return nil
}

// isCommitted reports whether update n has been committed.
func (r *testRecorder) isCommitted(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.committed {
		if c == n {
			return true
		}
	}
	return false
}

// behindConn runs a write-behind Conn with handler h; the lines it writes
// arrive on the channel returned, which is closed after Run has returned
// (its error is then on runErr).
func behindConn(t *testing.T, h Handler, o Options) (c *Conn, in *io.PipeWriter, lines <-chan string, runErr <-chan error) {
	t.Helper()
	checkNoLeaks(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if o.Logger == nil {
		o.Logger = testLogger(&syncBuffer{})
	}
	c = NewConn(inR, outW, h, o)
	errc := make(chan error, 1)
	go func() {
		errc <- c.Run(context.Background())
		outW.Close()
	}()
	ch := make(chan string, 4096)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range ch {
		}
	})
	return c, inW, ch, errc
}

// With a Recorder, each frame is written only after the batch holding it
// has committed, in the order sent: recorded notifications, unrecorded
// ones and the request's answer (written last, after every update its
// handler sent). Messages sent during one commit share the next one.
func TestWriteBehindKeepsOrderAndRecordsFirst(t *testing.T) {
	const n = 200
	rec := &testRecorder{failAt: -1, hold: make(chan struct{})}
	var c *Conn
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		for i := range n {
			if err := c.Notify(ctx, "update", wire.Raw(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
				return nil, err
			}
			if i%7 == 0 {
				if err := c.Notify(ctx, "other", wire.Raw(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
					return nil, err
				}
			}
		}
		close(rec.hold) // the first commit ends once everything is queued
		return wire.Raw(`"done"`), nil
	}}
	c, in, lines, _ := behindConn(t, h, Options{Recorder: rec})
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"prompt"}`+"\n")
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("update %d", i))
		if i%7 == 0 {
			want = append(want, fmt.Sprintf("other %d", i))
		}
	}
	want = append(want, "answer")
	var got []string
	for len(got) < len(want) {
		l := within(t, lines, "a frame")
		f := decodeFrame(t, l)
		if f.Method == "" {
			got = append(got, "answer")
			continue
		}
		var p struct{ N int }
		json.Unmarshal(f.Params, &p)
		if f.Method == "update" && !rec.isCommitted(p.N) {
			t.Errorf("update %d written before it was committed", p.N)
		}
		got = append(got, fmt.Sprintf("%s %d", f.Method, p.N))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("frames in the order\n%q\nwant\n%q", got, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.commits > 3 {
		t.Errorf("%d commits for %d updates sent during the first: want at most 3", rec.commits, n)
	}
}

// A record failure ends the connection: the failed message and everything
// sent after it are never written, later sends and Flush return the
// failure, and Run returns it.
func TestWriteBehindRecordFailureWritesNothingAfter(t *testing.T) {
	rec := &testRecorder{failAt: 5}
	var c *Conn
	results := make(chan []error, 1)
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		var errs []error
		for i := range 5 {
			errs = append(errs, c.Notify(ctx, "update", wire.Raw(fmt.Sprintf(`{"n":%d}`, i))))
		}
		errs = append(errs, c.Flush(ctx)) // 0..4 are written
		for i := 5; i < 10; i++ {
			c.Notify(ctx, "update", wire.Raw(fmt.Sprintf(`{"n":%d}`, i)))
		}
		errs = append(errs, c.Flush(ctx), c.Notify(ctx, "update", wire.Raw(`{"n":10}`)))
		results <- errs
		return wire.Raw(`"done"`), nil
	}}
	c, in, lines, runErr := behindConn(t, h, Options{Recorder: rec})
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"prompt"}`+"\n")
	errs := within(t, results, "the handler")
	for i, err := range errs[:6] {
		if err != nil {
			t.Errorf("send %d before the failure: %v", i, err)
		}
	}
	for _, err := range errs[6:] {
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("after the failure: %v, want the record failure", err)
		}
	}
	if err := within(t, runErr, "Run's end"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Run returned %v, want the record failure", err)
	}
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	var want []string
	for i := range 5 {
		want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","method":"update","params":{"n":%d}}`, i))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("written:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The queue is bounded: while a commit holds the writer, a sender whose
// frame does not fit waits for room, and is released once the batch is
// written.
func TestWriteBehindSenderWaitsForRoom(t *testing.T) {
	rec := &testRecorder{failAt: -1, hold: make(chan struct{})}
	c, _, lines, _ := behindConn(t, funcs{}, Options{Recorder: rec, MaxQueued: 1})
	ctx := context.Background()
	// The first frame is taken though larger than the bound (the queue is
	// empty); its commit holds the writer.
	if err := c.Notify(ctx, "update", wire.Raw(`{"n":0}`)); err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	second := make(chan bool, 1)
	go func() {
		c.Notify(ctx, "update", wire.Raw(`{"n":1}`))
		second <- released.Load()
	}()
	released.Store(true)
	close(rec.hold)
	if !within(t, second, "the second send") {
		t.Error("the second send returned while the queue was full")
	}
	for i := range 2 {
		if f := decodeFrame(t, within(t, lines, "a frame")); string(f.Params) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("frame %d: %s", i, f.Params)
		}
	}
}

// FlushFrom reaches the connection whose handler was given the context;
// on a connection without a Recorder it has nothing to wait for.
func TestFlushFromHandlerContext(t *testing.T) {
	rec := &testRecorder{failAt: -1}
	got := make(chan error, 1)
	var c *Conn
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		c.Notify(ctx, "update", wire.Raw(`{"n":0}`))
		err := FlushFrom(ctx)
		if err == nil && !rec.isCommitted(0) {
			err = errors.New("FlushFrom returned before the update was committed")
		}
		got <- err
		return wire.Raw(`1`), nil
	}}
	c, in, _, _ := behindConn(t, h, Options{Recorder: rec})
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"m"}`+"\n")
	if err := within(t, got, "the handler"); err != nil {
		t.Error(err)
	}
	if err := FlushFrom(context.Background()); err != nil {
		t.Errorf("FlushFrom on no handler's context: %v", err)
	}
}

// Record queues a message for the Recorder alone: it is recorded in order
// with the frames sent around it and never written.
func TestRecordOnlyIsRecordedInOrderNotWritten(t *testing.T) {
	rec := &testRecorder{failAt: -1}
	var c *Conn
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		for i := range 4 {
			params := wire.Raw(fmt.Sprintf(`{"n":%d}`, i))
			var err error
			if i%2 == 0 {
				err = RecordFrom(ctx, "update", params)
			} else {
				err = c.Notify(ctx, "update", params)
			}
			if err != nil {
				return nil, err
			}
		}
		return wire.Raw(`"done"`), nil
	}}
	c, in, lines, _ := behindConn(t, h, Options{Recorder: rec})
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"prompt"}`+"\n")
	var got []string
	for range 3 {
		got = append(got, within(t, lines, "a frame"))
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"update","params":{"n":1}}`,
		`{"jsonrpc":"2.0","method":"update","params":{"n":3}}`,
		`{"jsonrpc":"2.0","id":1,"result":"done"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("written:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if fmt.Sprint(rec.committed) != "[0 1 2 3]" {
		t.Errorf("recorded %v, want [0 1 2 3]", rec.committed)
	}
}
