package peer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// stream is one in-memory end of a connection: Read hands the connection the
// frames the benchmark queued, Write counts the frames it answers with. No
// pipes, so the measured time is the runtime's and the generated code's.
type stream struct {
	mu    sync.Mutex
	cond  sync.Cond
	in    []byte // queued inbound bytes; in[off:] not yet read
	off   int
	eof   bool
	done  int // response frames written plus notifications handled
	want  int // the waiter wakes only once done reaches want
	first []byte
}

func newStream() *stream {
	s := &stream{}
	s.cond.L = &s.mu
	return s
}

func (s *stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.off == len(s.in) && !s.eof {
		s.cond.Wait()
	}
	if s.off == len(s.in) {
		return 0, io.EOF
	}
	n := copy(p, s.in[s.off:])
	s.off += n
	if s.off == len(s.in) {
		s.in, s.off = s.in[:0], 0
	}
	return n, nil
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	if s.first == nil {
		s.first = append([]byte(nil), p...)
	}
	s.done += bytes.Count(p, []byte{'\n'})
	wake := s.done >= s.want
	s.mu.Unlock()
	if wake {
		s.cond.Broadcast()
	}
	return len(p), nil
}

// ack counts a handled notification (they have no response frame).
func (s *stream) ack() {
	s.mu.Lock()
	s.done++
	wake := s.done >= s.want
	s.mu.Unlock()
	if wake {
		s.cond.Broadcast()
	}
}

func (s *stream) push(frames ...[]byte) {
	s.mu.Lock()
	for _, f := range frames {
		s.in = append(s.in, f...)
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

func (s *stream) close() {
	s.mu.Lock()
	s.eof = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

// wait blocks until done >= n and returns done.
func (s *stream) wait(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want = n
	for s.done < n {
		s.cond.Wait()
	}
	return s.done
}

type agent struct {
	acp.UnimplementedAgentHandler
}

func (agent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	// additionalDirectories is gated on this capability.
	return &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{
		SessionCapabilities: &acp.SessionCapabilities{AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{}},
	}}, nil
}

func (agent) SessionNew(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "sess_01HZX"}, nil
}

func (agent) SessionPrompt(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error) {
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type client struct {
	acp.UnimplementedClientHandler
	s *stream
}

func (c client) SessionUpdate(context.Context, *acp.SessionNotification) { c.s.ack() }

// window is how many frames may be unanswered at once; the benchmark refills
// when half are answered, so the connection always has work queued.
const window = 64

// benchDispatch measures whole frames in, typed handler called, response
// frames out, through the generated AgentConn (requests) or ClientConn
// (notifications) on the jsonrpc runtime. With procs 1 the figure is CPU
// cost per frame, comparable with the single-goroutine decode benchmarks;
// with procs 2 the runtime's goroutines spread over both cores.
func benchDispatch(b *testing.B, m message, procs int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	opts := acp.ConnOptions{RPC: jsonrpc.Options{Logger: quiet}, OnDrop: func(method string, err error) { b.Errorf("%s dropped: %v", method, err) }}
	s := newStream()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	notification := m.result == nil
	var frames [][]byte // distinct ids among the frames in flight
	if notification {
		c := acp.NewClientConn(client{s: s}, s, s, opts)
		go func() { runDone <- c.Run(ctx) }()
		initDone := make(chan error, 1)
		go func() {
			_, err := c.Initialize(ctx, &acp.InitializeRequest{})
			initDone <- err
		}()
		s.wait(1) // the initialize request is written
		s.push(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":%d}}`+"\n", acp.CurrentProtocolVersion))
		if err := <-initDone; err != nil {
			b.Fatal(err)
		}
		frames = [][]byte{fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", m.method, m.params)}
	} else {
		a := acp.NewAgentConn(agent{}, s, s, opts)
		go func() { runDone <- a.Run(ctx) }()
		s.push(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%d}}`+"\n", acp.CurrentProtocolVersion))
		s.wait(1)
		for i := 1; i <= 2*window; i++ {
			frames = append(frames, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", i, m.method, m.params))
		}
		// One request answered outside the timing, to check it is a result.
		s.mu.Lock()
		s.first = nil
		s.mu.Unlock()
		s.push(frames[0])
		s.wait(2)
		if !bytes.Contains(s.first, []byte(`"result"`)) {
			b.Fatalf("dispatch answered %s", s.first)
		}
	}
	base := s.wait(0)
	b.ReportAllocs()
	b.ResetTimer()
	sent, done := 0, 0
	for done < b.N {
		for sent < b.N && sent-done < window {
			s.push(frames[sent%len(frames)])
			sent++
		}
		// Wait for half the window (or the rest) to be answered.
		done = s.wait(base+min(sent, done+window/2)) - base
	}
	b.StopTimer()
	s.close()
	if err := <-runDone; err != nil {
		b.Fatal(err)
	}
}
