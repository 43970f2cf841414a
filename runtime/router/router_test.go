package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// recorder is an implementation that records what it was handed.
type recorder struct {
	got     map[int][]byte
	version int
}

// serve records a byte stream as read, and a message transport's messages
// each followed by a newline, so that both compare alike.
func (rec *recorder) serve(v int) Serve {
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		rec.version = v
		mr, ok := r.(jsonrpc.MessageReader)
		if !ok {
			b, err := io.ReadAll(r)
			rec.got[v] = b
			return err
		}
		for {
			m, err := mr.ReadMessage()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			rec.got[v] = append(append(rec.got[v], m...), '\n')
		}
	}
}

func newRouter(versions ...int) (*Router, *recorder) {
	rec := &recorder{got: map[int][]byte{}}
	rt := New()
	for _, v := range versions {
		rt.Handle(v, rec.serve(v))
	}
	return rt, rec
}

// transport runs a router on input, lines separated by newlines, and
// returns the router's replies and error.
type transport func(t *testing.T, rt *Router, input string) ([]map[string]any, error)

// transports are the two kinds of connection: a byte stream of lines, and a
// transport framing messages itself, which gets each line as a message.
var transports = map[string]transport{"lines": serve, "messages": serveMessages}

func serve(t *testing.T, rt *Router, input string) (replies []map[string]any, err error) {
	t.Helper()
	var out bytes.Buffer
	err = rt.ServeConn(context.Background(), strings.NewReader(input), &out)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		replies = append(replies, decode(t, line))
	}
	return replies, err
}

func decode(t *testing.T, msg string) map[string]any {
	t.Helper()
	var m map[string]any
	if e := json.Unmarshal([]byte(msg), &m); e != nil {
		t.Fatalf("reply %q is not JSON: %v", msg, e)
	}
	return m
}

func serveMessages(t *testing.T, rt *Router, input string) (replies []map[string]any, err error) {
	t.Helper()
	c := &msgConn{in: strings.SplitAfter(input, "\n")}
	if strings.HasSuffix(input, "\n") {
		c.in = c.in[:len(c.in)-1]
	}
	for i := range c.in {
		c.in[i] = strings.TrimSuffix(c.in[i], "\n")
	}
	err = rt.ServeConn(context.Background(), c, c)
	for _, m := range c.out {
		if strings.ContainsAny(m, "\r\n") {
			t.Errorf("reply message %q has a line terminator", m)
		}
		replies = append(replies, decode(t, m))
	}
	return replies, err
}

// msgConn is a transport that frames messages itself: it has no byte
// stream, so a router that read or wrote bytes on it would fail.
type msgConn struct {
	in     []string
	eofMsg bool // the last message comes with io.EOF
	out    []string
	closed bool
}

func (c *msgConn) ReadMessage() ([]byte, error) {
	if len(c.in) == 0 {
		return nil, io.EOF
	}
	m := c.in[0]
	c.in = c.in[1:]
	if c.eofMsg && len(c.in) == 0 {
		return []byte(m), io.EOF
	}
	return []byte(m), nil
}

func (c *msgConn) WriteMessage(m []byte) error {
	c.out = append(c.out, string(m))
	return nil
}

var errBytes = errors.New("msgConn: no byte stream")

func (c *msgConn) Read([]byte) (int, error)  { return 0, errBytes }
func (c *msgConn) Write([]byte) (int, error) { return 0, errBytes }
func (c *msgConn) Close() error              { c.closed = true; return nil }

func TestSelectsHighestAtOrBelowRequested(t *testing.T) {
	forEachTransport(t, testSelectsHighestAtOrBelowRequested)
}

func testSelectsHighestAtOrBelowRequested(t *testing.T, serve transport) {
	for _, c := range []struct {
		versions  []int
		requested string
		want      int
		rewritten bool
	}{
		{[]int{1, 2}, "1", 1, false},
		{[]int{1, 2}, "2", 2, false},
		{[]int{1, 2}, "7", 2, true},
		{[]int{2}, "3", 2, true},
		{[]int{1}, "1", 1, false},
		{[]int{1}, "0", 1, true}, // v1-only: every request is served as v1
	} {
		rt, rec := newRouter(c.versions...)
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":` + c.requested + `,"info":{"name":"c","version":"1"}}}`
		if _, err := serve(t, rt, init+"\n"+`{"later":true}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if rec.version != c.want {
			t.Errorf("%v, requested %s: routed to v%d, want v%d", c.versions, c.requested, rec.version, c.want)
			continue
		}
		first, rest, _ := strings.Cut(string(rec.got[c.want]), "\n")
		if rest != `{"later":true}`+"\n" {
			t.Errorf("later bytes handed over as %q", rest)
		}
		if !c.rewritten {
			if first != init {
				t.Errorf("initialize handed over as %s, want it unchanged", first)
			}
			continue
		}
		var m struct {
			ID     int
			Params map[string]json.RawMessage
		}
		if err := json.Unmarshal([]byte(first), &m); err != nil || m.ID != 1 || string(m.Params["protocolVersion"]) != itoa(c.want) {
			t.Errorf("rewritten initialize %s: want protocolVersion %d, id 1 (%v)", first, c.want, err)
		}
	}
}

// forEachTransport runs test on both kinds of connection.
func forEachTransport(t *testing.T, test func(*testing.T, transport)) {
	for name, run := range transports {
		t.Run(name, func(t *testing.T) { test(t, run) })
	}
}

func itoa(v int) string { b, _ := json.Marshal(v); return string(b) }

func TestV2InitializeDowngradedToV1(t *testing.T) {
	forEachTransport(t, testV2InitializeDowngradedToV1)
}

func testV2InitializeDowngradedToV1(t *testing.T, serve transport) {
	rt, rec := newRouter(1)
	init := `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":2,` +
		`"info":{"name":"zed","version":"1.0"},` +
		`"capabilities":{"auth":{"terminal":{}},"elicitation":{"form":{}},"session":{"x":1},"_meta":{"k":1}},"_meta":{"trace":"t"}}}`
	if _, err := serve(t, rt, init+"\n"); err != nil {
		t.Fatal(err)
	}
	var m struct{ Params map[string]any }
	if err := json.Unmarshal(bytes.TrimSpace(rec.got[1]), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"protocolVersion": 1.0,
		"clientInfo":      map[string]any{"name": "zed", "version": "1.0"},
		"clientCapabilities": map[string]any{
			"auth":        map[string]any{"terminal": true},
			"elicitation": map[string]any{"form": map[string]any{}},
			"_meta":       map[string]any{"k": 1.0},
		},
		"_meta": map[string]any{"trace": "t"},
	}
	if !reflect.DeepEqual(m.Params, want) {
		t.Errorf("v1 params %v\nwant %v", m.Params, want)
	}

	// A newer version than v2 without a valid info reaches v2 with info
	// substituted: the client wrote for a protocol that may not require it.
	rt, rec = newRouter(1, 2)
	if _, err := serve(t, rt, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":3,"info":{"name":5}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rec.got[2], []byte(`"info":{"name":"unknown","version":"unknown"}`)) {
		t.Errorf("v2 params %s", rec.got[2])
	}

	// info without a version is dropped, as v1's clientInfo would refuse it.
	rt, rec = newRouter(1)
	if _, err := serve(t, rt, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":3,"info":{"name":"x"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(rec.got[1], []byte("clientInfo")) || !bytes.Contains(rec.got[1], []byte(`"terminal":false`)) {
		t.Errorf("v1 params %s", rec.got[1])
	}
}

// Before initialize: notifications and responses are ignored, every other
// message gets an error, and the connection stays open for a valid
// initialize.
func TestBeforeInitialize(t *testing.T) { forEachTransport(t, testBeforeInitialize) }

func testBeforeInitialize(t *testing.T, serve transport) {
	rt, rec := newRouter(2)
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		``,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}`,
		`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`,
		`{not json`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":[]}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":70000}}`,
		`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","id":7}`,
		`{"id":10,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"1.0","id":11,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","id":{},"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":2}}`,
	}, "\n") + "\n"
	replies, err := serve(t, rt, input)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		id   any
		code float64
	}
	want := []answer{{1.0, -32600}, {nil, -32600}, {nil, -32700}, {3.0, -32602}, {4.0, -32602}, {5.0, -32602}, {6.0, -32022}, {nil, -32600}, {nil, -32600}, {nil, -32600}, {nil, -32600}, {nil, -32600}, {nil, -32600}}
	if len(replies) != len(want) {
		t.Fatalf("%d replies, want %d: %v", len(replies), len(want), replies)
	}
	for i, r := range replies {
		e, _ := r["error"].(map[string]any)
		if r["jsonrpc"] != "2.0" || r["id"] != want[i].id || e == nil || e["code"] != want[i].code {
			t.Errorf("reply %d = %v, want id %v code %v", i, r, want[i].id, want[i].code)
		}
	}
	data := replies[6]["error"].(map[string]any)["data"]
	if !reflect.DeepEqual(data, map[string]any{"requested": 1.0, "supported": []any{2.0}}) {
		t.Errorf("unsupported version data = %v", data)
	}
	if rec.version != 2 || !bytes.HasPrefix(rec.got[2], []byte(`{"jsonrpc":"2.0","id":8,`)) {
		t.Errorf("routed to v%d with %q", rec.version, rec.got[2])
	}
}

func TestEndsWithoutInitialize(t *testing.T) { forEachTransport(t, testEndsWithoutInitialize) }

func testEndsWithoutInitialize(t *testing.T, serve transport) {
	rt, rec := newRouter(1, 2)
	if _, err := serve(t, rt, `{"jsonrpc":"2.0","method":"x"}`); !errors.Is(err, ErrClosed) || rec.version != 0 {
		t.Errorf("err %v, routed to v%d", err, rec.version)
	}
	// The last frame may lack its newline.
	if _, err := serve(t, rt, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`); err != nil || rec.version != 1 {
		t.Errorf("unterminated initialize: %v, v%d", err, rec.version)
	}
}

func TestHandleRejectsBadConfiguration(t *testing.T) {
	for _, v := range []int{0, -1, 70000} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handle(%d) did not panic", v)
				}
			}()
			New().Handle(v, func(context.Context, io.Reader, io.Writer) error { return nil })
		}()
	}
	if err := New().ServeConn(context.Background(), strings.NewReader(""), io.Discard); err == nil {
		t.Error("a router without versions served")
	}
}

// A transport that frames messages itself: the implementation gets a
// MessageReader that returns the initialize message, then each later
// message unchanged (even one with newlines inside), and the transport's
// writer; closing the reader closes the transport.
func TestMessagesHandedOver(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}}`
	later := []string{"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"session/cancel\"\n}", ` {"later":true} `, ``}
	c := &msgConn{in: append([]string{`{"jsonrpc":"2.0","method":"x"}`, init}, later...)}
	var got []string
	var readErr error
	rt := New().Handle(1, mustNotServe(t)).Handle(2, func(ctx context.Context, r io.Reader, w io.Writer) error {
		if w != io.Writer(c) {
			t.Errorf("writer %T, want the transport", w)
		}
		if _, err := r.Read(make([]byte, 8)); err == nil {
			t.Error("Read of a message transport succeeded")
		}
		mr := r.(jsonrpc.MessageReader)
		for {
			m, err := mr.ReadMessage()
			if err != nil {
				readErr = err
				break
			}
			got = append(got, string(m))
		}
		return r.(io.Closer).Close()
	})
	if err := rt.ServeConn(context.Background(), c, c); err != nil {
		t.Fatal(err)
	}
	if want := append([]string{init}, later...); !reflect.DeepEqual(got, want) {
		t.Errorf("handed over %q\nwant %q", got, want)
	}
	if !errors.Is(readErr, io.EOF) || !c.closed || len(c.out) != 0 {
		t.Errorf("end %v, closed %v, replies %q", readErr, c.closed, c.out)
	}

	// An initialize that comes with the end of the input is handed over,
	// then the end.
	c = &msgConn{in: []string{init}, eofMsg: true}
	got = nil
	if err := rt.ServeConn(context.Background(), c, c); err != nil || !reflect.DeepEqual(got, []string{init}) || !errors.Is(readErr, io.EOF) {
		t.Errorf("initialize with EOF: %v, handed over %q, then %v", err, got, readErr)
	}
}

// mustNotServe is an implementation that must not be selected.
func mustNotServe(t *testing.T) Serve {
	return func(context.Context, io.Reader, io.Writer) error {
		t.Error("routed to v1")
		return nil
	}
}

// The reader and the writer are told apart independently, as jsonrpc.NewConn
// does: messages in and lines out, or lines in and messages out.
func TestMixedFraming(t *testing.T) {
	bad := `{"jsonrpc":"2.0","id":1,"method":"session/new"}`
	rt, _ := newRouter(2)
	var lines bytes.Buffer
	in := &msgConn{in: []string{bad}}
	if err := rt.ServeConn(context.Background(), in, &lines); !errors.Is(err, ErrClosed) || !strings.HasSuffix(lines.String(), "}\n") || strings.Count(lines.String(), "\n") != 1 {
		t.Errorf("messages in: %v, wrote %q, want one line", err, lines.String())
	}
	out := &msgConn{}
	if err := rt.ServeConn(context.Background(), strings.NewReader(bad+"\n"+bad+"\n"), out); !errors.Is(err, ErrClosed) || len(out.out) != 2 || strings.Contains(out.out[0], "\n") {
		t.Errorf("lines in: %v, wrote messages %q, want two", err, out.out)
	}
}
