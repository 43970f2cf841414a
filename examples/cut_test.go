package examples

import (
	"io"
	"net"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// cuttingProxy forwards TCP connections to target and cuts the first
// `cuts` of them, both ways at once, once each has carried `after` bytes
// from the server: a network failure mid-conversation.
type cuttingProxy struct {
	l      net.Listener
	target string
	after  int64
	left   atomic.Int32 // cuts still to make
	made   atomic.Int32
	wg     sync.WaitGroup
}

func startCuttingProxy(t *testing.T, target string, cuts int32, after int64) *cuttingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttingProxy{l: l, target: target, after: after}
	p.left.Store(cuts)
	t.Cleanup(func() { l.Close(); p.wg.Wait() })
	p.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.forward(c) })
		}
	})
	return p
}

func (p *cuttingProxy) forward(c net.Conn) {
	defer c.Close()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(s, c); done <- struct{}{} }()
	go func() {
		defer func() { done <- struct{}{} }()
		var n int64
		after := p.after
		buf := make([]byte, 512)
		for {
			k, err := s.Read(buf)
			if k > 0 {
				if _, werr := c.Write(buf[:k]); werr != nil {
					return
				}
				n += int64(k)
				if n >= after && p.left.Add(-1) >= 0 {
					p.made.Add(1)
					return // both sides close: the cut
				}
				if n >= after {
					after = 1 << 62 // spared: no cuts left
				}
			}
			if err != nil {
				return
			}
		}
	}()
	<-done
}

// examples/client -connect survives its connections being cut mid-flow
// (the first three, each after it carried 600 bytes from the agent): the
// client resumes by itself and every step passes, on both profiles.
func TestRemoteClientSurvivesCutConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	agent, client := buildExample(t, "agent"), buildExample(t, "client")
	cwd := t.TempDir()
	for _, profile := range []string{"websocket", "streamable-http"} {
		t.Run(profile, func(t *testing.T) {
			u, err := url.Parse(listenAgent(t, agent, "-token", "t0k"))
			if err != nil {
				t.Fatal(err)
			}
			p := startCuttingProxy(t, u.Host, 3, 600)
			u.Host = p.l.Addr().String()
			cmd := exec.Command(client, "-echo", "-connect", u.String(), "-profile", profile, "-cwd", cwd, "-token", "t0k")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("client -connect: %v\n%s", err, out)
			}
			var steps []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				steps = append(steps, strings.SplitN(l, ":", 2)[0])
			}
			want := []string{"ok connect", "ok initialize", "ok session/new", "ok session/prompt", "ok session/cancel", "ok invalid params", "ok history", "ok session/load", "ok exit"}
			if !slices.Equal(steps, want) {
				t.Errorf("client printed:\n%s\nwant steps %q", out, want)
			}
			if n := p.made.Load(); n != 3 {
				t.Errorf("%d connections cut, want 3", n)
			}
		})
	}
}
