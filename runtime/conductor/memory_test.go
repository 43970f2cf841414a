package conductor

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/acpgen/acpgen/internal/heapsample"
)

// burstUpdates is the size of the burst: 20,000 updates of 1 KiB, 20 MiB
// through three hops (agent to proxy b, b to a, a to the editor) in one
// turn.
const burstUpdates = 20_000

// heapGrowthBound is what the conductor may hold on to during the burst:
// well under the burst's size, so a queue of frames anywhere would exceed
// it.
const heapGrowthBound = 8 << 20

// The conductor's memory stays bounded while the agent streams a
// 20,000-update turn through two proxies: frames are written through,
// never queued.
func TestBurstMemoryBounded(t *testing.T) {
	in, editor := io.Pipe()
	out := &heapsample.Writer{At: burstUpdates - 1000, Want: burstUpdates + 3}
	base := heapsample.Live()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(context.Background(), Options{Stdin: in, Stdout: out, Stderr: io.Discard,
			Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b"), self(t, "agent")}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"burst 20000"}]}}`,
	} {
		if _, err := io.WriteString(editor, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-out.Done():
	case <-time.After(deadline):
		t.Fatalf("the editor got %d lines within %v, want %d", out.Lines(), deadline, burstUpdates+3)
	}
	editor.Close()
	if res := <-done; res == nil || res.Ended != nil {
		t.Fatalf("Run: %+v", res)
	}
	out.Check(t, base, heapGrowthBound)
}

// lineSignal is the editor's stdout for TestLargeFrameNotRetained: it keeps
// nothing of what it gets and signals each line on lines.
type lineSignal struct{ lines chan struct{} }

func (l *lineSignal) Write(p []byte) (int, error) {
	for range bytes.Count(p, []byte("\n")) {
		l.lines <- struct{}{}
	}
	return len(p), nil
}

// A frame far larger than the usual ones passes through both ways (the
// agent echoes it) and leaves nothing behind: once it has gone, and a small
// request after it has been answered (so each reader has moved on to the
// next frame), the conductor's live heap is back near its start, though the
// chain goes on.
func TestLargeFrameNotRetained(t *testing.T) {
	const size = 16 << 20
	in, editor := io.Pipe()
	out := &lineSignal{lines: make(chan struct{}, 2)}
	base := heapsample.Live()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(context.Background(), Options{Stdin: in, Stdout: out, Stderr: io.Discard,
			Components: [][]string{self(t, "agent")}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for _, size := range []int{size, 1} {
		sendEcho(t, editor, size)
		select {
		case <-out.lines:
		case <-time.After(deadline):
			t.Fatalf("no echo of %d bytes within %v", size, deadline)
		}
	}
	growth := int64(heapsample.Live()) - int64(base)
	t.Logf("live heap after a %d MiB frame each way: %d KiB above the start", size>>20, growth>>10)
	if growth > size/4 {
		t.Errorf("live heap grew by %d MiB after the frame had gone, want under %d MiB", growth>>20, size/4>>20)
	}
	editor.Close()
	if res := <-done; res == nil || res.Ended != nil {
		t.Fatalf("Run: %+v", res)
	}
}

// sendEcho writes an _test/echo request whose params hold about size
// bytes, keeping no reference to it.
func sendEcho(t *testing.T, w io.Writer, size int) {
	t.Helper()
	line := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"_test/echo","params":{"pad":"`), bytes.Repeat([]byte("x"), size)...)
	if _, err := w.Write(append(line, "\"}}\n"...)); err != nil {
		t.Fatal(err)
	}
}
