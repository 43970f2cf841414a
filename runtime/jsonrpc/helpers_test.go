package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// guard bounds every wait so that a bug fails the test instead of hanging it;
// no assertion depends on it.
const guard = 10 * time.Second

// funcs adapts functions to Handler; a nil req answers -32601.
type funcs struct {
	req  func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error)
	note func(ctx context.Context, method string, params wire.Raw)
}

func (f funcs) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if f.req == nil {
		return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
	}
	return f.req(ctx, method, params)
}

func (f funcs) HandleNotification(ctx context.Context, method string, params wire.Raw) {
	if f.note != nil {
		f.note(ctx, method, params)
	}
}

// echo answers every request with its params ({} when absent).
func echo(_ context.Context, _ string, params wire.Raw) (wire.Raw, error) {
	if params == nil {
		return wire.Raw(`{}`), nil
	}
	return params, nil
}

// syncBuffer is a log sink safe for concurrent writers.
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

func testLogger(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// peer is a scripted peer: the test writes raw lines to the Conn and reads
// the raw lines it writes.
type peer struct {
	t      *testing.T
	conn   *Conn
	in     *io.PipeWriter // peer -> conn
	outW   *io.PipeWriter // conn -> peer, closed after Run returns
	lines  chan string
	runErr chan error
	logs   *syncBuffer

	runOnce sync.Once
	err     error
}

func newPeer(t *testing.T, h Handler, o Options) *peer {
	return newPeerCtx(t, context.Background(), h, o)
}

func newPeerCtx(t *testing.T, ctx context.Context, h Handler, o Options) *peer {
	t.Helper()
	checkNoLeaks(t) // registered first, so it runs after the peer's cleanup
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{t: t, in: inW, outW: outW, lines: make(chan string, 4096), runErr: make(chan error, 1), logs: &syncBuffer{}}
	if o.Logger == nil {
		o.Logger = testLogger(p.logs)
	}
	p.conn = NewConn(inR, outW, h, o)
	go func() { p.runErr <- p.conn.Run(ctx) }()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(p.shutdown)
	return p
}

// send writes line and a newline; write sends s as is.
func (p *peer) send(line string) {
	p.t.Helper()
	p.write(line + "\n")
}

func (p *peer) write(s string) {
	p.t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.in, s)
		errc <- err
	}()
	select {
	case err := <-errc:
		if err != nil {
			p.t.Fatalf("peer write: %v", err)
		}
	case <-time.After(guard):
		p.t.Fatal("peer write blocked")
	}
}

func (p *peer) recv() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("connection output closed")
		}
		return l
	case <-time.After(guard):
		p.t.Fatal("no frame from the connection")
	}
	return ""
}

func (p *peer) recvFrame() frame {
	p.t.Helper()
	return decodeFrame(p.t, p.recv())
}

// waitRun waits for Run to return and returns its error.
func (p *peer) waitRun() error {
	p.t.Helper()
	p.runOnce.Do(func() {
		for {
			select {
			case p.err = <-p.runErr:
				return
			case <-p.lines: // keep the writer unblocked while handlers finish
			case <-time.After(guard):
				p.t.Fatal("Run did not return")
				return
			}
		}
	})
	return p.err
}

// shutdown sends EOF, waits for Run and closes the output.
func (p *peer) shutdown() {
	p.in.Close()
	p.waitRun()
	p.outW.Close()
	for range p.lines {
	}
}

// frame is a decoded JSON-RPC message as the peer sees it.
type frame struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    wire.ErrorCode  `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeFrame(t *testing.T, line string) frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal([]byte(line), &f); err != nil {
		t.Fatalf("connection wrote a line that is not a JSON object: %q: %v", line, err)
	}
	if f.JSONRPC == nil || *f.JSONRPC != "2.0" {
		t.Fatalf("frame without jsonrpc 2.0: %s", line)
	}
	return f
}

// wantError checks that f is an error response with the given id and code.
func wantError(t *testing.T, f frame, id string, code wire.ErrorCode) {
	t.Helper()
	if f.Error == nil {
		t.Fatalf("want error %d, got result %s (id %s)", code, f.Result, f.ID)
	}
	if f.Error.Code != code {
		t.Fatalf("want code %d, got %d (%s)", code, f.Error.Code, f.Error.Message)
	}
	if string(f.ID) != id {
		t.Fatalf("want id %s, got %s", id, f.ID)
	}
	if f.Result != nil {
		t.Fatalf("error response with a result: %s", f.Result)
	}
}

func wantResult(t *testing.T, f frame, id, result string) {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("want result %s, got error %d %s", result, f.Error.Code, f.Error.Message)
	}
	if string(f.ID) != id || string(f.Result) != result {
		t.Fatalf("want id %s result %s, got id %s result %s", id, result, f.ID, f.Result)
	}
}

// checkNoLeaks fails the test if goroutines of a Conn outlive it. It polls
// because exiting goroutines take a moment to disappear from the dump.
func checkNoLeaks(t testing.TB) {
	t.Cleanup(func() {
		deadline := time.Now().Add(guard)
		for {
			stacks := connStacks()
			if stacks == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("leaked goroutines:\n%s", stacks)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// connStacks returns the stacks of goroutines running Conn code.
func connStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "runtime/jsonrpc.(*Conn)") && !strings.Contains(g, "runtime/jsonrpc.connStacks") {
			leaked = append(leaked, g)
		}
	}
	return strings.Join(leaked, "\n\n")
}

// pair connects two Conns back to back.
func pair(t testing.TB, ha, hb Handler, o Options) (a, b *Conn) {
	checkNoLeaks(t)
	abR, abW := io.Pipe()
	baR, baW := io.Pipe()
	a = NewConn(baR, abW, ha, o)
	b = NewConn(abR, baW, hb, o)
	errs := make(chan error, 2)
	go func() { errs <- a.Run(context.Background()) }()
	go func() { errs <- b.Run(context.Background()) }()
	t.Cleanup(func() {
		// EOF both ways: each side's Run then returns nil.
		abW.Close()
		baW.Close()
		for range 2 {
			select {
			case err := <-errs:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(guard):
				t.Fatal("Run did not return")
			}
		}
	})
	return a, b
}

// manualCtx is a context whose end the test controls, for a deterministic
// "timeout".
type manualCtx struct {
	context.Context
	done chan struct{}
	err  error
}

func newManualCtx(err error) *manualCtx {
	return &manualCtx{Context: context.Background(), done: make(chan struct{}), err: err}
}

func (c *manualCtx) Done() <-chan struct{} { return c.done }

func (c *manualCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

func (c *manualCtx) end() { close(c.done) }

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
