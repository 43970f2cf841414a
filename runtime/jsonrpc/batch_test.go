package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// recvBatch reads the next line, which must be a JSON array of responses,
// and returns them by id.
func (p *peer) recvBatch() map[string]frame {
	p.t.Helper()
	line := p.recv()
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(line), &items); err != nil {
		p.t.Fatalf("want an array line, got %q: %v", line, err)
	}
	out := map[string]frame{}
	for _, it := range items {
		f := decodeFrame(p.t, string(it))
		if f.Method != "" {
			p.t.Fatalf("array holds a request or notification: %s", it)
		}
		if _, dup := out[string(f.ID)]; dup && string(f.ID) != "null" {
			p.t.Fatalf("two answers for id %s in %s", f.ID, line)
		}
		out[string(f.ID)] = f
	}
	if len(out) == 0 {
		p.t.Fatalf("empty array written: %q", line)
	}
	return out
}

func wantIDs(t *testing.T, got map[string]frame, ids ...string) {
	t.Helper()
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Sort(ids)
	if !slices.Equal(keys, ids) {
		t.Fatalf("answered ids %v, want %v", keys, ids)
	}
}

func req(id, method string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"n":` + id + `}}`
}

func notif(method string) string { return `{"jsonrpc":"2.0","method":"` + method + `"}` }

func batch(entries ...string) string { return "[" + strings.Join(entries, ",") + "]" }

// gate is a handler whose requests named "wait" block until released (or
// their context ends, answered with its error); "started" receives the id
// of each as it starts. Other requests echo.
type gate struct {
	started chan string
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan string, 16), release: make(chan struct{})} }

func (g *gate) handler(rec *recorder) funcs {
	h := recordingEcho(rec)
	echoReq := h.req
	h.req = func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
		if method != "wait" {
			return echoReq(ctx, method, params)
		}
		rec.add(method)
		g.started <- string(params)
		select {
		case <-g.release:
			return params, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h
}

func TestBatchOfRequestsAnsweredByOneArray(t *testing.T) {
	var rec recorder
	g := newGate()
	p := newPeer(t, g.handler(&rec), Options{})
	p.send(batch(req("1", "wait"), req(`"a"`, "echo"), req("3", "echo")))
	within(t, g.started, "the blocking request to start")
	close(g.release)
	got := p.recvBatch()
	wantIDs(t, got, "1", `"a"`, "3")
	wantResult(t, got["1"], "1", `{"n":1}`)
	wantResult(t, got["3"], "3", `{"n":3}`)
	// The next line answers the next frame: nothing of the batch is left.
	p.send(req("4", "echo"))
	wantResult(t, p.recvFrame(), "4", `{"n":4}`)
}

func TestBatchNotificationsGetNoItem(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	p.send(batch(notif("a"), req("1", "echo"), notif("b"), req("2", "echo"), notif("c")))
	wantIDs(t, p.recvBatch(), "1", "2")
	p.send(req("3", "echo"))
	wantResult(t, p.recvFrame(), "3", `{"n":3}`)
	p.shutdown() // handles the notifications queued
	var notes []string
	for _, m := range rec.list() {
		if strings.HasPrefix(m, "note:") {
			notes = append(notes, m)
		}
	}
	if !slices.Equal(notes, []string{"note:a", "note:b", "note:c"}) {
		t.Fatalf("notifications handled %v, want a, b, c in order", notes)
	}
}

func TestBatchOfNotificationsOnlyGetsNoReply(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	p.send(batch(notif("a"), notif("b")))
	p.send(req(`"sentinel"`, "echo"))
	// The batch was handled whole before the sentinel was read, so any reply
	// to it would come first.
	wantResult(t, p.recvFrame(), `"sentinel"`, `{"n":"sentinel"}`)
}

func TestEmptyBatchIsOneInvalidRequest(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	for _, line := range []string{`[]`, ` [ ] `} {
		p.send(line)
		wantError(t, p.recvFrame(), "null", wire.CodeInvalidRequest)
	}
	// A batch that is not JSON is one parse error.
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc"`)
	wantError(t, p.recvFrame(), "null", wire.CodeParseError)
	// A batch of one request is answered by an array of one.
	p.send(batch(req("1", "echo")))
	wantResult(t, p.recvBatch()["1"], "1", `{"n":1}`)
}

func TestBatchInvalidEntries(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{})
	// JSON-RPC 2.0 §7's example: each entry an invalid request.
	p.send(`[1,2,3]`)
	line := p.recv()
	var items []frame
	if err := json.Unmarshal([]byte(line), &items); err != nil || len(items) != 3 {
		t.Fatalf("want an array of 3, got %q (%v)", line, err)
	}
	for _, f := range items {
		wantError(t, f, "null", wire.CodeInvalidRequest)
	}
	// Invalid entries beside valid ones; a request's readable id is echoed,
	// as for a frame of its own.
	p.send(batch(req("1", "echo"), `{"foo":"boo"}`, `[]`, notif("n"), `{"jsonrpc":"1.0","id":9,"method":"echo"}`, `"x"`))
	line = p.recv()
	items = nil // a fresh slice: Unmarshal would decode into the old elements
	if err := json.Unmarshal([]byte(line), &items); err != nil || len(items) != 5 {
		t.Fatalf("want an array of 5, got %q (%v)", line, err)
	}
	nulls := 0
	for _, f := range items {
		switch string(f.ID) {
		case "1":
			wantResult(t, f, "1", `{"n":1}`)
		case "9":
			wantError(t, f, "9", wire.CodeInvalidRequest)
		default:
			wantError(t, f, "null", wire.CodeInvalidRequest)
			nulls++
		}
	}
	if nulls != 3 {
		t.Fatalf("want 3 errors with id null, got %q", line)
	}
	p.send(req("2", "echo"))
	wantResult(t, p.recvFrame(), "2", `{"n":2}`)
	p.shutdown() // handles the notifications queued
	if got := slices.Sorted(slices.Values(rec.list())); !slices.Equal(got, []string{"echo", "echo", "note:n"}) {
		t.Fatalf("handler saw %v", got)
	}
}

func TestBatchOfResponsesResolvesCalls(t *testing.T) {
	p := newPeer(t, funcs{}, Options{})
	type res struct {
		v   wire.Raw
		err error
	}
	results := make(chan res, 3)
	for range 3 {
		go func() {
			v, err := p.conn.Call(context.Background(), "ask", nil)
			results <- res{v, err}
		}()
	}
	var ids []string
	for range 3 {
		ids = append(ids, string(p.recvFrame().ID))
	}
	// Answered in one batch, in reverse order, the last one with an error.
	p.send(batch(
		`{"jsonrpc":"2.0","id":`+ids[2]+`,"error":{"code":-32000,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":`+ids[1]+`,"result":"r`+ids[1]+`"}`,
		`{"jsonrpc":"2.0","id":`+ids[0]+`,"result":"r`+ids[0]+`"}`,
	))
	var got []string
	for range 3 {
		r := within(t, results, "a Call to return")
		var rpcErr *wire.RPCError
		switch {
		case errors.As(r.err, &rpcErr):
			got = append(got, fmt.Sprint(rpcErr.Code))
		case r.err != nil:
			t.Fatalf("Call: %v", r.err)
		default:
			got = append(got, string(r.v))
		}
	}
	slices.Sort(got)
	want := []string{"-32000", `"r` + ids[0] + `"`, `"r` + ids[1] + `"`}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Calls returned %v, want %v", got, want)
	}
}

func TestBatchRequestCancelled(t *testing.T) {
	var rec recorder
	g := newGate()
	p := newPeer(t, g.handler(&rec), Options{})
	// Cancelled by a later frame while it runs.
	p.send(batch(req("1", "wait"), req("2", "echo")))
	within(t, g.started, "the request to start")
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	got := p.recvBatch()
	wantIDs(t, got, "1", "2")
	wantError(t, got["1"], "1", wire.CodeCancelled)
	wantResult(t, got["2"], "2", `{"n":2}`)
	// Cancelled by an entry of its own batch.
	p.send(batch(req("5", "wait"), `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}`))
	got = p.recvBatch()
	wantIDs(t, got, "5")
	wantError(t, got["5"], "5", wire.CodeCancelled)
}

// awaitingGate is a gate whose "wait" requests mark the connection as
// awaiting input, so that the reader refuses requests past the bounds
// rather than pausing.
func awaitingGate(g *gate, rec *recorder, conn **Conn) funcs {
	h := g.handler(rec)
	wait := h.req
	h.req = func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
		if method == "wait" {
			defer (*conn).AwaitingInput()()
		}
		return wait(ctx, method, params)
	}
	return h
}

func TestBatchTooLargeIsRefusedWhole(t *testing.T) {
	var rec recorder
	p := newPeer(t, recordingEcho(&rec), Options{MaxInFlight: 2})
	p.send(batch(req("1", "echo"), notif("n"), `7`, req("2", "echo")))
	wantError(t, p.recvFrame(), "null", wire.CodeInvalidRequest)
	p.send(batch(req("3", "echo"), notif("n"), req("4", "echo")))
	wantIDs(t, p.recvBatch(), "3", "4")
	p.shutdown() // handles the notifications queued
	if got := rec.list(); len(got) != 3 || !slices.Contains(got, "note:n") {
		t.Fatalf("handler saw %v: the refused batch must not be handled", got)
	}
}

func TestBatchCountsEachRequestInFlight(t *testing.T) {
	var rec recorder
	g := newGate()
	var conn *Conn
	p := newPeer(t, awaitingGate(g, &rec, &conn), Options{MaxInFlight: 3})
	conn = p.conn
	p.send(batch(req("1", "wait"), req("2", "wait")))
	within(t, g.started, "the first request to start")
	within(t, g.started, "the second request to start")
	// Two in flight: one more fits, the next is refused.
	p.send(req("3", "echo"))
	wantResult(t, p.recvFrame(), "3", `{"n":3}`)
	p.send(batch(req("4", "echo"), notif("n"), req("5", "echo")))
	got := p.recvBatch()
	wantIDs(t, got, "4", "5")
	wantError(t, got["4"], "4", CodeOverloaded)
	wantError(t, got["5"], "5", CodeOverloaded)
	close(g.release)
	wantIDs(t, p.recvBatch(), "1", "2")
	p.send(req("6", "echo"))
	wantResult(t, p.recvFrame(), "6", `{"n":6}`)
	p.shutdown() // handles the notifications queued
	if got := rec.list(); !slices.Contains(got, "note:n") {
		t.Fatalf("the refused batch's notification was not handled: %v", got)
	}
}

func TestBatchAnswersCountAgainstMaxBuffered(t *testing.T) {
	big := `"` + strings.Repeat("x", 8<<10) + `"`
	var rec recorder
	g := newGate()
	var conn *Conn
	h := awaitingGate(g, &rec, &conn)
	wait := h.req
	h.req = func(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
		if method == "big" {
			return wire.Raw(big), nil
		}
		return wait(ctx, method, params)
	}
	p := newPeer(t, h, Options{MaxBuffered: 4 << 10})
	conn = p.conn
	p.send(batch(req("1", "wait"), req("2", "big")))
	within(t, g.started, "the blocking request to start")
	// Wait for the big answer to be collected: the batch then holds it.
	waitHeld(t, conn, func(_, held int) bool { return held > len(big) })
	p.send(req("3", "echo"))
	wantError(t, p.recvFrame(), "3", CodeOverloaded)
	close(g.release)
	got := p.recvBatch()
	wantResult(t, got["2"], "2", big)
	p.send(req("4", "echo"))
	wantResult(t, p.recvFrame(), "4", `{"n":4}`)
	waitHeld(t, conn, func(requests, held int) bool { return requests == 0 && held == 0 })
}

// waitHeld waits until ok holds of the connection's requests in flight and
// bytes held.
func waitHeld(t *testing.T, c *Conn, ok func(requests, held int) bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		c.mu.Lock()
		requests, held := c.requests, c.held
		c.mu.Unlock()
		if ok(requests, held) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight, %d bytes held", requests, held)
		}
		time.Sleep(time.Millisecond)
	}
}
