package peer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"testing"

	peeracp "github.com/coder/acp-go-sdk"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// pipes is the benchmark's side of a connection over in-memory pipes: it
// writes request frames to in and reads response frames from out.
type pipes struct {
	in  *io.PipeWriter
	out *bufio.Reader
	end func()
}

// newPipes connects serve, which reads frames from r and writes to w, to the
// benchmark through two io.Pipes.
func newPipes(serve func(r io.Reader, w io.Writer)) *pipes {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go serve(inR, outW)
	return &pipes{in: inW, out: bufio.NewReader(outR), end: func() {
		inW.Close()
		outR.Close()
	}}
}

// roundTrip writes one frame and reads one response line.
func (p *pipes) roundTrip(b *testing.B, frame []byte) []byte {
	if _, err := p.in.Write(frame); err != nil {
		b.Fatal(err)
	}
	line, err := p.out.ReadSlice('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// BenchmarkPingPong measures one request frame in and its response frame
// out, the next request sent only after the response arrived, so each
// iteration is the connection's latency rather than its throughput.
// floor is a goroutine reading a line and writing a fixed line back: the
// cost of the pipes and the goroutine hand-offs alone. cpu-ns/op is the
// process's CPU time (every goroutine, the GC, idle threads spinning) per
// request: on a machine shared with other work it scatters less than the
// wall time.
func BenchmarkPingPong(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	initialize := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%d}}`+"\n", acp.CurrentProtocolVersion)
	impls := []struct {
		name  string
		serve func(r io.Reader, w io.Writer)
	}{
		{"acpgen", func(r io.Reader, w io.Writer) {
			opts := acp.ConnOptions{RPC: jsonrpc.Options{Logger: quiet}}
			acp.NewAgentConn(agent{}, r, w, opts).Run(context.Background())
		}},
		{"peer", func(r io.Reader, w io.Writer) {
			c := peeracp.NewAgentSideConnection(peerAgent{}, w, r)
			c.SetLogger(quiet)
			<-c.Done()
		}},
		{"floor", func(r io.Reader, w io.Writer) {
			br := bufio.NewReader(r)
			answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_01HZX"}}` + "\n")
			for {
				if _, err := br.ReadSlice('\n'); err != nil {
					return
				}
				if _, err := w.Write(answer); err != nil {
					return
				}
			}
		}},
	}
	for _, m := range messages {
		if m.result == nil {
			continue // a notification has no response to wait for
		}
		frame := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`+"\n", m.method, m.params)
		for _, impl := range impls {
			b.Run(m.name+"/"+impl.name, func(b *testing.B) {
				p := newPipes(impl.serve)
				defer p.end()
				p.roundTrip(b, initialize)
				if line := p.roundTrip(b, frame); !bytes.Contains(line, []byte(`"result"`)) {
					b.Fatalf("%s answered %s", impl.name, line)
				}
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					p.roundTrip(b, frame)
				}
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// peerAgent answers what the benchmarks send the peer; the rest are
// method-not-found.
type peerAgent struct{}

func (peerAgent) Initialize(context.Context, peeracp.InitializeRequest) (peeracp.InitializeResponse, error) {
	return peeracp.InitializeResponse{ProtocolVersion: peeracp.ProtocolVersionNumber}, nil
}

func (peerAgent) NewSession(context.Context, peeracp.NewSessionRequest) (peeracp.NewSessionResponse, error) {
	return peeracp.NewSessionResponse{SessionId: "sess_01HZX"}, nil
}

func (peerAgent) Prompt(context.Context, peeracp.PromptRequest) (peeracp.PromptResponse, error) {
	return peeracp.PromptResponse{StopReason: peeracp.StopReasonEndTurn}, nil
}

func (peerAgent) Cancel(context.Context, peeracp.CancelNotification) error { return nil }

func (peerAgent) Authenticate(context.Context, peeracp.AuthenticateRequest) (peeracp.AuthenticateResponse, error) {
	return peeracp.AuthenticateResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodAuthenticate)
}

func (peerAgent) Logout(context.Context, peeracp.LogoutRequest) (peeracp.LogoutResponse, error) {
	return peeracp.LogoutResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodLogout)
}

func (peerAgent) CloseSession(context.Context, peeracp.CloseSessionRequest) (peeracp.CloseSessionResponse, error) {
	return peeracp.CloseSessionResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodSessionClose)
}

func (peerAgent) ListSessions(context.Context, peeracp.ListSessionsRequest) (peeracp.ListSessionsResponse, error) {
	return peeracp.ListSessionsResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodSessionList)
}

func (peerAgent) ResumeSession(context.Context, peeracp.ResumeSessionRequest) (peeracp.ResumeSessionResponse, error) {
	return peeracp.ResumeSessionResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodSessionResume)
}

func (peerAgent) SetSessionConfigOption(context.Context, peeracp.SetSessionConfigOptionRequest) (peeracp.SetSessionConfigOptionResponse, error) {
	return peeracp.SetSessionConfigOptionResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodSessionSetConfigOption)
}

func (peerAgent) SetSessionMode(context.Context, peeracp.SetSessionModeRequest) (peeracp.SetSessionModeResponse, error) {
	return peeracp.SetSessionModeResponse{}, peeracp.NewMethodNotFound(peeracp.AgentMethodSessionSetMode)
}

// cpuTime is the CPU time (user and system) the process has used, in ns.
func cpuTime() int64 {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return u.Utime.Nano() + u.Stime.Nano()
}
