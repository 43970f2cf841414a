package acphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/coder/websocket"
)

// signalFlooder is flooder telling done each time a flood has been sent
// whole (its answer included, as the handler returns).
type signalFlooder struct {
	flooder
	done chan struct{}
}

func (f *signalFlooder) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	res, err := f.flooder.HandleRequest(ctx, method, params)
	if method != "initialize" {
		defer func() { f.done <- struct{}{} }()
	}
	return res, err
}

// benchGet GETs session's event stream of connection id, from cursor
// when not empty, retrying at once while the server still holds the
// dropped stream (409), as a reconnecting client does; it returns the open
// response.
func benchGet(b *testing.B, url, id, session, cursor string) *http.Response {
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderConnectionID, id)
		req.Header.Set(HeaderSessionID, session)
		if cursor != "" {
			req.Header.Set("Last-Event-ID", cursor)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			return resp
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict || (cursor != "" && !strings.Contains(string(body), ResumeInUse)) {
			b.Fatalf("GET from %q: %d %s", cursor, resp.StatusCode, body)
		}
	}
}

// benchEvents reads the ids of an event stream's events.
type benchEvents struct{ sc *bufio.Scanner }

func newBenchEvents(resp *http.Response) *benchEvents {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &benchEvents{sc}
}

// next returns the id of the next event that has one.
func (e *benchEvents) next() (string, error) {
	for e.sc.Scan() {
		if id, ok := strings.CutPrefix(e.sc.Text(), "id: "); ok {
			return id, nil
		}
	}
	if err := e.sc.Err(); err != nil {
		return "", err
	}
	return "", io.ErrUnexpectedEOF
}

// benchPost POSTs body on connection id for session s and checks the
// status.
func benchPost(b *testing.B, url, id, body string, want int) http.Header {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set(HeaderConnectionID, id)
		req.Header.Set(HeaderSessionID, "s")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("POST %.40s: %d %s", body, resp.StatusCode, msg)
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Header
}

// BenchmarkResumeAfterCut measures what resuming a cut Streamable HTTP
// session stream adds to the transport's own reconnect, in one run. Each
// iteration cuts the stream after the client has read the first of 1,001
// session/update notifications, lets the agent send the other 1,000 and
// its answer into the cut (the server keeps them: DefaultRetainMessages),
// and cuts another session's stream with nothing missed; then it times two
// reconnects on loopback: the resume (GET with Last-Event-ID, until the
// 1,000 updates and the answer have been read) and the other session's
// plain reconnect (GET without one, until the stream is open). Both retry
// at once while the server still holds the dropped stream. It reports resume-ms,
// reconnect-ms and added-ms (their difference), per iteration.
func BenchmarkResumeAfterCut(b *testing.B) {
	const missed = 1000
	f := &signalFlooder{done: make(chan struct{}, 1)}
	s := NewServer(func(ctx context.Context, c *Conn) error {
		f.conn = jsonrpc.NewConn(c, c, f, jsonrpc.Options{Logger: quiet()})
		return f.conn.Run(ctx)
	}, Options{Logger: quiet()})
	url := startServer(b, s)
	id := benchPost(b, url, "", initBody, http.StatusOK).Get(HeaderConnectionID)
	flood := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"flood","params":{"sessionId":"s","n":%d}}`, missed+1)
	var resume, plain time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		cut := benchGet(b, url, id, "s", "")
		benchPost(b, url, id, flood, http.StatusAccepted)
		first, err := newBenchEvents(cut).next()
		if err != nil {
			b.Fatal(err)
		}
		cut.Body.Close() // the cut, after the first update
		other := benchGet(b, url, id, "p", "")
		other.Body.Close() // a cut with nothing missed
		<-f.done
		b.StartTimer()

		start := time.Now()
		resp := benchGet(b, url, id, "s", first)
		n := 0
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data: ") {
				if n++; n == missed+1 {
					if !strings.Contains(line, `"result"`) {
						b.Fatalf("message %d is not the answer: %.80s", n, line)
					}
					break
				}
			}
		}
		if n != missed+1 {
			b.Fatalf("the resume delivered %d messages, want %d: %v", n, missed+1, sc.Err())
		}
		resume += time.Since(start)
		resp.Body.Close()

		start = time.Now()
		resp = benchGet(b, url, id, "p", "")
		plain += time.Since(start)
		resp.Body.Close()
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(resume), "resume-ms")
	b.ReportMetric(ms(plain), "reconnect-ms")
	b.ReportMetric(ms(resume-plain), "added-ms")
}

// BenchmarkRetainedMemory measures what a Streamable HTTP stream's log
// holds per retained message, as the delivery path keeps it (the log's
// copy in its chunks, the bounds' record and the message's place in the
// log): one iteration fills a stream's log with
// DefaultRetainMessages agent_message_chunk updates of one word, the
// commonest message of a turn. It reports the heap the full log holds per
// message (B/retained) beside the message's own length (msg-B), from which
// DefaultRetainMessages is chosen (docs/transports-and-security.md).
func BenchmarkRetainedMemory(b *testing.B) {
	s := NewServer(serveTest, Options{Logger: quiet(), MaxRetained: 1 << 30})
	msg := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_5f0c8b3e9a1d4c7b","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" word"}}}}`)
	slot := findCursorSlot(msg)
	const n = DefaultRetainMessages
	var held, length uint64
	var ms runtime.MemStats
	for b.Loop() {
		box := newOutbox()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		now := time.Now()
		for i := uint64(1); i <= n; i++ {
			e := entry{n: i, msg: withCursor(msg, slot, box.tag, i), at: now}
			box.sent = i
			box.retain(s, "", []entry{e})
			length = uint64(len(e.msg))
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held += ms.HeapAlloc - before
		runtime.KeepAlive(box)
		box.dropLog(s)
	}
	b.ReportMetric(float64(held)/float64(b.N)/n, "B/retained")
	b.ReportMetric(float64(length), "msg-B")
}

// BenchmarkResumeAfterCutWebSocket is BenchmarkResumeAfterCut on a
// WebSocket connection. Each iteration cuts the socket (no close frame)
// after the client has read the first of 1,001 session/update
// notifications, lets the agent send the other 1,000 and its answer while
// the socket is gone (the connection holds them), and times two reconnects
// on loopback: the resume (a new socket, stream/resume from the first
// update's cursor, until stream/resumed, the 1,000 updates and the answer
// have been read) and a plain reconnect (a new socket, until the upgrade
// has completed). The resumed socket carries the next iteration. It
// reports resume-ms, reconnect-ms and added-ms (their difference), per
// iteration.
func BenchmarkResumeAfterCutWebSocket(b *testing.B) {
	const missed = 1000
	f := &signalFlooder{done: make(chan struct{}, 1)}
	s := NewServer(func(ctx context.Context, c *Conn) error {
		f.conn = jsonrpc.NewConn(c, c, f, jsonrpc.Options{Logger: quiet()})
		return f.conn.Run(ctx)
	}, Options{Logger: quiet()})
	url := "ws" + strings.TrimPrefix(startServer(b, s), "http")
	ctx := context.Background()
	dial := func() (*websocket.Conn, http.Header) {
		ws, resp, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		ws.SetReadLimit(1 << 20)
		return ws, resp.Header
	}
	read := func(ws *websocket.Conn) string {
		_, m, err := ws.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return string(m)
	}
	ws, h := dial()
	id := h.Get(HeaderConnectionID)
	if err := ws.Write(ctx, websocket.MessageText, []byte(initBody)); err != nil {
		b.Fatal(err)
	}
	if m := read(ws); !strings.Contains(m, `"result"`) {
		b.Fatalf("initialize: %s", m)
	}
	var socket uint64
	var resume, plain time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		flood := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"flood","params":{"sessionId":"s","n":%d}}`, i+2, missed+1)
		if err := ws.Write(ctx, websocket.MessageText, []byte(flood)); err != nil {
			b.Fatal(err)
		}
		var m struct {
			Params struct {
				Meta map[string]string `json:"_meta"`
			} `json:"params"`
		}
		first := read(ws)
		cursor := ""
		if json.Unmarshal([]byte(first), &m) == nil {
			cursor = m.Params.Meta[MetaCursor]
		}
		if cursor == "" {
			b.Fatalf("the first update carries no cursor: %s", first)
		}
		ws.CloseNow() // the cut, after the first update
		<-f.done
		b.StartTimer()

		start := time.Now()
		ws, _ = dial()
		req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"stream/resume","params":{"connectionId":%q,"cursor":%q,"socket":%d}}`, id, cursor, socket)
		if err := ws.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
			b.Fatal(err)
		}
		var ack struct {
			Method string        `json:"method"`
			Params resumedParams `json:"params"`
		}
		if a := read(ws); json.Unmarshal([]byte(a), &ack) != nil || ack.Method != methodStreamResumed {
			b.Fatalf("answer to stream/resume: %s", a)
		}
		socket = ack.Params.Socket
		for n := 1; n <= missed; n++ {
			if u := read(ws); !strings.Contains(u, `"session/update"`) {
				b.Fatalf("message %d of the resume is not an update: %.80s", n, u)
			}
		}
		if a := read(ws); !strings.Contains(a, `"result"`) {
			b.Fatalf("message %d of the resume is not the answer: %.80s", missed+1, a)
		}
		resume += time.Since(start)

		start = time.Now()
		other, _ := dial()
		plain += time.Since(start)
		b.StopTimer()
		other.CloseNow()
		b.StartTimer()
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(resume), "resume-ms")
	b.ReportMetric(ms(plain), "reconnect-ms")
	b.ReportMetric(ms(resume-plain), "added-ms")
}
