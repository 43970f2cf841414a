package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
)

// raceClient drives one agent connection over pipes, writing frames as the
// test gives them and sorting what the agent writes back by request id.
type raceClient struct {
	t       *testing.T
	in      io.WriteCloser
	mu      sync.Mutex
	waiting map[int]chan json.RawMessage
	// idle receives the stop reason type of each v2 idle state update.
	idle chan string
	// updates are the session/update updates read, as JSON.
	updates []json.RawMessage
}

func newRaceClient(t *testing.T, serve func(ctx context.Context, r io.Reader, w io.Writer) error) *raceClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(ctx, inR, outW)
		outW.Close()
	}()
	c := &raceClient{t: t, in: inW, waiting: map[int]chan json.RawMessage{}, idle: make(chan string, 16)}
	go c.read(outR)
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-done
	})
	return c
}

func (c *raceClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     *int
			Method string
			Params struct {
				Raw    json.RawMessage `json:"update"`
				Update struct {
					SessionUpdate, State string
					StopReason           json.RawMessage
				}
			}
			Result json.RawMessage
			Error  json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "session/update" {
			_ = json.Unmarshal(m.Params.Raw, &m.Params.Update)
			c.mu.Lock()
			c.updates = append(c.updates, m.Params.Raw)
			c.mu.Unlock()
		}
		if u := m.Params.Update; m.ID == nil && u.SessionUpdate == "state_update" && u.State == "idle" {
			var stop string
			_ = json.Unmarshal(u.StopReason, &stop)
			c.idle <- stop
		}
		if m.ID == nil || m.Method != "" {
			continue // notifications (the turn's updates)
		}
		reply := m.Result
		if reply == nil {
			reply = append(json.RawMessage(`{"error":`), append(m.Error, '}')...)
		}
		c.mu.Lock()
		ch := c.waiting[*m.ID]
		delete(c.waiting, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- reply
		}
	}
}

// expect registers interest in the answer to id before it is sent.
func (c *raceClient) expect(id int) <-chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	return ch
}

// write sends frames in one write, as a client writing a buffer at once does.
func (c *raceClient) write(frames ...string) {
	var b []byte
	for _, f := range frames {
		b = append(append(b, f...), '\n')
	}
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// call sends one request and waits for its answer.
func (c *raceClient) call(id int, method, params string) json.RawMessage {
	ch := c.expect(id)
	c.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no answer to %s", method)
		return nil
	}
}

func promptFrame(id int, session, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}}`, id, session, text)
}

func cancelFrame(session string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, session)
}

// await waits a bounded time for an answer.
func await(ch <-chan json.RawMessage) (json.RawMessage, bool) {
	select {
	case r := <-ch:
		return r, true
	case <-time.After(10 * time.Second):
		return nil, false
	}
}

// stopReason is a prompt answer's stopReason, or what came instead.
func stopReason(r json.RawMessage) string {
	var res struct{ StopReason string }
	if json.Unmarshal(r, &res) != nil || res.StopReason == "" {
		return string(r)
	}
	return res.StopReason
}

// spin keeps a CPU busy until stop is closed: the scheduling a loaded
// machine gives, under which a race between goroutines shows.
func spin(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		for i := 0; i < 1e5; i++ {
		}
	}
}

func besideCPULoad(t *testing.T) {
	stop := make(chan struct{})
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go spin(stop)
	}
	t.Cleanup(func() { close(stop) })
}

func serveV1Quiet(ctx context.Context, r io.Reader, w io.Writer) error {
	st := &store{sessions: map[acp.SessionID]*session{}}
	return serveConn(ctx, st, slog.New(slog.DiscardHandler), r, w)
}

// openSession initializes a connection at version v and opens a session.
func openSession(c *raceClient, v int) string {
	init, open := `{"protocolVersion":1}`, `{"cwd":"/","mcpServers":[]}`
	if v == 2 {
		init, open = `{"protocolVersion":2,"info":{"name":"race","version":"1"}}`, `{"cwd":"/"}`
	}
	c.call(1, "initialize", init)
	var s struct{ SessionID string }
	r := c.call(2, "session/new", open)
	if json.Unmarshal(r, &s) != nil || s.SessionID == "" {
		c.t.Fatalf("session/new: %s", r)
	}
	return s.SessionID
}

// A session/cancel written right after a prompt, in the same write, ends
// that prompt's turn; one written right before a prompt never ends it. The
// agent's handlers run on goroutines of their own in any order; the runtime
// applies the cancel in the order the two were read.
func TestCancelRaceWireOrderV1(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	besideCPULoad(t)
	c := newRaceClient(t, serveV1Quiet)
	session := openSession(c, 1)
	lost, misapplied := 0, 0
	id := 10
	for i := 0; i < rounds && lost+misapplied < 10; i++ {
		// The prompt waits until cancelled: a lost cancel leaves it running.
		id++
		ch := c.expect(id)
		c.write(promptFrame(id, session, "wait"), cancelFrame(session))
		select {
		case r := <-ch:
			if got := stopReason(r); got != "cancelled" {
				t.Fatalf("prompt then cancel: answered %s, want cancelled", got)
			}
		case <-time.After(2 * time.Second):
			lost++
			c.write(cancelFrame(session)) // end the turn to go on
			if _, ok := await(ch); !ok {
				t.Fatalf("a turn outlived two cancels (%d lost, %d misapplied so far)", lost, misapplied)
			}
		}
		// The cancel precedes the prompt: the prompt must run to its end.
		id++
		ch = c.expect(id)
		c.write(cancelFrame(session), promptFrame(id, session, "hello"))
		r, ok := await(ch)
		if !ok {
			t.Fatalf("prompt unanswered (%d lost, %d misapplied so far)", lost, misapplied)
		}
		if stopReason(r) != "end_turn" {
			misapplied++
		}
	}
	if lost > 0 || misapplied > 0 {
		t.Errorf("%d cancels lost, %d cancels applied to a later prompt (of %d rounds; stops at 10)", lost, misapplied, rounds)
	}
}

// A stale cancel on a fresh connection, written before the session's first
// prompt, never ends that prompt.
func TestCancelBeforeFirstPromptFreshAgents(t *testing.T) {
	agents := 30
	if testing.Short() {
		agents = 10
	}
	besideCPULoad(t)
	misapplied := 0
	for range agents {
		c := newRaceClient(t, serveV1Quiet)
		session := openSession(c, 1)
		ch := c.expect(3)
		c.write(cancelFrame(session), promptFrame(3, session, "hello"))
		r, ok := await(ch)
		if !ok {
			t.Fatal("prompt unanswered")
		}
		if stopReason(r) != "end_turn" {
			misapplied++
		}
	}
	if misapplied > 0 {
		t.Errorf("%d of %d fresh agents ended a prompt written after the cancel", misapplied, agents)
	}
}

// The same in v2, where session/prompt answers once the prompt is inserted
// and the turn's end is its idle state update: a cancel written right after
// a prompt ends that turn (idle, cancelled), one written right before a
// prompt never ends it (idle, end_turn).
func TestCancelRaceWireOrderV2(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	besideCPULoad(t)
	c := newRaceClient(t, serveV1Quiet) // the router serves v2 on initialize's version
	session := openSession(c, 2)
	idle := func() (string, bool) {
		select {
		case s := <-c.idle:
			return s, true
		case <-time.After(2 * time.Second):
			return "", false
		}
	}
	lost, misapplied := 0, 0
	id := 10
	for i := 0; i < rounds && lost+misapplied < 10; i++ {
		// Cancelled before it was inserted, the prompt is answered -32800;
		// once inserted, its turn ends idle with stopReason cancelled.
		id++
		ch := c.expect(id)
		c.write(promptFrame(id, session, "wait"), cancelFrame(session))
		r, ok := await(ch)
		if !ok {
			t.Fatal("prompt unanswered")
		}
		if !strings.Contains(string(r), "-32800") {
			got, ok := idle()
			if !ok {
				lost++
				c.write(cancelFrame(session))
				if got, ok = idle(); !ok {
					t.Fatalf("a turn outlived two cancels (%d lost, %d misapplied so far)", lost, misapplied)
				}
			}
			if got != "cancelled" {
				t.Fatalf("prompt then cancel: idle %q, want cancelled", got)
			}
		}
		id++
		ch = c.expect(id)
		c.write(cancelFrame(session), promptFrame(id, session, "hello"))
		if r, ok = await(ch); !ok {
			t.Fatal("prompt unanswered")
		}
		got, ok := idle()
		if !ok {
			t.Fatalf("no idle state after %s (%d lost, %d misapplied so far)", r, lost, misapplied)
		}
		if got != "end_turn" {
			misapplied++
		}
	}
	if lost > 0 || misapplied > 0 {
		t.Errorf("%d cancels lost, %d cancels applied to a later prompt (of %d rounds; stops at 10)", lost, misapplied, rounds)
	}
}
