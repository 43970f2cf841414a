package conductor

import (
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
