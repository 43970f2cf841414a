package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
)

// fill is an endless reader of one byte.
type fill byte

func (f fill) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// Frames over the router's bound before initialize (a 50 MB line, nesting
// 1e6 deep) are answered -32600 with id null and the agent goes on to serve
// initialize; the same frames after initialize get jsonrpc's answers.
func TestStdioHostileFramesBeforeInitialize(t *testing.T) {
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	nested := strings.Repeat(`{"a":`, 1e6) + "\n"
	long := func() io.Reader { return io.MultiReader(io.LimitReader(fill('['), 50e6), strings.NewReader("\n")) }
	in := io.MultiReader(long(), strings.NewReader(nested+init), long(), strings.NewReader(nested))
	var out bytes.Buffer
	st := &store{sessions: map[acp.SessionID]*session{}}
	if err := serveConn(context.Background(), st, slog.New(slog.DiscardHandler), in, &out); err != nil {
		t.Fatalf("serveConn: %v", err)
	}
	type reply struct {
		ID     any
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	var replies []reply
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply %.200q: %v", line, err)
		}
		replies = append(replies, r)
	}
	want := []int{-32600, -32600, 0, -32700, -32700}
	if len(replies) != len(want) {
		t.Fatalf("%d replies, want %d: %.500s", len(replies), len(want), out.String())
	}
	for i, r := range replies {
		switch {
		case want[i] == 0 && (r.ID != 1.0 || r.Result == nil):
			t.Errorf("reply %d: %+v, want initialize's result", i, r)
		case want[i] != 0 && (r.ID != nil || r.Error == nil || r.Error.Code != want[i]):
			t.Errorf("reply %d: %+v, want %d with id null", i, r, want[i])
		}
	}
}
