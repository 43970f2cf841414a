package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// An answer the peer wrote just before closing its end reaches the Call,
// also when it was read behind a notification (delivered by the
// notification goroutine after the reader saw EOF): the connection's end
// does not lose it to ErrClosed.
func TestAnswerBeforeEOFReachesCall(t *testing.T) {
	const rounds = 300
	lost := 0
	for range rounds {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		c := NewConn(inR, outW, funcs{note: func(context.Context, string, wire.Raw) { time.Sleep(time.Millisecond) }}, Options{Logger: slog.New(slog.DiscardHandler)})
		go c.Run(context.Background())
		go func() {
			sc := bufio.NewScanner(outR)
			for n := 1; sc.Scan(); n++ {
				answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`+"\n", n, n)
				if n == 2 { // a notification first, then the answer, then EOF
					io.WriteString(inW, `{"jsonrpc":"2.0","method":"tick"}`+"\n"+answer)
					inW.Close()
					continue
				}
				io.WriteString(inW, answer)
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		if _, err := c.Call(ctx, "a", nil); err != nil {
			t.Fatalf("first call: %v", err)
		}
		if res, err := c.Call(ctx, "b", nil); err != nil || string(res) != `{"n":2}` {
			lost++
		}
		cancel()
		outR.Close()
		c.Close()
	}
	if lost > 0 {
		t.Errorf("%d of %d answers written before EOF were lost", lost, rounds)
	}
}
