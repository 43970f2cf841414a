package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// skipLoad skips the load tests where they would measure the tooling rather
// than the Conn.
func skipLoad(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("load test: skipped under -race")
	}
	if testing.Short() {
		t.Skip("load test: skipped under -short")
	}
}

// heapWatch samples runtime/metrics while a load test runs and records the
// peak of the live heap (as marked by the last GC) plus goroutine stacks:
// the memory the process holds on to. Over limit, it calls abort once, so
// that a Conn without a bound fails the test quickly instead of exhausting
// the machine.
type heapWatch struct {
	limit   uint64
	abort   func()
	stop    chan struct{}
	done    chan struct{}
	peak    uint64 // live heap + stacks
	peakObj uint64 // heap objects, dead or alive, for the log
	over    atomic.Bool
}

var heapMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/heap/stacks:bytes", "/memory/classes/heap/objects:bytes"}

func watchHeap(limit uint64, abort func()) *heapWatch {
	runtime.GC() // start from a settled heap
	w := &heapWatch{limit: limit, abort: abort, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		samples := make([]metrics.Sample, len(heapMetrics))
		for i, name := range heapMetrics {
			samples[i].Name = name
		}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			v := samples[0].Value.Uint64() + samples[1].Value.Uint64()
			w.peak = max(w.peak, v)
			w.peakObj = max(w.peakObj, samples[2].Value.Uint64())
			if v > w.limit && !w.over.Swap(true) {
				w.abort()
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// finish stops sampling and fails t if the peak went over the limit.
func (w *heapWatch) finish(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	t.Logf("peak live heap + stacks %.1f MB (limit %.1f MB); peak heap objects %.1f MB",
		float64(w.peak)/(1<<20), float64(w.limit)/(1<<20), float64(w.peakObj)/(1<<20))
	if w.over.Load() || w.peak > w.limit {
		t.Fatalf("peak live heap + stacks %d bytes, over the limit of %d", w.peak, w.limit)
	}
}

// answers reads every line the Conn writes and records, per numeric id, how
// many answers came and whether each was a result or which error.
type answers struct {
	mu      sync.Mutex
	count   []int
	codes   map[wire.ErrorCode]int // error code -> answers
	results int
	bad     []string
}

func newAnswers(n int) *answers {
	return &answers{count: make([]int, n), codes: map[wire.ErrorCode]int{}}
}

func (a *answers) add(line []byte) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code wire.ErrorCode `json:"code"`
		} `json:"error"`
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := json.Unmarshal(line, &f); err != nil {
		a.bad = append(a.bad, string(line))
		return
	}
	id, err := strconv.Atoi(string(f.ID))
	if err != nil || id < 0 || id >= len(a.count) {
		a.bad = append(a.bad, string(line))
		return
	}
	a.count[id]++
	if f.Error != nil {
		a.codes[f.Error.Code]++
	} else {
		a.results++
	}
}

// check fails t unless every id got exactly one answer.
func (a *answers) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.bad) > 0 {
		t.Fatalf("%d unexpected lines, first %q", len(a.bad), a.bad[0])
	}
	for id, n := range a.count {
		if n != 1 {
			t.Fatalf("request %d answered %d times", id, n)
		}
	}
	t.Logf("%d results, errors by code %v", a.results, a.codes)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// 200,000 small requests pipelined by a peer that reads the answers slowly:
// the Conn stops reading while its answers wait for the writer, instead of
// starting a goroutine per request, so memory stays bounded; every request
// is answered exactly once.
func TestFlowPipelinedRequestsSlowReader(t *testing.T) {
	skipLoad(t)
	const n = 200_000
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var peakInFlight atomic.Int64
	var c *Conn
	h := funcs{req: func(_ context.Context, _ string, params wire.Raw) (wire.Raw, error) {
		c.mu.Lock()
		peakInFlight.Store(max(peakInFlight.Load(), int64(c.requests)))
		c.mu.Unlock()
		return wire.Raw(`{}`), nil
	}}
	c = NewConn(inR, outW, h, Options{Logger: quietLogger()})
	// The Conn's own memory is a few MB; 32 MB leaves room for the test and
	// the runtime, far below a goroutine per request (8 KB of stack each).
	w := watchHeap(32<<20, func() { inW.CloseWithError(io.ErrClosedPipe); outR.CloseWithError(io.ErrClosedPipe) })
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(context.Background()) }()
	go func() {
		bw := bufio.NewWriterSize(inW, 64<<10)
		for i := range n {
			fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%d,"method":"m"}`+"\n", i)
		}
		bw.Flush()
		inW.Close()
	}()
	a := newAnswers(n)
	time.Sleep(100 * time.Millisecond) // not reading at all at first
	br := bufio.NewReader(outR)
	for lines := 0; ; lines++ {
		if lines%2000 == 0 {
			time.Sleep(time.Millisecond) // then slowly
		}
		line, err := br.ReadSlice('\n')
		if err != nil {
			break
		}
		a.add(line)
		if lines+1 == n {
			break
		}
	}
	err := within(t, runErr, "Run")
	outW.Close()
	w.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	a.check(t)
	if p := peakInFlight.Load(); p > DefaultMaxInFlight {
		t.Fatalf("%d requests in flight, over MaxInFlight %d", p, DefaultMaxInFlight)
	}
}

// Ten 60 MB prompts pipelined: the frames held stay within MaxBuffered
// (plus the frame being read), and every prompt is answered exactly once.
// While a turn that awaits a later message (session/cancel) runs, prompts
// past the bound are refused; otherwise the reader pauses and every prompt
// gets its result.
func TestFlowLargePrompts(t *testing.T) {
	skipLoad(t)
	t.Run("turns awaiting input", func(t *testing.T) { largePrompts(t, true) })
	t.Run("handlers that finish", func(t *testing.T) { largePrompts(t, false) })
}

func largePrompts(t *testing.T, awaiting bool) {
	const n, size = 10, 60 << 20
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	release := make(chan struct{})
	var handled atomic.Int32
	var c *Conn
	h := funcs{req: func(_ context.Context, _ string, params wire.Raw) (wire.Raw, error) {
		handled.Add(1)
		if awaiting {
			// A turn that runs until the peer has sent everything.
			defer c.AwaitingInput()()
			<-release
		}
		return wire.Raw(`{"length":` + strconv.Itoa(len(params)) + `}`), nil
	}}
	c = NewConn(inR, outW, h, Options{Logger: quietLogger()})
	piece := bytes.Repeat([]byte("a"), 1<<20) // the peer writes each prompt from it
	// The Conn holds at most MaxBuffered, plus the frame it has just read,
	// plus the one it is reading (twice its size while it is assembled); the
	// live heap a GC cycle reports may also include a frame dropped during
	// the cycle. Unbounded, ten prompts in flight hold 600 MB.
	limit := uint64(DefaultMaxBuffered + 3*DefaultMaxFrame + 16<<20)
	w := watchHeap(limit, func() { inW.CloseWithError(io.ErrClosedPipe); close(release) })
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(context.Background()) }()
	a := newAnswers(n)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			a.add(line)
		}
	}()
	for i := range n {
		head := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"session/prompt","params":{"text":"`
		if _, err := io.WriteString(inW, head); err != nil {
			break
		}
		for range size / len(piece) {
			inW.Write(piece)
		}
		io.WriteString(inW, "\"}}\n")
	}
	if !w.over.Load() {
		close(release)
	}
	inW.Close()
	err := within(t, runErr, "Run")
	outW.Close()
	<-readDone
	w.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	a.check(t)
	if a.results+a.codes[CodeOverloaded] != n || a.results == 0 || (!awaiting && a.results != n) {
		t.Fatalf("got %d results and %v", a.results, a.codes)
	}
	if int(handled.Load()) != a.results {
		t.Fatalf("%d handlers ran for %d results", handled.Load(), a.results)
	}
}

// Every handler in flight waits for an answer from the peer (as a prompt
// turn waits for session/request_permission) while the peer, before
// answering, pipelines more requests: the Conn goes on reading, refuses the
// requests past MaxInFlight, reads the answers, and nothing deadlocks.
func TestFlowHandlersWaitingOnPeerDoNotDeadlock(t *testing.T) {
	const limit, extra = 3, 20
	var p *peer
	h := funcs{req: func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
		if method != "ask" {
			return wire.Raw(`{}`), nil
		}
		return p.conn.Call(ctx, "session/request_permission", params)
	}}
	p = newPeer(t, h, Options{MaxInFlight: limit, MaxConcurrent: limit})
	for i := range limit {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ask","params":{"n":` + strconv.Itoa(i) + `}}`)
	}
	var calls []frame
	for range limit {
		f := p.recvFrame()
		if f.Method != "session/request_permission" {
			t.Fatalf("want our call, got %+v", f)
		}
		calls = append(calls, f)
	}
	// Pipelined before the answers: past the bound, refused.
	for i := limit; i < limit+extra; i++ {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ask"}`)
	}
	for _, f := range calls {
		p.send(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"result":{"outcome":"allowed"}}`)
	}
	a := newAnswers(limit + extra)
	for range limit + extra {
		a.add([]byte(p.recv()))
	}
	a.check(t)
	if a.results != limit || a.codes[CodeOverloaded] != extra {
		t.Fatalf("want %d results and %d refusals, got %d and %v", limit, extra, a.results, a.codes)
	}
}

// With the writer blocked (the peer reads nothing yet) and no handler
// running, the reader pauses at MaxInFlight rather than refusing: once the
// peer reads, every request gets its result.
func TestFlowPausesWhileAnswersWaitForWriter(t *testing.T) {
	const limit, n = 4, 40
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	checkNoLeaks(t)
	var peak atomic.Int64
	var c *Conn
	h := funcs{req: func(context.Context, string, wire.Raw) (wire.Raw, error) {
		c.mu.Lock()
		peak.Store(max(peak.Load(), int64(c.requests)))
		c.mu.Unlock()
		return wire.Raw(`{}`), nil
	}}
	c = NewConn(inR, outW, h, Options{MaxInFlight: limit, Logger: quietLogger()})
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(context.Background()) }()
	wrote := make(chan struct{})
	go func() {
		for i := range n {
			io.WriteString(inW, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"m"}`+"\n")
		}
		close(wrote)
		inW.Close()
	}()
	// The reader must stop: the peer's writes block.
	select {
	case <-wrote:
		t.Fatal("the Conn read every request while its answers could not be written")
	case <-time.After(50 * time.Millisecond):
	}
	a := newAnswers(n)
	br := bufio.NewReader(outR)
	for range n {
		line, err := br.ReadSlice('\n')
		if err != nil {
			t.Fatal(err)
		}
		a.add(line)
	}
	within(t, runErr, "Run")
	outW.Close()
	a.check(t)
	if a.results != n {
		t.Fatalf("want %d results, got %d and %v", n, a.results, a.codes)
	}
	if peak.Load() > limit {
		t.Fatalf("%d requests in flight, over %d", peak.Load(), limit)
	}
}

// A flood of notifications to a slow handler: the reader pauses while the
// queued notifications fill MaxBuffered; every notification is handled, in
// order, and the bytes held never pass the bound by more than one frame.
func TestFlowNotificationsBoundedInOrder(t *testing.T) {
	const n, maxBuf = 2000, 8 << 10
	var (
		c        *Conn
		mu       sync.Mutex
		got      []int
		peakHeld int
	)
	h := funcs{note: func(_ context.Context, _ string, params wire.Raw) {
		c.mu.Lock()
		peakHeld = max(peakHeld, c.held)
		c.mu.Unlock()
		var v struct{ N int }
		json.Unmarshal(params, &v)
		mu.Lock()
		got = append(got, v.N)
		mu.Unlock()
		if v.N%100 == 0 {
			time.Sleep(time.Millisecond)
		}
	}}
	var stream strings.Builder
	for i := range n {
		fmt.Fprintf(&stream, `{"jsonrpc":"2.0","method":"note","params":{"n":%d,"pad":"%s"}}`+"\n", i, strings.Repeat("x", 100))
	}
	frameCost := len(`{"jsonrpc":"2.0","method":"note","params":{"n":0000,"pad":""}}`) + 100 + FrameOverhead
	c = NewConn(strings.NewReader(stream.String()), io.Discard, h, Options{MaxBuffered: maxBuf, Logger: quietLogger()})
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d of %d notifications handled", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d handled at position %d", v, i)
		}
	}
	if peakHeld > maxBuf+frameCost {
		t.Fatalf("%d bytes held, over MaxBuffered %d plus one frame", peakHeld, maxBuf)
	}
	if c.held != 0 || c.noteHeld != 0 || c.requests != 0 {
		t.Fatalf("accounting left over: held %d notes %d requests %d", c.held, c.noteHeld, c.requests)
	}
}

// Every request read before EOF is handled by its handler, even when Run
// stops (cancelling its context) before the handler had a slot: the answer
// is the handler's, never a -32800 by timing. 1,000 runs.
func TestEOFHandlesEveryRequestRead(t *testing.T) {
	const runs = 1000
	for i := range runs {
		var ran atomic.Int32
		h := funcs{req: func(_ context.Context, _ string, params wire.Raw) (wire.Raw, error) {
			ran.Add(1)
			return params, nil
		}}
		in := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"m","params":{"a":2}}` + "\n"
		var out syncBuffer
		c := NewConn(strings.NewReader(in), &out, h, Options{MaxConcurrent: 1, Logger: quietLogger()})
		if err := c.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Concurrent requests are answered in any order.
		want1 := `{"jsonrpc":"2.0","id":1,"result":{"a":1}}` + "\n"
		want2 := `{"jsonrpc":"2.0","id":2,"result":{"a":2}}` + "\n"
		if got := out.String(); ran.Load() != 2 || (got != want1+want2 && got != want2+want1) {
			t.Fatalf("run %d: %d handlers ran; wrote\n%s", i, ran.Load(), got)
		}
	}
}
