package conductor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"testing"
	"time"
)

// deadline bounds a wait for the chain: generous, as the machine may be
// loaded; a passing test never waits for it.
const deadline = 2 * time.Minute

// editor is the test's side of a chain: it writes lines to the
// conductor's stdin and reads its stdout.
type editor struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan msg
	done   chan runOutcome
	stderr *syncBuffer
	// session is the id session/new answered, as JSON.
	session string
}

type runOutcome struct {
	res *Result
	err error
}

// self is the test binary's command line for component mode.
func self(t *testing.T, mode string) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-component=" + mode}
}

// startChain runs a chain of components with the test as the editor.
func startChain(t *testing.T, o Options) *editor {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &editor{t: t, in: inW, lines: make(chan msg, 16), done: make(chan runOutcome, 1), stderr: &syncBuffer{}}
	o.Stdin, o.Stdout, o.Stderr = inR, outW, e.stderr
	go func() {
		res, err := Run(context.Background(), o)
		outW.Close()
		e.done <- runOutcome{res, err}
	}()
	go e.read(outR)
	t.Cleanup(func() { inW.Close() })
	return e
}

func (e *editor) read(r io.Reader) {
	defer close(e.lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m msg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			m = msg{Method: "!not JSON: " + sc.Text()}
		}
		e.lines <- m
	}
}

func (e *editor) send(line string) {
	e.t.Helper()
	if _, err := io.WriteString(e.in, line+"\n"); err != nil {
		e.t.Fatal(err)
	}
}

// next is the next message the editor gets.
func (e *editor) next() msg {
	e.t.Helper()
	select {
	case m, ok := <-e.lines:
		if !ok {
			e.t.Fatalf("the chain's stdout ended; stderr:\n%s", e.stderr)
		}
		return m
	case <-time.After(deadline):
		e.t.Fatalf("no message within %v; stderr:\n%s", deadline, e.stderr)
	}
	return msg{}
}

// response reads up to the response with id, failing on anything else.
func (e *editor) response(id string) msg {
	e.t.Helper()
	m := e.next()
	if m.Method != "" || string(m.ID) != id {
		e.t.Fatalf("got %+v, want the response to %s", m, id)
	}
	return m
}

// end closes the editor's side and returns how the chain ended.
func (e *editor) end() runOutcome {
	e.in.Close()
	return e.wait()
}

func (e *editor) wait() runOutcome {
	e.t.Helper()
	go func() {
		for range e.lines {
		}
	}()
	select {
	case o := <-e.done:
		return o
	case <-time.After(deadline):
		e.t.Fatalf("the chain did not end within %v; stderr:\n%s", deadline, e.stderr)
	}
	return runOutcome{}
}

// initialize runs initialize and session/new, and returns the initialize
// result; the session's id is e.session.
func (e *editor) initialize() json.RawMessage {
	e.t.Helper()
	e.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	init := e.response("0")
	if init.Error != nil {
		e.t.Fatalf("initialize: %s", init.Error)
	}
	e.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	r := e.response("1")
	var s struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &s) != nil || s.SessionID == nil {
		e.t.Fatalf("session/new: %s %s", r.Result, r.Error)
	}
	e.session = string(s.SessionID)
	return init.Result
}

// rpcError is an error response's error member.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func errorOf(t *testing.T, m msg) rpcError {
	t.Helper()
	var e rpcError
	if m.Error == nil || json.Unmarshal(m.Error, &e) != nil {
		t.Fatalf("want an error response, got %+v", m)
	}
	return e
}

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
