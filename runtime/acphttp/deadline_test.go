package acphttp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A POST body trickling in at 1 byte a second is answered 408 and its TCP
// connection closed after BodyTimeout; an event stream idle for longer than
// that stays open and delivers.
func TestSlowBodyClosed(t *testing.T) {
	const bodyTimeout = 300 * time.Millisecond
	url := startServer(t, NewServer(serveTest, Options{BodyTimeout: bodyTimeout, Logger: quiet()}))
	id := initConn(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderConnectionID, id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", resp, err)
	}
	defer resp.Body.Close()

	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/acp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","method":"note","params":{}}`
	fmt.Fprintf(conn, "POST /acp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAcp-Connection-Id: %s\r\nContent-Length: %d\r\n\r\n", host, id, len(body))
	closed := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(conn) // until the server closes
		closed <- string(b)
	}()
	sent := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for got := ""; got == ""; {
		select {
		case got = <-closed:
			if !strings.HasPrefix(got, "HTTP/1.1 408") {
				t.Errorf("slow body answered %q, want 408", got)
			}
		case <-tick.C:
			if sent == len(body) {
				t.Fatal("the whole body trickled in: no read deadline")
			}
			conn.Write([]byte{body[sent]})
			sent++
		}
	}

	// The stream, idle for several BodyTimeouts, still delivers.
	st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"x":1}}`, map[string]string{HeaderConnectionID: id})
	if st != http.StatusAccepted {
		t.Fatalf("echo: %d", st)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":7`) {
		t.Errorf("event stream after the slow body: %q %v", line, err)
	}
}

// A WebSocket message whose frames trickle in is cut off after BodyTimeout.
func TestSlowWebSocketMessageClosed(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{BodyTimeout: 300 * time.Millisecond, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	ws := rawWebSocket(t, ctx, url)
	ws.Write(ctx, websocket.MessageText, []byte(initBody))
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := ws.Writer(ctx, websocket.MessageText)
	if err != nil {
		t.Fatal(err)
	}
	readErr := make(chan error, 1)
	go func() { _, _, err := ws.Read(ctx); readErr <- err }()
	// Frames that are not a message's last are sent once the library's
	// write buffer fills: each write is larger than it.
	const frames, frame = 20, 8 << 10
	w.Write([]byte(`{"jsonrpc":"2.0","method":"note","params":{"pad":"`))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case err := <-readErr:
			if ctx.Err() != nil {
				t.Fatalf("socket still open: %v", err)
			}
			return // closed by the server
		case <-tick.C:
			if i == frames {
				t.Fatal("the whole message trickled in: no read deadline")
			}
			w.Write([]byte(strings.Repeat("z", frame)))
		}
	}
}
