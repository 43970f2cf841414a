package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// A write that fails because the peer went away is an ordinary end,
// logged at Debug; another failure is an error.
func TestWriteFailureLogLevel(t *testing.T) {
	for _, tc := range []struct {
		err   error
		level string
	}{
		{syscall.EPIPE, "level=DEBUG"},
		{errors.New("disk on fire"), "level=ERROR"},
	} {
		logs := &syncBuffer{}
		c := NewConn(strings.NewReader(""), errWriter{tc.err}, funcs{}, Options{Logger: testLogger(logs)})
		if err := c.Notify(context.Background(), "a", nil); err == nil {
			t.Fatal("want write error")
		}
		line := logs.String()
		if !strings.Contains(line, "write failed") || !strings.Contains(line, tc.level) {
			t.Errorf("%v: logs %q, want %s", tc.err, line, tc.level)
		}
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// A peer sending thousands of bad frames gets each answered but leaves a
// bounded number of log lines.
func TestRejectedFrameWarningsRateLimited(t *testing.T) {
	p := newPeer(t, funcs{req: echo}, Options{})
	const n = 2000
	go func() {
		for range n {
			if _, err := p.in.Write([]byte("not json\n")); err != nil {
				return
			}
		}
	}()
	for range n {
		wantError(t, p.recvFrame(), "null", wire.CodeParseError)
	}
	if got := strings.Count(p.logs.String(), "rejected frame"); got < 1 || got > 3 {
		t.Fatalf("%d rejected-frame log lines for %d frames, want 1 to 3", got, n)
	}
}
