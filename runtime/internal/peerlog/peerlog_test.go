package peerlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
)

// A burst writes its first line, then one summary per interval with the
// count of the others; a quiet interval closes it.
func TestLimiterBurst(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var l Limiter
	for i := range 10000 {
		l.Log(log, slog.LevelWarn, "frame ignored", "i", i)
	}
	if got := strings.Count(buf.String(), "\n"); got != 1 || !strings.Contains(buf.String(), "i=0") {
		t.Fatalf("after the burst: %q", buf.String())
	}
	buf.Reset()
	l.flush() // the interval ends
	if s := buf.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, "suppressed=9999") || !strings.Contains(s, "level=WARN") {
		t.Fatalf("summary: %q", s)
	}
	buf.Reset()
	l.flush() // a quiet interval: nothing to say, the limiter reopens
	if buf.Len() != 0 {
		t.Fatalf("quiet interval wrote %q", buf.String())
	}
	l.Log(log, slog.LevelWarn, "frame ignored", "i", "next")
	if !strings.Contains(buf.String(), "i=next") {
		t.Fatalf("after a quiet interval: %q", buf.String())
	}
}

func TestGone(t *testing.T) {
	for _, err := range []error{io.EOF, fmt.Errorf("read: %w", io.ErrUnexpectedEOF), net.ErrClosed, syscall.EPIPE, syscall.ECONNRESET, io.ErrClosedPipe, context.Canceled} {
		if !Gone(err) {
			t.Errorf("Gone(%v) = false", err)
		}
	}
	for _, err := range []error{errors.New("boom"), context.DeadlineExceeded, syscall.EACCES} {
		if Gone(err) {
			t.Errorf("Gone(%v) = true", err)
		}
	}
}
