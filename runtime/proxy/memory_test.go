package proxy_test

import (
	"context"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/acpgen/acpgen/internal/heapsample"
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

// The proxy's memory stays bounded while an agent streams a 20,000-update
// turn: each side is read only as fast as the other is written.
func TestBurstMemoryBounded(t *testing.T) {
	path, env := helper(t, "burst:20000")
	cmd := exec.Command(path)
	cmd.Env = env
	in, editor := io.Pipe()
	out := &heapsample.Writer{StallAt: 10, Stall: stall, At: burstUpdates - 1000}
	base := heapsample.Live()
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
	if out.Lines() != burstUpdates+3 {
		t.Fatalf("the editor got %d lines, want %d", out.Lines(), burstUpdates+3)
	}
	out.Check(t, base, heapGrowthBound)
}
