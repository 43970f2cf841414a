package proxy_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/proxy"
)

// burstUpdates is the size of the burst: 20,000 updates of 1 KiB, about
// 21 MiB through the proxy in one turn.
const burstUpdates = 20_000

// heapGrowthBound is what the proxy may hold on to during the burst: a
// fifth of the burst, and above what its queues may hold (DefaultMaxQueued
// per direction) plus its read buffers, so keeping the frames would
// exceed it.
const heapGrowthBound = 4 << 20

// stall is how long the editor stops reading early in the burst: time
// for a proxy that read without bound to take in most of the burst. On a
// slow machine it may take in less, which can only let the test pass, not
// fail.
const stall = time.Second

// sampler is the editor's input: it counts the lines it gets, stops
// reading for a while early in the burst and measures the live heap at the
// end of that stall, and again near the end of the burst.
type sampler struct {
	mu      sync.Mutex
	lines   int
	stallAt int
	at      int
	heap    uint64
}

func (s *sampler) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.lines
	s.lines += bytes.Count(p, []byte("\n"))
	if before < s.stallAt && s.lines >= s.stallAt {
		time.Sleep(stall)
		s.heap = liveHeap()
	}
	if before < s.at && s.lines >= s.at {
		s.heap = max(s.heap, liveHeap())
	}
	return len(p), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The proxy's memory stays bounded while an agent streams a 20,000-update
// turn: each side is read only as fast as the other is written.
func TestBurstMemoryBounded(t *testing.T) {
	path, env := helper(t, "burst:20000")
	cmd := exec.Command(path)
	cmd.Env = env
	in, editor := io.Pipe()
	out := &sampler{stallAt: 10, at: burstUpdates - 1000}
	base := liveHeap()
	agentLink, err := proxy.Command(cmd)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- proxy.New(proxy.Options{}).Run(context.Background(), proxy.Stream(in, out), agentLink) }()
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
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if out.lines != burstUpdates+3 {
		t.Fatalf("the editor got %d lines, want %d", out.lines, burstUpdates+3)
	}
	growth := int64(out.heap) - int64(base)
	t.Logf("live heap after the stall or near the burst's end: %d KiB above the start", growth>>10)
	if growth > heapGrowthBound {
		t.Errorf("live heap grew by %d KiB during the burst, bound %d KiB", growth>>10, heapGrowthBound>>10)
	}
}
