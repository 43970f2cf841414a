package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// recorder records the methods the handler saw.
type recorder struct {
	mu      sync.Mutex
	methods []string
}

func (r *recorder) add(m string) {
	r.mu.Lock()
	r.methods = append(r.methods, m)
	r.mu.Unlock()
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.methods)
}

func recordingEcho(r *recorder) funcs {
	return funcs{
		req: func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
			r.add(method)
			return echo(ctx, method, params)
		},
		note: func(_ context.Context, method string, _ wire.Raw) { r.add("note:" + method) },
	}
}

func TestParseErrorAnsweredWithNullID(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	p.send(`not json`)
	line := p.recv()
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"details":`
	if !strings.HasPrefix(line, want) {
		t.Fatalf("got %s\nwant prefix %s", line, want)
	}
	// The connection survives.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`)
	wantResult(t, p.recvFrame(), `1`, `{"a":1}`)
}

func TestMalformedEnvelopes(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	for _, tc := range []struct {
		name, line string
		code       wire.ErrorCode
		id         string // echoed id
	}{
		{"string", `"hello"`, wire.CodeInvalidRequest, "null"},
		{"number", `42`, wire.CodeInvalidRequest, "null"},
		{"null", `null`, wire.CodeInvalidRequest, "null"},
		{"empty object", `{}`, wire.CodeInvalidRequest, "null"},
		{"version only", `{"jsonrpc":"2.0"}`, wire.CodeInvalidRequest, "null"},
		{"missing jsonrpc", `{"id":1,"method":"m"}`, wire.CodeInvalidRequest, "1"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"m"}`, wire.CodeInvalidRequest, "1"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"a","method":"m"}`, wire.CodeInvalidRequest, `"a"`},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, wire.CodeInvalidRequest, "1"},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, wire.CodeInvalidRequest, "1"},
		{"id bool", `{"jsonrpc":"2.0","id":true,"method":"m"}`, wire.CodeInvalidRequest, "null"},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"m"}`, wire.CodeInvalidRequest, "null"},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, wire.CodeInvalidRequest, "null"},
		{"params scalar", `{"jsonrpc":"2.0","id":2,"method":"m","params":"x"}`, wire.CodeInvalidRequest, "2"},
		{"notification params scalar", `{"jsonrpc":"2.0","method":"m","params":5}`, wire.CodeInvalidRequest, "null"},
		{"request with result", `{"jsonrpc":"2.0","id":3,"method":"m","result":{}}`, wire.CodeInvalidRequest, "3"},
		{"request with error", `{"jsonrpc":"2.0","id":3,"method":"m","error":{"code":1,"message":"x"}}`, wire.CodeInvalidRequest, "3"},
		{"response with both", `{"jsonrpc":"2.0","id":7,"result":1,"error":{"code":1,"message":"x"}}`, wire.CodeInvalidRequest, "null"},
		{"response with neither", `{"jsonrpc":"2.0","id":7}`, wire.CodeInvalidRequest, "null"},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, wire.CodeInvalidRequest, "null"},
		{"response bad version", `{"jsonrpc":"3","id":7,"result":1}`, wire.CodeInvalidRequest, "null"},
		{"error not object", `{"jsonrpc":"2.0","id":7,"error":5}`, wire.CodeInvalidRequest, "null"},
		{"error code string", `{"jsonrpc":"2.0","id":7,"error":{"code":"x","message":"m"}}`, wire.CodeInvalidRequest, "null"},
		{"error without message", `{"jsonrpc":"2.0","id":7,"error":{"code":1}}`, wire.CodeInvalidRequest, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"m"} x`, wire.CodeParseError, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"m"`, wire.CodeParseError, "null"},
		{"bad member after problem", `{"jsonrpc":"1.0","id":1,"method":"m","x":tru}`, wire.CodeParseError, "null"},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", wire.CodeParseError, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.line)
			wantError(t, p.recvFrame(), tc.id, tc.code)
		})
	}
	p.t = t
	p.send(`{"jsonrpc":"2.0","id":"sentinel","method":"sentinel"}`)
	wantResult(t, p.recvFrame(), `"sentinel"`, `{}`)
	if got := rec.list(); !slices.Equal(got, []string{"sentinel"}) {
		t.Fatalf("handler saw %v", got)
	}
}

func TestEnvelopeLeniency(t *testing.T) {
	// What JSON-RPC allows must pass: unknown members, params null or an
	// array, members in any order, whitespace.
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	p.send(`{"method":"a","x":{"y":[1]},"id":1,"jsonrpc":"2.0"}`)
	wantResult(t, p.recvFrame(), `1`, `{}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"b","params":null}`)
	wantResult(t, p.recvFrame(), `2`, `{}`)
	p.send(` { "jsonrpc" : "2.0" , "id" : 3 , "method" : "c" , "params" : [ 1 , 2 ] } `)
	wantResult(t, p.recvFrame(), `3`, `[ 1 , 2 ]`)
}

func TestOversizedFrameSkipped(t *testing.T) {
	const max = 100
	p := newPeer(t, funcs{req: echo}, Options{MaxFrame: max})
	// A line far bigger than the limit (and than the read buffer).
	big := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"` + strings.Repeat("x", 1<<20) + `"}}`
	p.send(big)
	f := p.recvFrame()
	wantError(t, f, "null", wire.CodeInvalidRequest)
	if !strings.Contains(string(f.Error.Data), "exceeds 100 bytes") {
		t.Fatalf("data: %s", f.Error.Data)
	}

	// Exactly the limit, even with "\r\n", is accepted.
	prefix := `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"s":"`
	exact := prefix + strings.Repeat("y", max-len(prefix)-3) + `"}}`
	if len(exact) != max {
		t.Fatalf("test frame is %d bytes", len(exact))
	}
	p.write(exact + "\r\n")
	wantResult(t, p.recvFrame(), `2`, exact[len(prefix)-6:len(exact)-1])

	// One byte more is not.
	over := prefix + strings.Repeat("y", max-len(prefix)-2) + `"}}`
	p.send(over)
	wantError(t, p.recvFrame(), "null", wire.CodeInvalidRequest)

	p.send(`{"jsonrpc":"2.0","id":3,"method":"echo"}`)
	wantResult(t, p.recvFrame(), `3`, `{}`)
}

func TestOversizedFrameNotBuffered(t *testing.T) {
	// A 32 MiB line over a 1 KiB limit is discarded chunk by chunk: reading
	// it allocates nothing near its size.
	p := newPeer(t, funcs{req: echo}, Options{MaxFrame: 1 << 10})
	big := []byte(strings.Repeat("x", 32<<20) + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go p.in.Write(big) // the reply below proves the whole line was consumed
	wantError(t, p.recvFrame(), "null", wire.CodeInvalidRequest)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("reading an oversized frame allocated %d bytes", grew)
	}
}

func TestFrameLargerThanReadBuffer(t *testing.T) {
	// Under the default limit, a frame spanning many reads is reassembled.
	p := newPeer(t, funcs{req: echo}, Options{})
	params := `{"s":"` + strings.Repeat("z", 300<<10) + `"}`
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":` + params + `}`)
	wantResult(t, p.recvFrame(), `1`, params)
}

func TestBlankLinesAndCRLF(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	p.write("\n\r\n  \t \n")
	p.write(`{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\r\n")
	wantResult(t, p.recvFrame(), `1`, `{}`)
	if got := rec.list(); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("handler saw %v", got)
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	for _, id := range []string{`"abc"`, `"a\u0062c"`, `""`, `"é"`, `7`, `0`, `-3`, `1.5`, `1e2`, `12345678901234567890`, `null`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo"}`)
		f := p.recvFrame()
		wantResult(t, f, id, `{}`)
	}
}

func TestCallsBothWaysConcurrently(t *testing.T) {
	const n = 20
	// Each side's handler blocks until the test releases it, so all calls
	// are in flight at once and answered in reverse order.
	type side struct {
		started chan int
		release [n]chan struct{}
	}
	mk := func() *side {
		s := &side{started: make(chan int, n)}
		for i := range s.release {
			s.release[i] = make(chan struct{})
		}
		return s
	}
	sa, sb := mk(), mk()
	handler := func(s *side) funcs {
		return funcs{req: func(ctx context.Context, _ string, params wire.Raw) (wire.Raw, error) {
			var v struct{ N int }
			if err := json.Unmarshal(params, &v); err != nil {
				return nil, err
			}
			s.started <- v.N
			select {
			case <-s.release[v.N]:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return wire.Raw(fmt.Sprintf(`{"n":%d}`, v.N)), nil
		}}
	}
	a, b := pair(t, handler(sa), handler(sb), Options{MaxConcurrent: n})

	type result struct {
		from string
		i    int
		got  string
		err  error
	}
	results := make(chan result, 2*n)
	for i := range n {
		for _, c := range []struct {
			name string
			conn *Conn
		}{{"a", a}, {"b", b}} {
			go func() {
				res, err := c.conn.Call(context.Background(), "slow", wire.Raw(fmt.Sprintf(`{"n":%d}`, i)))
				results <- result{c.name, i, string(res), err}
			}()
		}
	}
	for _, s := range []*side{sa, sb} {
		for range n {
			within(t, s.started, "handler start")
		}
	}
	for i := n - 1; i >= 0; i-- {
		close(sa.release[i])
		close(sb.release[i])
	}
	for range 2 * n {
		r := within(t, results, "call result")
		if r.err != nil {
			t.Fatalf("%s call %d: %v", r.from, r.i, r.err)
		}
		if want := fmt.Sprintf(`{"n":%d}`, r.i); r.got != want {
			t.Fatalf("%s call %d got %s, want %s", r.from, r.i, r.got, want)
		}
	}
}

func TestOutOfOrderResponses(t *testing.T) {
	p := newPeer(t, funcs{}, Options{})
	type result struct {
		i   int
		res wire.Raw
		err error
	}
	results := make(chan result, 3)
	for i := range 3 {
		go func() {
			res, err := p.conn.Call(context.Background(), "m", wire.Raw(`{"i":`+strconv.Itoa(i)+`}`))
			results <- result{i, res, err}
		}()
	}
	var reqs []frame
	for range 3 {
		f := p.recvFrame()
		if f.Method != "m" || f.ID == nil {
			t.Fatalf("not a request: %+v", f)
		}
		reqs = append(reqs, f)
	}
	ids := map[string]bool{}
	for _, f := range reqs {
		ids[string(f.ID)] = true
	}
	if !ids["1"] || !ids["2"] || !ids["3"] {
		t.Fatalf("ids %v, want 1, 2, 3", ids)
	}
	// Answer in reverse; the request with "i":1 gets an error with data.
	for k := 2; k >= 0; k-- {
		f := reqs[k]
		if string(f.Params) == `{"i":1}` {
			p.send(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"x"}}}`)
		} else {
			p.send(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"result":` + string(f.Params) + `}`)
		}
	}
	for range 3 {
		r := within(t, results, "call result")
		if r.i == 1 {
			var re *wire.RPCError
			if !errors.As(r.err, &re) || re.Code != -32002 || re.Message != "Resource not found" {
				t.Fatalf("call 1: %v", r.err)
			}
			if d, ok := re.Data.(wire.Raw); !ok || string(d) != `{"uri":"x"}` {
				t.Fatalf("call 1 data %#v", re.Data)
			}
			continue
		}
		if r.err != nil || string(r.res) != `{"i":`+strconv.Itoa(r.i)+`}` {
			t.Fatalf("call %d: %s %v", r.i, r.res, r.err)
		}
	}
}

func TestUnknownResponseIDIgnored(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	p.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	p.send(`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	// Nothing is answered: the next frame is the sentinel's reply.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	wantResult(t, p.recvFrame(), `1`, `{}`)
	// The three share one rate-limited warning: the first is written.
	logs := p.logs.String()
	if strings.Count(logs, "unknown id") != 1 {
		t.Fatalf("want 1 unknown-id log, got:\n%s", logs)
	}
}

func TestMalformedResponseReleasesCall(t *testing.T) {
	p := newPeer(t, funcs{}, Options{})
	errc := make(chan error, 1)
	go func() {
		_, err := p.conn.Call(context.Background(), "m", nil)
		errc <- err
	}()
	f := p.recvFrame()
	p.send(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"result":1,"error":{"code":1,"message":"x"}}`)
	wantError(t, p.recvFrame(), "null", wire.CodeInvalidRequest)
	if err := within(t, errc, "call"); !errors.Is(err, ErrMalformedResponse) {
		t.Fatalf("got %v", err)
	}
}

func TestNotificationsInOrderOneAtATime(t *testing.T) {
	const n = 500
	var (
		active  atomic.Int32
		overlap atomic.Bool
		got     []int
		done    = make(chan struct{})
	)
	h := funcs{note: func(_ context.Context, _ string, params wire.Raw) {
		if active.Add(1) > 1 {
			overlap.Store(true)
		}
		defer active.Add(-1)
		var v struct{ I int }
		_ = json.Unmarshal(params, &v)
		got = append(got, v.I) // only one notification handler runs at a time
		if len(got) == n {
			close(done)
		}
	}}
	p := newPeer(t, h, Options{})
	for i := range n {
		p.send(`{"jsonrpc":"2.0","method":"session/update","params":{"i":` + strconv.Itoa(i) + `}}`)
	}
	within(t, done, "notifications")
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d handled at position %d", v, i)
		}
	}
	if overlap.Load() {
		t.Fatal("notification handlers overlapped")
	}
}

func TestNotificationNotBehindRunningRequest(t *testing.T) {
	// session/cancel must reach the agent while session/prompt runs.
	started := make(chan struct{})
	cancelled := make(chan struct{})
	h := funcs{
		req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
			close(started)
			select {
			case <-cancelled:
				return wire.Raw(`{"stopReason":"cancelled"}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		note: func(_ context.Context, method string, _ wire.Raw) {
			if method == "session/cancel" {
				close(cancelled)
			}
		},
	}
	p := newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`)
	within(t, started, "prompt start")
	p.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`)
	wantResult(t, p.recvFrame(), `1`, `{"stopReason":"cancelled"}`)
}

// A handler that blocks on something other than a Call of its own (here,
// the next request's handler) without saying so: the reader goes on reading,
// so the request it waits for runs.
func TestBlockedHandlerDoesNotStopReading(t *testing.T) {
	second := make(chan struct{})
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		if method == "second" {
			close(second)
			return wire.Raw(`{}`), nil
		}
		select {
		case <-second:
			return wire.Raw(`{"waited":true}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	p := newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"first"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"second"}`)
	// Both are answered, in either order once second has run.
	got := map[string]string{}
	for range 2 {
		f := p.recvFrame()
		if f.Error != nil {
			t.Fatalf("error %+v", f.Error)
		}
		got[string(f.ID)] = string(f.Result)
	}
	if got["1"] != `{"waited":true}` || got["2"] != `{}` {
		t.Fatalf("answers %v", got)
	}
}

// Requests arriving one at a time whose handlers take from nothing to
// several watchdog periods, some calling the peer: the reading role passes
// between goroutines while earlier requests still run, and again while they
// finish. Every request is answered once, with its own result, and under
// -race no two goroutines read at once. MaxInFlight admits all n at once:
// on a loaded machine the handlers fall behind the sender, and a refusal at
// the bound is another test's subject.
func TestInlineHandOffsUnderLoad(t *testing.T) {
	const n = 300
	var p *peer
	h := funcs{req: func(ctx context.Context, _ string, params wire.Raw) (wire.Raw, error) {
		var v struct{ I int }
		if err := json.Unmarshal(params, &v); err != nil {
			return nil, err
		}
		switch v.I % 4 {
		case 1:
			time.Sleep(time.Duration(v.I%7) * 150 * time.Microsecond)
		case 2:
			if _, err := p.conn.Call(ctx, "ask", params); err != nil {
				return nil, err
			}
		}
		return params, nil
	}}
	p = newPeer(t, h, Options{MaxInFlight: n})
	got := make(chan frame, n)
	go func() {
		for range n + n/4 {
			l, ok := <-p.lines
			if !ok {
				return
			}
			var f frame
			if err := json.Unmarshal([]byte(l), &f); err != nil {
				t.Errorf("frame %q: %v", l, err)
				return
			}
			if f.Method == "ask" {
				go io.WriteString(p.in, `{"jsonrpc":"2.0","id":`+string(f.ID)+`,"result":{}}`+"\n")
				continue
			}
			got <- f
		}
	}()
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m","params":{"i":%d}}`, i, i))
	}
	seen := map[string]bool{}
	for range n {
		f := within(t, got, "answer")
		want := `{"i":` + string(f.ID) + `}`
		if f.Error != nil || string(f.Result) != want || seen[string(f.ID)] {
			t.Fatalf("answer %+v (seen before: %v)", f, seen[string(f.ID)])
		}
		seen[string(f.ID)] = true
	}
}

// A request on the input's last line, whose handler waits for shutdown: Run
// still sees EOF and returns, and the handler's answer is written.
func TestEOFWhileLastRequestRuns(t *testing.T) {
	h := funcs{req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	for _, in := range []string{`{"jsonrpc":"2.0","id":1,"method":"wait"}` + "\n", `{"jsonrpc":"2.0","id":1,"method":"wait"}`} {
		var out syncBuffer
		c := NewConn(strings.NewReader(in), &out, h, Options{Logger: quietLogger()})
		runErr := make(chan error, 1)
		go func() { runErr <- c.Run(context.Background()) }()
		if err := within(t, runErr, "Run"); err != nil {
			t.Fatal(err)
		}
		wantError(t, decodeFrame(t, strings.TrimSpace(out.String())), "1", wire.CodeCancelled)
	}
}

func TestNotifyBeforeResponseOrdering(t *testing.T) {
	var p *peer
	h := funcs{req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
		for i := range 10 {
			if err := p.conn.Notify(ctx, "session/update", wire.Raw(`{"i":`+strconv.Itoa(i)+`}`)); err != nil {
				return nil, err
			}
		}
		return wire.Raw(`{"stopReason":"end_turn"}`), nil
	}}
	p = newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":"p","method":"session/prompt"}`)
	for i := range 10 {
		f := p.recvFrame()
		if f.Method != "session/update" || f.ID != nil || string(f.Params) != `{"i":`+strconv.Itoa(i)+`}` {
			t.Fatalf("frame %d: %+v", i, f)
		}
	}
	wantResult(t, p.recvFrame(), `"p"`, `{"stopReason":"end_turn"}`)
}

func TestCancelRequest(t *testing.T) {
	var notes recorder
	started := make(chan string, 4)
	h := funcs{
		req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
			started <- method
			<-ctx.Done()
			if method == "finish-anyway" {
				return wire.Raw(`{"partial":true}`), nil
			}
			return nil, ctx.Err()
		},
		note: func(_ context.Context, method string, _ wire.Raw) { notes.add(method) },
	}
	p := newPeer(t, h, Options{})

	p.send(`{"jsonrpc":"2.0","id":5,"method":"wait"}`)
	within(t, started, "handler start")
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}`)
	f := p.recvFrame()
	wantError(t, f, "5", wire.CodeCancelled)
	if f.Error.Message != "Request cancelled" {
		t.Fatalf("message %q", f.Error.Message)
	}

	// A string id, cancelled through an equal but differently escaped id.
	p.send(`{"jsonrpc":"2.0","id":"abc","method":"wait"}`)
	within(t, started, "handler start")
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a\u0062c"}}`)
	wantError(t, p.recvFrame(), `"abc"`, wire.CodeCancelled)

	// A handler that still returns a result after cancellation: it is sent.
	p.send(`{"jsonrpc":"2.0","id":6,"method":"finish-anyway"}`)
	within(t, started, "handler start")
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":6}}`)
	wantResult(t, p.recvFrame(), `6`, `{"partial":true}`)

	// Unknown ids and malformed params are ignored; none reach the Handler.
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":404}}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":true}}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request"}`)
	p.send(`{"jsonrpc":"2.0","method":"ping"}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"wait"}`)
	within(t, started, "handler start")
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`)
	wantError(t, p.recvFrame(), "7", wire.CodeCancelled)
	// ping was queued before 7 was answered, but notifications run on their
	// own goroutine: wait for it rather than assume.
	deadline := time.Now().Add(guard)
	for len(notes.list()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := notes.list(); !slices.Equal(got, []string{"ping"}) {
		t.Fatalf("Handler saw notifications %v", got)
	}
}

func TestCancelWhileWaitingForSlot(t *testing.T) {
	var rec recorder
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		rec.add(method)
		started <- struct{}{}
		<-release
		return wire.Raw(`{}`), nil
	}}
	p := newPeer(t, h, Options{MaxConcurrent: 1})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"first"}`)
	within(t, started, "first handler")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"second"}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`)
	wantError(t, p.recvFrame(), "2", wire.CodeCancelled)
	close(release)
	wantResult(t, p.recvFrame(), "1", `{}`)
	if got := rec.list(); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("handlers run: %v", got)
	}
}

func TestMaxConcurrent(t *testing.T) {
	const limit, n = 3, 12
	var active, peak atomic.Int32
	started := make(chan struct{}, n)
	release := make(chan struct{})
	h := funcs{req: func(context.Context, string, wire.Raw) (wire.Raw, error) {
		v := active.Add(1)
		for {
			old := peak.Load()
			if v <= old || peak.CompareAndSwap(old, v) {
				break
			}
		}
		started <- struct{}{}
		<-release
		active.Add(-1)
		return wire.Raw(`{}`), nil
	}}
	p := newPeer(t, h, Options{MaxConcurrent: limit})
	for i := range n {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"m"}`)
	}
	for range limit {
		within(t, started, "handler start")
	}
	close(release)
	for range n {
		if f := p.recvFrame(); f.Error != nil {
			t.Fatalf("error %+v", f.Error)
		}
	}
	if got := peak.Load(); got != limit {
		t.Fatalf("peak concurrency %d, want %d", got, limit)
	}
}

func TestCallContextEndSendsCancelRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{{"timeout", context.DeadlineExceeded}, {"cancel", context.Canceled}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, funcs{req: echo}, Options{})
			ctx := newManualCtx(tc.err)
			errc := make(chan error, 1)
			go func() {
				_, err := p.conn.Call(ctx, "session/prompt", wire.Raw(`{}`))
				errc <- err
			}()
			req := p.recvFrame()
			ctx.end()
			c := p.recvFrame()
			if c.Method != "$/cancel_request" || c.ID != nil || string(c.Params) != `{"requestId":`+string(req.ID)+`}` {
				t.Fatalf("want $/cancel_request for %s, got %+v", req.ID, c)
			}
			if err := within(t, errc, "call"); !errors.Is(err, tc.err) {
				t.Fatalf("Call returned %v, want %v", err, tc.err)
			}
			// The peer's late answer is dropped quietly.
			p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32800,"message":"Request cancelled"}}`)
			p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
			wantResult(t, p.recvFrame(), `1`, `{}`)
			if logs := p.logs.String(); !strings.Contains(logs, "abandoned call") || strings.Contains(logs, "unknown id") {
				t.Fatalf("logs:\n%s", logs)
			}
		})
	}
}

func TestCallWithEndedContextSendsNothing(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.conn.Call(ctx, "m", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if err := p.conn.Notify(ctx, "m", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// The first frame written is the sentinel's reply.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	wantResult(t, p.recvFrame(), `1`, `{}`)
}

func TestHandlerPanic(t *testing.T) {
	h := funcs{
		req: func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
			if method == "boom" {
				panic("kaboom")
			}
			return echo(ctx, method, params)
		},
		note: func(context.Context, string, wire.Raw) { panic("note kaboom") },
	}
	p := newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	f := p.recvFrame()
	wantError(t, f, "1", wire.CodeInternalError)
	if strings.Contains(f.Error.Message, "kaboom") {
		t.Fatalf("panic value leaked to the peer: %s", f.Error.Message)
	}
	p.send(`{"jsonrpc":"2.0","method":"n"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	wantResult(t, p.recvFrame(), `2`, `{}`)
	p.shutdown() // lets the notification handler finish before reading the logs
	logs := p.logs.String()
	if !strings.Contains(logs, "kaboom") || !strings.Contains(logs, "note kaboom") || !strings.Contains(logs, "goroutine") {
		t.Fatalf("panics not logged with stacks:\n%s", logs)
	}
}

type customErr struct{}

func (customErr) Error() string { return "custom" }
func (customErr) RPCError() *wire.RPCError {
	return &wire.RPCError{Code: -32000, Message: "Authentication required"}
}

type panickyErr struct{}

func (panickyErr) Error() string { panic("Error panicked") }

func TestHandlerErrorsAndResults(t *testing.T) {
	rpcErr := &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found", Data: map[string]string{"method": "x"}}
	h := funcs{req: func(_ context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		switch method {
		case "rpc":
			return nil, rpcErr
		case "wrapped":
			return nil, fmt.Errorf("dispatch: %w", rpcErr)
		case "validation":
			return nil, &wire.ValidationError{Violations: []wire.Violation{{Pointer: "/cwd", Reason: "required"}}}
		case "gate":
			return nil, &wire.GateError{Violations: []wire.GateViolation{{Method: "session/load", Capability: "agentCapabilities.loadSession"}}}
		case "custom":
			return nil, fmt.Errorf("wrapped: %w", customErr{})
		case "plain":
			return nil, errors.New("disk on fire")
		case "canceled":
			return nil, context.Canceled // not cancelled by anyone: an internal error
		case "bad-json":
			return wire.Raw(`{"a":`), nil
		case "pretty":
			return wire.Raw("{\n  \"a\": \"x y\",\r\n  \"b\": [1, 2]\n}"), nil
		case "nil":
			return nil, nil
		case "bad-data":
			return nil, &wire.RPCError{Code: 1, Message: "m", Data: make(chan int)}
		case "typed-nil":
			var e *wire.RPCError
			return nil, e
		case "panicky-error":
			return nil, panickyErr{}
		case "raw-data":
			return nil, &wire.RPCError{Code: 2, Message: "m", Data: wire.Raw(`{"k": 1}`)}
		}
		return nil, nil
	}}
	p := newPeer(t, h, Options{})
	for _, tc := range []struct {
		method string
		code   wire.ErrorCode // 0: a result
		want   string         // message, or result
		data   string
	}{
		{"rpc", -32601, "Method not found", `{"method":"x"}`},
		{"wrapped", -32601, "Method not found", `{"method":"x"}`},
		{"validation", -32602, "Invalid params: /cwd: required", `{"violations":[{"pointer":"/cwd","reason":"required"}]}`},
		{"gate", -32601, "session/load needs agentCapabilities.loadSession", ""},
		{"custom", -32000, "Authentication required", ""},
		{"plain", -32603, "disk on fire", ""},
		{"canceled", -32603, "context canceled", ""},
		{"bad-json", -32603, "Internal error: invalid result JSON", ""},
		{"pretty", 0, `{"a":"x y","b":[1,2]}`, ""},
		{"nil", 0, `null`, ""},
		{"bad-data", 1, "m", ""},
		{"raw-data", 2, "m", `{"k": 1}`},
		{"typed-nil", -32603, "Internal error", ""},
		{"panicky-error", -32603, "Internal error", ""},
	} {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `"}`)
		line := p.recv()
		f := decodeFrame(t, line)
		if tc.code == 0 {
			wantResult(t, f, "1", tc.want)
			continue
		}
		wantError(t, f, "1", tc.code)
		if f.Error.Message != tc.want {
			t.Errorf("%s: message %q, want %q", tc.method, f.Error.Message, tc.want)
		}
		if tc.data != "" && string(f.Error.Data) != tc.data {
			t.Errorf("%s: data %s, want %s", tc.method, f.Error.Data, tc.data)
		}
		if tc.method == "bad-data" && strings.Contains(line, `"data"`) {
			t.Errorf("unencodable data written: %s", line)
		}
	}
}

func TestOutboundParams(t *testing.T) {
	p := newPeer(t, funcs{}, Options{})
	ctx := context.Background()
	if err := p.conn.Notify(ctx, "m", wire.Raw(`{"a":`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("invalid params: %v", err)
	}
	if _, err := p.conn.Call(ctx, "m", wire.Raw(`nope`)); !errors.Is(err, ErrInvalidJSON) {
		t.Fatalf("invalid params: %v", err)
	}
	if err := p.conn.Notify(ctx, "pretty", wire.Raw("{\n \"a\" : 1\n}")); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(ctx, "bare", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(ctx, "m\"\n", wire.Raw(`[]`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"pretty","params":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"bare"}`,
		`{"jsonrpc":"2.0","method":"m\"\n","params":[]}`,
	} {
		if got := p.recv(); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}

func TestFinalLineWithoutNewline(t *testing.T) {
	// A last line cut short by EOF is still a frame. (A notification, as
	// EOF cancels requests that may not have started yet.)
	got := make(chan string, 1)
	h := funcs{note: func(_ context.Context, method string, params wire.Raw) { got <- method + string(params) }}
	p := newPeer(t, h, Options{})
	p.write(`{"jsonrpc":"2.0","method":"last","params":{"a":1}}`)
	p.in.Close()
	if err := p.waitRun(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if g := within(t, got, "notification"); g != `last{"a":1}` {
		t.Fatalf("got %s", g)
	}
}

func TestEOFShutdownNoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	var notes atomic.Int32
	h := funcs{
		req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
			close(started)
			<-ctx.Done()
			handlerErr <- ctx.Err()
			return nil, ctx.Err()
		},
		note: func(context.Context, string, wire.Raw) { notes.Add(1) },
	}
	logs := &syncBuffer{}
	c := NewConn(inR, outW, h, Options{Logger: testLogger(logs)})
	runErr := make(chan error, 1)
	go func() { runErr <- c.Run(context.Background()) }()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var acc strings.Builder
		for {
			n, err := outR.Read(buf)
			acc.Write(buf[:n])
			for {
				s := acc.String()
				i := strings.IndexByte(s, '\n')
				if i < 0 {
					break
				}
				lines <- s[:i]
				acc.Reset()
				acc.WriteString(s[i+1:])
			}
			if err != nil {
				return
			}
		}
	}()

	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"prompt"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	within(t, started, "handler start")
	callErr := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "fs/read_text_file", wire.Raw(`{}`))
		callErr <- err
	}()
	if l := within(t, lines, "outbound request"); !strings.Contains(l, `"method":"fs/read_text_file"`) {
		t.Fatalf("got %s", l)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"last"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	inW.Close() // EOF

	if err := within(t, runErr, "Run"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := within(t, handlerErr, "handler"); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ctx: %v", err)
	}
	if err := within(t, callErr, "Call"); !errors.Is(err, ErrClosed) {
		t.Fatalf("pending Call: %v", err)
	}
	if notes.Load() != 1 {
		t.Fatal("notification received before EOF was not handled")
	}
	f := decodeFrame(t, within(t, lines, "reply"))
	wantError(t, f, "1", wire.CodeCancelled)
	if _, err := c.Call(context.Background(), "m", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after shutdown: %v", err)
	}
	if err := c.Notify(context.Background(), "m", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Notify after shutdown: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed")
	}
	outW.Close()
	for range lines {
	}

	deadline := time.Now().Add(guard)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunContextEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	h := funcs{req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	p := newPeerCtx(t, ctx, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	within(t, started, "handler start")
	cancel()
	wantError(t, p.recvFrame(), "1", wire.CodeCancelled)
	if err := p.waitRun(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	// Run closed the reader to stop reading.
	if _, err := io.WriteString(p.in, "{}\n"); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("write after Run: %v", err)
	}
}

func TestClose(t *testing.T) {
	started := make(chan struct{})
	var p *peer
	h := funcs{req: func(ctx context.Context, method string, _ wire.Raw) (wire.Raw, error) {
		if method == "close" {
			// Close from inside a handler must not deadlock.
			return wire.Raw(`{}`), p.conn.Close()
		}
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	p = newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	within(t, started, "handler start")
	if err := p.conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	wantError(t, p.recvFrame(), "1", wire.CodeCancelled)
	if err := p.waitRun(); err != nil {
		t.Fatalf("Run after Close: %v", err)
	}
	if _, err := p.conn.Call(context.Background(), "m", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Call after Close: %v", err)
	}
	if err := p.conn.Run(context.Background()); err == nil {
		t.Fatal("second Run succeeded")
	}
}

func TestCloseFromHandler(t *testing.T) {
	var p *peer
	h := funcs{req: func(ctx context.Context, _ string, _ wire.Raw) (wire.Raw, error) {
		if err := p.conn.Close(); err != nil {
			return nil, err
		}
		return wire.Raw(`{"closed":true}`), nil
	}}
	p = newPeer(t, h, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	wantResult(t, p.recvFrame(), "1", `{"closed":true}`)
	if err := p.waitRun(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestCloseBeforeRun(t *testing.T) {
	r, w := io.Pipe()
	c := NewConn(r, io.Discard, funcs{}, Options{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatalf("Run after Close: %v", err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("reader not closed: %v", err)
	}
}

func TestLogsNeverOnProtocolWriter(t *testing.T) {
	h := funcs{req: func(context.Context, string, wire.Raw) (wire.Raw, error) { panic("boom") }}
	p := newPeer(t, h, Options{MaxFrame: 64})
	p.send(`garbage`)
	p.send(`{"jsonrpc":"2.0","id":42,"result":{}}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":[]}`)
	p.send(strings.Repeat("x", 100))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	var lines []string
	for range 3 { // parse error, oversized frame, panic reply
		lines = append(lines, p.recv())
	}
	p.shutdown()
	for _, l := range lines {
		decodeFrame(t, l) // fails on anything that is not a JSON-RPC frame
	}
	logs := p.logs.String()
	for _, want := range []string{"rejected frame", "unknown id", "malformed $/cancel_request", "frame too large", "panicked"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestWriteErrorIsSticky(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	fw := &failingWriter{}
	logs := &syncBuffer{}
	c := NewConn(r, fw, funcs{}, Options{Logger: testLogger(logs)})
	if err := c.Notify(context.Background(), "a", nil); err == nil {
		t.Fatal("want write error")
	}
	fw.ok = true
	if err := c.Notify(context.Background(), "b", nil); err == nil {
		t.Fatal("want sticky write error")
	}
	if !strings.Contains(logs.String(), "write failed") {
		t.Fatalf("logs: %s", logs)
	}
}

type failingWriter struct{ ok bool }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.ok {
		return len(p), nil
	}
	return 0, errors.New("broken pipe")
}

func TestDefaults(t *testing.T) {
	c := NewConn(strings.NewReader(""), io.Discard, funcs{}, Options{})
	if c.log == nil || c.maxFrame != DefaultMaxFrame || cap(c.sem) != DefaultMaxConcurrent || c.maxInFlight != DefaultMaxInFlight || c.maxBuffered != DefaultMaxBuffered {
		t.Fatalf("defaults: %v %d %d %d %d", c.log, c.maxFrame, cap(c.sem), c.maxInFlight, c.maxBuffered)
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatalf("Run on empty input: %v", err)
	}
}
