package inspect

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
)

// burstUpdates is the size of the burst: 20,000 updates of 1 KiB, 20 MiB
// through the inspector in one turn.
const burstUpdates = 20_000

// heapGrowthBound is what the inspector may hold on to in the burst: well
// under the burst's size, so keeping the frames (or their findings, or the
// trace) would exceed it.
const heapGrowthBound = 8 << 20

// sampler is the editor's stdout: it counts the lines it gets and, once,
// near the end of the burst, measures the live heap.
type sampler struct {
	mu    sync.Mutex
	lines int
	at    int
	heap  uint64
}

func (s *sampler) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.lines
	s.lines += bytes.Count(p, []byte("\n"))
	if before < s.at && s.lines >= s.at {
		s.heap = liveHeap()
	}
	return len(p), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The inspector's memory stays bounded while an agent streams a
// 20,000-update turn: frames are judged and written through, never kept.
func TestBurstMemoryBounded(t *testing.T) {
	p := testProfiles(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, editor := io.Pipe()
	out := &sampler{at: burstUpdates - 1000}
	base := liveHeap()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(context.Background(), Options{Argv: []string{self, "-helper=burst:20000", "--"}, Profiles: p,
			Stdin: in, Stdout: out, Stderr: io.Discard, Trace: io.Discard})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`,
	} {
		if _, err := io.WriteString(editor, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	editor.Close()
	res := <-done
	if res == nil {
		t.FailNow()
	}
	if out.lines != burstUpdates+3 {
		t.Fatalf("the editor got %d lines, want %d", out.lines, burstUpdates+3)
	}
	if n := len(res.Findings); n != 0 {
		t.Errorf("findings on a valid burst: %v", res.Findings)
	}
	growth := int64(out.heap) - int64(base)
	t.Logf("live heap near the burst's end: %d KiB above the start", growth>>10)
	if growth > heapGrowthBound {
		t.Errorf("live heap grew by %d MiB during the burst, bound %d MiB", growth>>20, heapGrowthBound>>20)
	}
}
