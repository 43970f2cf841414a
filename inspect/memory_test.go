package inspect

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/acpgen/acpgen/internal/heapsample"
)

// burstUpdates is the size of the burst: 20,000 updates of 1 KiB, 20 MiB
// through the inspector in one turn.
const burstUpdates = 20_000

// heapGrowthBound is what the inspector may hold on to in the burst: well
// under the burst's size, so keeping the frames (or their findings, or the
// trace) would exceed it.
const heapGrowthBound = 8 << 20

// The inspector's memory stays bounded while an agent streams a
// 20,000-update turn: frames are judged and written through, never kept.
func TestBurstMemoryBounded(t *testing.T) {
	p := testProfiles(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, editor := io.Pipe()
	out := &heapsample.Writer{At: burstUpdates - 1000}
	base := heapsample.Live()
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
	if out.Lines() != burstUpdates+3 {
		t.Fatalf("the editor got %d lines, want %d", out.Lines(), burstUpdates+3)
	}
	if n := len(res.Findings); n != 0 {
		t.Errorf("findings on a valid burst: %v", res.Findings)
	}
	out.Check(t, base, heapGrowthBound)
}
