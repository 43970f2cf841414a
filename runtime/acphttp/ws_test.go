package acphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// rawWS is a hand-driven client WebSocket: it writes masked frames and reads
// the server's frames one at a time, so a test decides what it answers.
type rawWS struct {
	conn net.Conn
	br   *bufio.Reader
	id   string // Acp-Connection-Id
}

// dialRawWS upgrades a TCP connection to url's /acp, writing early (whole
// frames) in the same write as the upgrade request.
func dialRawWS(t *testing.T, url string, early []byte) *rawWS {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/acp"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(guard))
	req := "GET /acp HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := conn.Write(append([]byte(req), early...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade answered %d", resp.StatusCode)
	}
	return &rawWS{conn: conn, br: br, id: resp.Header.Get(HeaderConnectionID)}
}

// clientFrame is one final client frame, masked (with a zero key: the
// masked bytes are the payload's).
func clientFrame(opcode byte, payload []byte) []byte {
	b := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n < 1<<16:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	b = append(b, 0, 0, 0, 0)
	return append(b, payload...)
}

// readFrame reads one server frame (unmasked, never fragmented here).
func (w *rawWS) readFrame() (opcode byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(w.br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var l [2]byte
		_, err = io.ReadFull(w.br, l[:])
		n = uint64(binary.BigEndian.Uint16(l[:]))
	case 127:
		var l [8]byte
		_, err = io.ReadFull(w.br, l[:])
		n = binary.BigEndian.Uint64(l[:])
	}
	if err != nil {
		return 0, nil, err
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(w.br, payload)
	return h[0] & 0x0f, payload, err
}

const (
	opText = 0x1
	opPing = 0x9
	opPong = 0xa
)

// A client may send its first message in the same TCP write as its upgrade
// request, so that net/http has read it with the request: the server's
// WebSocket, which reads through a smaller buffer of its own, still gets it,
// and messages on either side of that buffer's size arrive whole.
func TestWebSocketFirstMessageWithUpgrade(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	first := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	w := dialRawWS(t, url, clientFrame(opText, first))
	op, got, err := w.readFrame()
	if err != nil || op != opText || !bytes.Contains(got, []byte(`"id":1`)) || !bytes.Contains(got, []byte(`"protocolVersion":1`)) {
		t.Fatalf("answer to initialize: opcode %d, %q, %v", op, got, err)
	}
	for i, n := range []int{wsReadBuffer - 64, wsReadBuffer, wsReadBuffer + 1, 3 * wsReadBuffer, 256 << 10} {
		text := strings.Repeat("x", n)
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"text":%q}}`, i+2, text)
		if _, err := w.conn.Write(clientFrame(opText, msg)); err != nil {
			t.Fatal(err)
		}
		op, got, err := w.readFrame()
		if err != nil || op != opText || !bytes.Contains(got, fmt.Appendf(nil, `"result":{"text":%q}`, text)) {
			t.Fatalf("echo of %d bytes: opcode %d, %d bytes, %v", n, op, len(got), err)
		}
	}
}

// The server pings every PingInterval for as long as the connection lives:
// a client that answers keeps its connection; one that stops answering
// after some pings is closed, while the answering one is still served. The
// connections are not resumable (RetainMessages -1), so a dropped socket
// ends its connection; a resumable one waits for its client
// (TestWebSocketNotResumedEnds).
func TestPingClosesPeerThatStopsAnswering(t *testing.T) {
	// A ping goes unanswered after an interval: long enough for a loaded
	// machine to answer in time.
	const every = 300 * time.Millisecond
	var mu sync.Mutex
	ended := map[string]chan struct{}{}
	endOf := func(id string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if ended[id] == nil {
			ended[id] = make(chan struct{})
		}
		return ended[id]
	}
	s := NewServer(func(ctx context.Context, c *Conn) error {
		defer close(endOf(c.ID()))
		return serveTest(ctx, c)
	}, Options{Logger: quiet(), PingInterval: every, RetainMessages: -1})
	url := startServer(t, s)
	rpc, _, kept := dialRPC(t, url, DialOptions{Profile: WebSocket})

	w := dialRawWS(t, url, clientFrame(opText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)))
	var answered atomic.Int32
	const answers = 3
	go func() {
		for {
			op, payload, err := w.readFrame()
			if err != nil {
				return
			}
			if op == opPing && answered.Load() < answers {
				w.conn.Write(clientFrame(opPong, payload))
				answered.Add(1)
			}
		}
	}()
	select {
	case <-endOf(w.id):
	case <-time.After(guard):
		t.Fatalf("the connection that stopped answering pings is still open (%d answered)", answered.Load())
	}
	if n := answered.Load(); n != answers {
		t.Fatalf("closed after %d answered pings, want %d: pinging stopped or failed early", n, answers)
	}
	select {
	case <-endOf(kept.ID()):
		t.Fatal("the connection that answers pings was closed")
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if _, err := rpc.Call(ctx, "echo", wire.Raw(`{}`)); err != nil {
		t.Fatalf("the connection that answers pings: %v", err)
	}
}

// A WebSocket client that reads none of the agent's output holds the
// agent's writes for at most StallTimeout: then the socket is closed, the
// output is held for a resume up to MaxBuffered, and once that has waited
// StallTimeout for room the connection closes and the write fails.
func TestWebSocketStalledWriteCloses(t *testing.T) {
	var written atomic.Int64
	ended := make(chan error, 1)
	serve := func(ctx context.Context, c *Conn) error {
		var rpc *jsonrpc.Conn
		h := &notifier{written: &written, ended: ended, conn: &rpc}
		rpc = jsonrpc.NewConn(c, c, h, jsonrpc.Options{Logger: quiet()})
		return rpc.Run(ctx)
	}
	// MaxBuffered small: the held output fills it at once (64 MiB of it
	// takes most of guard under the race detector).
	url := startServer(t, NewServer(serve, Options{StallTimeout: 300 * time.Millisecond, MaxBuffered: 1 << 20, Logger: quiet()}))
	early := append(clientFrame(opText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)),
		clientFrame(opText, []byte(`{"jsonrpc":"2.0","method":"flood"}`))...)
	dialRawWS(t, url, early) // and never read
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the agent's writes never failed")
		}
	case <-time.After(guard):
		t.Fatalf("the agent's writes to a client that reads nothing never failed (%d written)", written.Load())
	}
}
