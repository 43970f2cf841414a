package inspect

import (
	"bytes"
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

// hugeFrame is the length of the frame TestHugeFrameMemoryBounded relays:
// 60 MiB, under the 64 MiB the inspector judges.
const hugeFrame = 60 << 20

// hugeLine is a frame of hugeFrame bytes and its newline. "control" is
// bytes 0x01: not JSON, and six bytes each in a JSON string. "update" is
// a valid agent_message_chunk whose text is U+0001, escaped (\u0001).
func hugeLine(kind string) []byte {
	var head, tail string
	fill := "\x01"
	if kind == "update" {
		head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`
		tail = `"}}}}`
		fill = `\u0001`
	}
	n := (hugeFrame - len(head) - len(tail)) / len(fill)
	b := make([]byte, 0, hugeFrame+1)
	b = append(b, head...)
	b = append(b, bytes.Repeat([]byte(fill), n)...)
	b = append(b, tail...)
	return append(b, '\n')
}

// hugeGrowthBound is what the inspector may hold while it judges and
// traces one 60 MiB frame: the frame itself (the relay holds a line up to
// 64 MiB to judge it) and its trace record (its frame at most 1 MiB
// escaped), with room to spare for the session's own state; a copy of the
// frame, or its whole record, would exceed it.
const hugeGrowthBound = maxJudged + 12<<20

// One 60 MiB frame, relayed with a trace: the live heap while its trace
// record is written stays under hugeGrowthBound above the start, and the
// record holds the frame's start, as much as fits in traceRawMax bytes
// escaped, and its length.
func TestHugeFrameMemoryBounded(t *testing.T) {
	p := testProfiles(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	session := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`,
	}
	// What a session loads once (schemas, compiled validators) is loaded
	// before the heap's start is measured.
	warm := NewChecker(p)
	for _, line := range session {
		warm.Observe(ToAgent, []byte(line))
	}
	for _, kind := range []string{"control", "update"} {
		t.Run(kind, func(t *testing.T) {
			// The huge frame is the trace's sixth record: initialize,
			// session/new and session/prompt, each with its response, come
			// before it, the prompt's response after.
			trace := &recordingWriter{Writer: heapsample.Writer{At: 6}}
			in, editor := io.Pipe()
			heapsample.Live() // a second collection empties sync.Pools
			base := heapsample.Live()
			done := make(chan *Result, 1)
			go func() {
				res, err := Run(context.Background(), Options{Argv: []string{self, "-helper=huge:" + kind, "--"}, Profiles: p,
					Stdin: in, Stdout: io.Discard, Stderr: io.Discard, Trace: trace})
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			for _, line := range session {
				if _, err := io.WriteString(editor, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			editor.Close()
			if <-done == nil {
				t.FailNow()
			}
			trace.Check(t, base, hugeGrowthBound)
			recs, err := ReadTrace(bytes.NewReader(trace.kept), "trace")
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 7 {
				t.Fatalf("%d records, want 7", len(recs))
			}
			huge, line := recs[5], hugeLine(kind)
			got := huge.Bytes()
			if huge.RawSize != len(line)-1 || len(got) < traceRawMax/6 || !bytes.HasPrefix(line, got) {
				t.Errorf("the huge frame's record: rawSize %d and %d bytes (the frame's start: %v), want rawSize %d and at least its first %d bytes",
					huge.RawSize, len(got), bytes.HasPrefix(line, got), len(line)-1, traceRawMax/6)
			}
			if len(trace.kept) > 2*traceRawMax {
				t.Errorf("the trace is %d KiB, want one record's frame under %d KiB", len(trace.kept)>>10, traceRawMax>>10)
			}
		})
	}
}

// recordingWriter is a heapsample.Writer that keeps what is written, up to
// 16 MiB.
type recordingWriter struct {
	heapsample.Writer
	kept []byte
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p) // samples the heap before kept grows
	if room := 16<<20 - len(w.kept); room > 0 {
		w.kept = append(w.kept, p[:min(len(p), room)]...)
	}
	return n, err
}
