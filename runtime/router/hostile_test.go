package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

const initV2 = `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":2}}`

// A frame over MaxFrame before initialize is answered -32600 with id null,
// like jsonrpc answers one after it, and the router goes on to route the
// initialize that follows; "\r\n" does not count towards the bound, and a
// long last frame is answered before the end is reported.
func TestLongFrameBeforeInitialize(t *testing.T) { forEachTransport(t, testLongFrameBeforeInitialize) }

func testLongFrameBeforeInitialize(t *testing.T, serve transport) {
	const limit = 100
	atLimit := `{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("x", limit-48) + `"}}`
	if len(atLimit) != limit {
		t.Fatalf("atLimit has %d bytes", len(atLimit))
	}
	long := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"_meta":"` + strings.Repeat("x", 200) + `"}}`
	rt, rec := newRouter(2)
	rt.MaxFrame = limit
	input := long + "\n" + atLimit + "\n" + long + "\r\n" + initV2 + "\n"
	replies, err := serve(t, rt, input)
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 2 {
		t.Fatalf("replies %v, want two", replies)
	}
	for _, r := range replies {
		if e, _ := r["error"].(map[string]any); r["id"] != nil || e == nil || e["code"] != -32600.0 {
			t.Errorf("reply %v, want -32600 with id null", r)
		}
	}
	if rec.version != 2 || !bytes.HasPrefix(rec.got[2], []byte(initV2)) {
		t.Errorf("routed to v%d with %q", rec.version, rec.got[2])
	}

	if replies, err := transports["lines"](t, rt, atLimit+"\r\n"+initV2); err != nil || len(replies) != 0 {
		t.Errorf("a line of %d bytes and \\r\\n: %v, replies %v", limit, err, replies)
	}

	rt, rec = newRouter(2)
	rt.MaxFrame = limit
	replies, err = serve(t, rt, long)
	if !errors.Is(err, ErrClosed) || len(replies) != 1 || rec.version != 0 {
		t.Errorf("a long last frame: %v, replies %v, routed to v%d", err, replies, rec.version)
	}
}

// endless yields n bytes of b, then tail: a line far longer than anything
// the router may hold, produced without being held either.
type endless struct {
	b    byte
	n    int
	tail string
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		n := copy(p, e.tail)
		e.tail = e.tail[n:]
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
	n := min(len(p), e.n)
	for i := range p[:n] {
		p[i] = e.b
	}
	e.n -= n
	return n, nil
}

// A 256 MiB line before initialize is skipped in chunks: what the router
// allocates meanwhile stays within a few times its default bound.
func TestLongLineNotHeldWhole(t *testing.T) {
	rt, rec := newRouter(2)
	var out bytes.Buffer
	in := &endless{b: '[', n: 256 << 20, tail: "\n" + initV2 + "\n"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := rt.ServeConn(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*DefaultMaxFrame {
		t.Errorf("allocated %d bytes reading a 256 MiB line, want at most %d", got, 8*DefaultMaxFrame)
	}
	if !strings.Contains(out.String(), `"code":-32600`) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("replies %q, want one -32600", out.String())
	}
	if rec.version != 2 {
		t.Error("initialize after the long line was not routed")
	}
}

// Hostile frames before initialize get the code and id jsonrpc gives the same
// frame after it: nesting deeper than wire.MaxDepth, JSON that is not an
// object, a frame over the bound, a method that is not a string. (A batch
// is the exception: jsonrpc answers its entries, the router refuses it
// whole; TestBeforeInitialize.)
func TestHostileFramesAnsweredAsAfterInitialize(t *testing.T) {
	const limit = 1 << 16
	deep := wire.MaxDepth + 1
	frames := map[string]string{
		"deep array":         strings.Repeat("[", deep) + strings.Repeat("]", deep),
		"deep unclosed":      strings.Repeat("[", limit),
		"deep in params":     `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":` + strings.Repeat("[", deep) + strings.Repeat("]", deep) + `}}`,
		"deep object":        strings.Repeat(`{"a":`, deep) + "1" + strings.Repeat("}", deep),
		"over the bound":     `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"_meta":"` + strings.Repeat("x", limit) + `"}}`,
		"number":             `3`,
		"string":             `"initialize"`,
		"null":               `null`,
		"empty batch":        `[]`,
		"not json":           `{not json`,
		"trailing garbage":   initV2 + ` x`,
		"two values":         initV2 + initV2,
		"unterminated array": `[1,2`,
		"method null":        `{"jsonrpc":"2.0","method":null}`,
		"method a number":    `{"jsonrpc":"2.0","method":1}`,
	}
	for name, frame := range frames {
		t.Run(name, func(t *testing.T) {
			want := afterInitialize(t, frame, limit)
			forEachTransport(t, func(t *testing.T, serve transport) {
				rt, rec := newRouter(2)
				rt.MaxFrame = limit
				replies, err := serve(t, rt, frame+"\n"+initV2+"\n")
				if err != nil {
					t.Fatal(err)
				}
				if len(replies) != 1 {
					t.Fatalf("replies %v, want one", replies)
				}
				if got := answer(replies[0]); got != want {
					t.Errorf("answered %v before initialize, jsonrpc %v after", got, want)
				}
				if rec.version != 2 {
					t.Error("the initialize that followed was not routed")
				}
			})
		})
	}
}

type code struct {
	id   any
	code any
}

func answer(r map[string]any) code {
	e, _ := r["error"].(map[string]any)
	return code{r["id"], e["code"]}
}

// afterInitialize returns jsonrpc's answer to frame on a connection past
// initialize, with the same frame bound.
func afterInitialize(t *testing.T, frame string, maxFrame int) code {
	t.Helper()
	var out bytes.Buffer
	c := jsonrpc.NewConn(strings.NewReader(frame+"\n"), &out, refuseAll{}, jsonrpc.Options{MaxFrame: maxFrame, Logger: slog.New(slog.DiscardHandler)})
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("jsonrpc answered %q: %v", out.String(), err)
	}
	return answer(r)
}

type refuseAll struct{}

func (refuseAll) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, errors.New("no")
}
func (refuseAll) HandleNotification(context.Context, string, wire.Raw) {}
