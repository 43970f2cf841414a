package router

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// FuzzInitialize feeds any input, as lines, to a router of v1 and v2 with a
// small frame bound, on a byte stream and on a message transport, and
// checks: no panic; both transports answer alike; each frame is judged on
// its own (the answers to the input are those to its frames one by one, up
// to the first frame routed); every answer is one JSON-RPC error response
// with a code the router uses; a frame over the bound is answered -32600
// with id null, one that is not JSON -32700, and valid JSON never -32700; a
// frame ignored is a JSON object; the router either ends with ErrClosed or
// hands over an initialize request (with protocolVersion the version it
// selected) and then the rest of the input unchanged.
func FuzzInitialize(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":3,"info":{"name":"n","version":"1"},"capabilities":{"auth":{"terminal":{}},"elicitation":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"_meta":{}}}` + "\nlater\n",
		`{"jsonrpc":"2.0","method":"session/cancel"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":0}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new"}` + "\n[]\n3\n{\n" + strings.Repeat("[", 300),
		`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":2}}`,
		`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":"1"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":65536}}`,
		"\xff\xfe\n\x00\n  \n" + strings.Repeat(" ", 300),
	} {
		f.Add([]byte(s))
	}
	const limit = 256
	f.Fuzz(func(t *testing.T, input []byte) {
		// A message transport keeps a "\r" that a byte stream drops with
		// the newline: lines holding one are left out.
		var lines []string
		for _, l := range strings.Split(string(input), "\n") {
			if !strings.ContainsRune(l, '\r') {
				lines = append(lines, l)
			}
		}
		in := strings.Join(lines, "\n")
		whole := fuzzServe(t, "lines", in, limit)
		if m := fuzzServe(t, "messages", in, limit); m.version != whole.version || !equalReplies(m.replies, whole.replies) {
			t.Fatalf("lines %+v\nmessages %+v", whole, m)
		}
		var replies []map[string]any
		for i, line := range lines {
			one := fuzzServe(t, "lines", line, limit)
			checkFrame(t, line, one, limit)
			replies = append(replies, one.replies...)
			if one.version != 0 {
				if whole.version != one.version || !equalReplies(whole.replies, replies) {
					t.Fatalf("routed to v%d after %v; frame by frame: v%d after %v", whole.version, whole.replies, one.version, replies)
				}
				first, after, _ := bytes.Cut(whole.handed, []byte("\n"))
				if want, _, _ := bytes.Cut(one.handed, []byte("\n")); !bytes.Equal(first, want) || string(after) != strings.Join(lines[i+1:], "\n") {
					t.Fatalf("handed %q, want %q then %q", whole.handed, want, strings.Join(lines[i+1:], "\n"))
				}
				return
			}
		}
		if whole.version != 0 || !equalReplies(whole.replies, replies) {
			t.Fatalf("routed to v%d after %v; frame by frame: %v", whole.version, whole.replies, replies)
		}
	})
}

// fuzzRun is what the router did with one input.
type fuzzRun struct {
	replies []map[string]any
	version int    // the version handed the connection, 0 if none
	handed  []byte // what the implementation read
}

func fuzzServe(t *testing.T, kind, input string, limit int) fuzzRun {
	t.Helper()
	rt, rec := newRouter(1, 2)
	rt.MaxFrame = limit
	replies, err := transports[kind](t, rt, input)
	if rec.version == 0 && !errors.Is(err, ErrClosed) || rec.version != 0 && err != nil {
		t.Fatalf("%s: routed to v%d, ended with %v", kind, rec.version, err)
	}
	return fuzzRun{replies, rec.version, rec.got[rec.version]}
}

func equalReplies(a, b []map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// checkFrame checks what the router did with one frame on its own.
func checkFrame(t *testing.T, line string, run fuzzRun, limit int) {
	t.Helper()
	frame := bytes.TrimSpace([]byte(line))
	long, valid := len(line) > limit, wire.Valid(frame)
	switch {
	case run.version != 0:
		if long || len(run.replies) != 0 {
			t.Fatalf("frame %q routed after %v", line, run.replies)
		}
		checkInitialize(t, run)
		return
	case len(run.replies) > 1:
		t.Fatalf("frame %q answered %v", line, run.replies)
	case len(run.replies) == 0:
		if long || len(frame) > 0 && (!valid || frame[0] != '{') {
			t.Fatalf("frame %q got no answer", line)
		}
		return
	}
	r := run.replies[0]
	e, _ := r["error"].(map[string]any)
	f, _ := e["code"].(float64)
	code := wire.ErrorCode(f)
	codes := map[wire.ErrorCode]bool{wire.CodeParseError: true, wire.CodeInvalidRequest: true, wire.CodeInvalidParams: true, codeUnsupported: true}
	switch {
	case r["jsonrpc"] != "2.0" || !codes[code] || len(r) != 3:
		t.Fatalf("frame %q answered %v", line, r)
	case long && (code != wire.CodeInvalidRequest || r["id"] != nil):
		t.Fatalf("a frame over the bound answered %v", r)
	case !long && valid == (code == wire.CodeParseError):
		t.Fatalf("frame %q (valid JSON: %v) answered %v", line, valid, r)
	}
}

// checkInitialize checks the first line the implementation read: an
// initialize request for its version.
func checkInitialize(t *testing.T, run fuzzRun) {
	t.Helper()
	first, _, _ := bytes.Cut(run.handed, []byte("\n"))
	var init struct {
		JSONRPC string
		Method  string
		ID      json.RawMessage
		Params  struct{ ProtocolVersion *int }
	}
	if err := json.Unmarshal(first, &init); err != nil || init.JSONRPC != "2.0" || init.Method != "initialize" || init.ID == nil ||
		init.Params.ProtocolVersion == nil || *init.Params.ProtocolVersion != run.version {
		t.Fatalf("v%d handed %q (%v)", run.version, first, err)
	}
}
