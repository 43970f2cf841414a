package acphttp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// A ServeFunc that fails (an inspected agent that died) ends its WebSocket
// with 1011 and the error's text; one that returns nil ends it with 1000.
func TestServeFuncFailureClosesWith1011(t *testing.T) {
	for _, c := range []struct {
		err    error
		status websocket.StatusCode
		reason string
	}{
		{errors.New("the agent exited: " + strings.Repeat("x", 200)), websocket.StatusInternalError, "the agent exited: xxx"},
		{nil, websocket.StatusNormalClosure, ""},
	} {
		s := NewServer(func(ctx context.Context, conn *Conn) error {
			if _, err := conn.ReadMessage(); err != nil { // the initialize
				return err
			}
			return c.err
		}, Options{Logger: quiet()})
		url := startServer(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		ws := rawWebSocket(t, ctx, url)
		if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)); err != nil {
			t.Fatal(err)
		}
		_, _, err := ws.Read(ctx)
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != c.status || !strings.HasPrefix(ce.Reason, c.reason) || len(ce.Reason) > 123 {
			t.Errorf("ServeFunc returned %v: the client read %v, want close %d", c.err, err, c.status)
		}
		cancel()
	}
}
