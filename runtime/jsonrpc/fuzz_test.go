package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

var fuzzFrames = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}`,
	`{"jsonrpc":"2.0","id":"a","method":"m","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","method":"n","params":null}`,
	`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"x":1}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no","data":[1]}}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`, `{"id":1.5,"method":"m","jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":{},"method":"m"}`, `{"jsonrpc":"2.0","id":1,"method":1}`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, `[]`, `"x"`, `null`, `{`, `not json`, "\xff",
	`{"jsonrpc":"2.0","id":9223372036854775808,"result":{}}`, `{"jsonrpc":"2.0","id":-1,"result":{}}`,
	`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"},1,[],{"jsonrpc":"2.0","id":2,"result":{}}]`,
	`[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}]`,
}

// FuzzParse: classifying any frame never panics; a rejected frame gets a
// -32700 or -32600 reply that is one valid JSON line, and an accepted one has
// the members its kind requires, each valid JSON.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzFrames {
		f.Add([]byte(s))
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, frame []byte) {
		var d wire.Decoder
		var m message
		if e := parseEntry(&d, frame, &m); e != nil {
			r := e.RPCError()
			if r.Code != wire.CodeParseError && r.Code != wire.CodeInvalidRequest {
				t.Fatalf("%q: reply code %d", frame, r.Code)
			}
			reply := appendError(nil, m.replyID, r, quiet)
			if !bytes.HasSuffix(reply, []byte("\n")) || bytes.Count(reply, []byte("\n")) != 1 || !json.Valid(reply) {
				t.Fatalf("%q: reply is not one JSON line: %q", frame, reply)
			}
			return
		}
		valid := func(what string, raw wire.Raw) {
			if raw != nil && !json.Valid(raw) {
				t.Fatalf("%q: %s %q is not valid JSON", frame, what, raw)
			}
		}
		valid("id", m.id)
		valid("params", m.params)
		valid("result", m.result)
		switch m.kind {
		case kindRequest:
			if m.id == nil {
				t.Fatalf("%q: request without id", frame)
			}
		case kindNotification:
			if m.id != nil {
				t.Fatalf("%q: notification with id", frame)
			}
		case kindResponse:
			if (m.result == nil) == (m.rpcErr == nil) {
				t.Fatalf("%q: response needs exactly one of result and error", frame)
			}
		default:
			t.Fatalf("%q: accepted with kind %d", frame, m.kind)
		}
	})
}

// FuzzConn feeds a stream of frames to a Conn whose handler echoes params:
// every line it writes must be one JSON-RPC response or a non-empty array of
// them (a batch's answer), it must never log at error level (panics, invalid
// result JSON) and it must stop at EOF.
func FuzzConn(f *testing.F) {
	for _, s := range fuzzFrames {
		f.Add([]byte(s))
	}
	f.Add([]byte(fuzzFrames[0] + "\n" + fuzzFrames[4] + "\r\n\n" + fuzzFrames[12]))
	f.Fuzz(func(t *testing.T, stream []byte) {
		var logs syncBuffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))
		var out syncBuffer
		c := NewConn(bytes.NewReader(stream), &out, funcs{req: echo}, Options{Logger: log, MaxFrame: 1 << 12})
		done := make(chan error, 1)
		go func() { done <- c.Run(context.Background()) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Run did not return at EOF on %q", stream)
		}
		if logs.String() != "" {
			t.Fatalf("errors logged on %q:\n%s", stream, logs.String())
		}
		s := bufio.NewScanner(bytes.NewReader([]byte(out.String())))
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			if !responses(s.Bytes()) {
				t.Fatalf("wrote %q for %q", s.Bytes(), stream)
			}
		}
	})
}

// responses reports a line holding one JSON-RPC response or a non-empty
// array of them.
func responses(line []byte) bool {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		return response1(line)
	}
	for _, it := range items {
		if !response1(it) {
			return false
		}
	}
	return len(items) > 0
}

func response1(b []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code *int64 `json:"code"`
		} `json:"error"`
	}
	err := json.Unmarshal(b, &m)
	return err == nil && m.JSONRPC == "2.0" && m.Method == nil && (m.Result == nil) != (m.Error == nil) && (m.Error == nil || m.Error.Code != nil)
}
