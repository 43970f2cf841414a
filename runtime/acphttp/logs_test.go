package acphttp

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// logBuffer captures a Logger's lines, all levels.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// loud returns the WARN and ERROR lines.
func (l *logBuffer) loud() []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			out = append(out, line)
		}
	}
	return out
}

// 10,000 binary frames before initialize leave a bounded number of log
// lines, and the connection still serves initialize afterwards.
func TestNonTextFrameWarningsRateLimited(t *testing.T) {
	var logs logBuffer
	url := startServer(t, NewServer(serveTest, Options{Logger: logs.logger()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	const n = 10000
	for range n {
		if err := ws.Write(ctx, websocket.MessageBinary, []byte{0}); err != nil {
			t.Fatal(err)
		}
	}
	ws.Write(ctx, websocket.MessageText, []byte(initBody))
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"result"`) {
		t.Fatalf("initialize after the binary frames: %s, %v", b, err)
	}
	if got := strings.Count(logs.String(), "non-text WebSocket frame"); got < 1 || got > 3 {
		t.Fatalf("%d log lines for %d binary frames, want 1 to 3", got, n)
	}
}

// A client that closes its connection, or drops it (a WebSocket then ends
// when IdleTimeout passes without a resume), with a request in flight is
// an ordinary end: nothing at WARN or ERROR.
func TestOrdinaryDisconnectNotLogged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile Profile
		drop    func(c *Conn)
	}{
		{"websocket-close", WebSocket, func(c *Conn) { c.Close() }},
		{"websocket-drop", WebSocket, func(c *Conn) { c.l.(*wsClient).cut() }},
		{"streamable-http-delete", StreamableHTTP, func(c *Conn) { c.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs logBuffer
			a := newDrainAgent()
			serve := func(ctx context.Context, c *Conn) error {
				inner := &testAgent{}
				inner.conn = jsonrpc.NewConn(c, c, drainHandler{a, inner}, jsonrpc.Options{Logger: logs.logger()})
				return inner.conn.Run(ctx)
			}
			s := NewServer(serve, Options{Logger: logs.logger(), IdleTimeout: 200 * time.Millisecond})
			url := startServer(t, s)
			rpc, _, c := dialRPC(t, url, DialOptions{Profile: tc.profile, ResumeFor: -1})
			callAsync(rpc, "wait")
			receive(t, a.started, "handler start")
			tc.drop(c)
			receive(t, a.drained, "handler end")
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil { // waits for the ServeFunc
				t.Fatalf("Shutdown: %v", err)
			}
			if loud := logs.loud(); len(loud) > 0 {
				t.Fatalf("an ordinary disconnect logged:\n%s", strings.Join(loud, "\n"))
			}
		})
	}
}
