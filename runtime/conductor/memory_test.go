package conductor

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"
)

// burstUpdates is the size of the burst: 20,000 updates of 1 KiB, 20 MiB
// through three hops (agent to proxy b, b to a, a to the editor) in one
// turn.
const burstUpdates = 20_000

// heapGrowthBound is what the conductor may hold on to during the burst:
// well under the burst's size, so a queue of frames anywhere would exceed
// it.
const heapGrowthBound = 8 << 20

// sampler is the editor's stdout: it counts the lines it gets, measures
// the live heap once near the burst's end, and reports the last line.
type sampler struct {
	mu    sync.Mutex
	lines int
	at    int
	heap  uint64
	want  int
	done  chan struct{}
}

func (s *sampler) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.lines
	s.lines += bytes.Count(p, []byte("\n"))
	if before < s.at && s.lines >= s.at {
		s.heap = liveHeap()
	}
	if before < s.want && s.lines >= s.want {
		close(s.done)
	}
	return len(p), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The conductor's memory stays bounded while the agent streams a
// 20,000-update turn through two proxies: frames are written through,
// never queued.
func TestBurstMemoryBounded(t *testing.T) {
	in, editor := io.Pipe()
	out := &sampler{at: burstUpdates - 1000, want: burstUpdates + 3, done: make(chan struct{})}
	base := liveHeap()
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
	case <-out.done:
	case <-time.After(deadline):
		t.Fatalf("the editor got %d lines within %v, want %d", out.lines, deadline, out.want)
	}
	editor.Close()
	if res := <-done; res == nil || res.Ended != nil {
		t.Fatalf("Run: %+v", res)
	}
	growth := int64(out.heap) - int64(base)
	t.Logf("live heap near the burst's end: %d KiB above the start", growth>>10)
	if growth > heapGrowthBound {
		t.Errorf("live heap grew by %d MiB during the burst, bound %d MiB", growth>>20, heapGrowthBound>>20)
	}
}
