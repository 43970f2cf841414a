package acphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/coder/websocket"
)

// cut drops the client's socket without a close frame, as a network
// failure does.
func (c *wsClient) cut() {
	c.mu.Lock()
	s := c.sock
	c.mu.Unlock()
	if s != nil {
		s.c.CloseNow()
	}
}

// The client's TCP connection is cut twice mid-turn while the server
// lives: the WebSocket client resumes by itself and the application
// receives every update exactly once, in order, then the answer; the
// connection then serves the next request. Updates for a session and
// for none.
func TestWebSocketResumesCutConnection(t *testing.T) {
	const n, half = 1500, 50
	for _, session := range []string{"s1", ""} {
		t.Run("session="+session, func(t *testing.T) {
			gate := make(chan struct{})
			serve := func(ctx context.Context, c *Conn) error {
				a := &gatedAgent{gate: gate}
				a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
				return a.conn.Run(ctx)
			}
			// What the server wrote into the socket buffers before the
			// cut is lost: the default retention must cover it.
			url := startServer(t, NewServer(serve, Options{Logger: quiet()}))
			cut := &cutter{}
			rpc, tc, c := dialRPC(t, url, DialOptions{Profile: WebSocket, HTTPClient: &http.Client{Transport: &http.Transport{DialContext: cut.dial}}})
			if _, ok := c.l.(*wsClient); !ok || c.l.(*wsClient).tag == "" {
				t.Fatal("the server offered no resumption")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*guard)
			defer cancel()
			var res wire.Raw
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				res, err = rpc.Call(ctx, "turn", fmt.Appendf(nil, `{"sessionId":%q,"n":%d,"half":%d}`, session, n, half))
			}()
			outcome := func() error { return err }
			awaitNotes(t, tc, half, done, outcome)
			cut.cut() // mid-turn, the agent waiting at its gate
			close(gate)
			awaitNotes(t, tc, half+100, done, outcome)
			cut.cut() // mid-turn again, the agent streaming
			<-done
			if err != nil || string(res) != fmt.Sprintf(`{"n":%d}`, n) {
				t.Fatalf("turn: %s %v", res, err)
			}
			notes := tc.taken()
			if len(notes) != n {
				t.Errorf("%d updates, want %d exactly once", len(notes), n)
			}
			for i, note := range notes {
				note, _ = cutCursor(note)
				if want := fmt.Sprintf(`session/update {"sessionId":%q,"i":%d}`, session, i); note != want {
					t.Fatalf("update %d: %s, want %s", i, note, want)
				}
			}
			if res, err := rpc.Call(ctx, "echo", wire.Raw(`{"x":1}`)); err != nil || string(res) != `{"x":1}` {
				t.Fatalf("echo after the cuts: %s %v", res, err)
			}
		})
	}
}

// Requests sent while the socket is cut, before the client has noticed,
// are sent again on the resumed socket if the server did not take them:
// each is answered once.
func TestWebSocketResendsWhatTheServerMissed(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	rpc, _, c := dialRPC(t, url, DialOptions{Profile: WebSocket})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	for round := range 5 {
		c.l.(*wsClient).cut()
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for i := range 10 {
			wg.Go(func() {
				want := fmt.Sprintf(`{"round":%d,"i":%d}`, round, i)
				res, err := rpc.Call(ctx, "echo", wire.Raw(want))
				if err == nil && string(res) != want {
					err = fmt.Errorf("answered %s", res)
				}
				if err != nil {
					errs <- fmt.Errorf("echo %s: %w", want, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

// dialWSHeaders opens a WebSocket with header and returns it with the upgrade's
// response headers.
func dialWSHeaders(t *testing.T, ctx context.Context, url string, header http.Header) (*websocket.Conn, http.Header) {
	t.Helper()
	ws, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws, resp.Header
}

// wsSession is a raw, initialized WebSocket connection: its id and the
// tag of its cursors.
type wsSession struct {
	ws      *websocket.Conn
	id, tag string
}

func openWS(t *testing.T, ctx context.Context, url string, header http.Header) wsSession {
	t.Helper()
	ws, h := dialWSHeaders(t, ctx, url, header)
	s := wsSession{ws: ws, id: h.Get(HeaderConnectionID), tag: strings.TrimSuffix(h.Get(HeaderStreamCursor), ".0")}
	if s.id == "" || s.tag == "" || s.tag == h.Get(HeaderStreamCursor) {
		t.Fatalf("upgrade: connection %q, cursor %q", s.id, h.Get(HeaderStreamCursor))
	}
	ws.Write(ctx, websocket.MessageText, []byte(initBody))
	if _, b, err := ws.Read(ctx); err != nil || !strings.Contains(string(b), `"result"`) {
		t.Fatalf("initialize: %s %v", b, err)
	}
	return s
}

// resumeWS opens a socket that asks to resume id from cursor with socket
// number socket, and returns it with the first frame the server answered.
func resumeWS(t *testing.T, ctx context.Context, url string, header http.Header, id, cursor string, socket int) (*websocket.Conn, string) {
	t.Helper()
	ws, _ := dialWSHeaders(t, ctx, url, header)
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","method":"stream/resume","params":{"connectionId":%q,"cursor":%q,"socket":%d}}`, id, cursor, socket)
	if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("answer to stream/resume: %v", err)
	}
	return ws, string(b)
}

func refusedWith(answer, reason string) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Reason string `json:"reason"`
		} `json:"params"`
	}
	return json.Unmarshal([]byte(answer), &m) == nil && m.Method == methodStreamResumeFailed && m.Params.Reason == reason
}

// The server replays what followed the cursor after stream/resumed, which
// counts the client's messages it took; the messages a resumed socket
// carries keep their cursors.
func TestWebSocketResumeReplaysAfterCursor(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testWSReplay(t, MemoryRetention{}) })
	// A log that keeps what Append is given is given messages of its own.
	t.Run("keeping", func(t *testing.T) { testWSReplay(t, keepingRetention{}) })
}

func testWSReplay(t *testing.T, r Retention) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet(), Retention: r}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s := openWS(t, ctx, url, nil)
	s.ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"stream","params":{"sessionId":"s1","n":3}}`))
	var got []string
	for range 4 {
		_, b, err := s.ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	s.ws.CloseNow()
	// Messages 1 (initialize's answer) .. 5 (the stream's answer); the
	// client received up to 2.
	ws, ack := resumeWS(t, ctx, url, nil, s.id, s.tag+".2", 0)
	if want := `{"jsonrpc":"2.0","method":"stream/resumed","params":{"socket":1,"received":2}}`; ack != want {
		t.Fatalf("answer %s, want %s", ack, want)
	}
	for i, want := range got[1:] {
		_, b, err := ws.Read(ctx)
		if err != nil || string(b) != want {
			t.Fatalf("replayed %d: %s %v, want %s", i, b, err, want)
		}
		if i < 2 && !strings.Contains(want, fmt.Sprintf(`"acp/cursor":"%s.%d"`, s.tag, i+3)) {
			t.Errorf("message %d carries no cursor %s.%d: %s", i+3, s.tag, i+3, want)
		}
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"y":2}}`))
	if _, b, err := ws.Read(ctx); err != nil || string(b) != `{"jsonrpc":"2.0","id":3,"result":{"y":2}}` {
		t.Fatalf("live after the replay: %s %v", b, err)
	}
}

// Two sockets resuming the same connection at once: one gets
// stream/resumed, the other stream/resume_failed stream_in_use.
func TestWebSocketResumeRaceOneWins(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s := openWS(t, ctx, url, nil)
	s.ws.CloseNow()
	answers := make(chan string, 2)
	start := make(chan struct{})
	for range 2 {
		go func() {
			<-start
			ws, _ := dialWSHeaders(t, ctx, url, nil)
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","method":"stream/resume","params":{"connectionId":%q,"cursor":"%s.1","socket":0}}`, s.id, s.tag)
			ws.Write(ctx, websocket.MessageText, []byte(frame))
			_, b, err := ws.Read(ctx)
			if err != nil {
				b = []byte(err.Error())
			}
			answers <- string(b)
		}()
	}
	close(start)
	a, b := <-answers, <-answers
	if refusedWith(a, ResumeInUse) {
		a, b = b, a
	}
	if !strings.Contains(a, `"method":"stream/resumed"`) || !refusedWith(b, ResumeInUse) {
		t.Fatalf("answers %s and %s, want one stream/resumed and one %s", a, b, ResumeInUse)
	}
}

// Another principal's connection id and cursor are answered exactly as
// unknown ones; so are a cursor the connection never issued, and any
// resume on a server that keeps nothing.
func TestWebSocketResumeForeignAnsweredAsUnknown(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Auth: BearerToken("alice", "bob"), Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	alice := http.Header{"Authorization": {"Bearer alice"}}
	bob := http.Header{"Authorization": {"Bearer bob"}}
	s := openWS(t, ctx, url, alice)
	s.ws.CloseNow()
	_, foreign := resumeWS(t, ctx, url, bob, s.id, s.tag+".1", 0)
	_, unknown := resumeWS(t, ctx, url, bob, newConnectionID(), s.tag+".1", 0)
	_, never := resumeWS(t, ctx, url, alice, s.id, s.tag+".7", 0)
	if !refusedWith(foreign, ResumeUnknown) || foreign != unknown || never != unknown {
		t.Fatalf("foreign %s, unknown %s, never issued %s: want the same %s", foreign, unknown, never, ResumeUnknown)
	}
	if _, ack := resumeWS(t, ctx, url, alice, s.id, s.tag+".1", 0); !strings.Contains(ack, `"method":"stream/resumed"`) {
		t.Fatalf("the owner's resume: %s", ack)
	}
	url = startServer(t, NewServer(serveTest, Options{RetainMessages: -1, Logger: quiet()}))
	ws, h := dialWSHeaders(t, ctx, url, nil)
	if h.Get(HeaderStreamCursor) != "" {
		t.Errorf("a server that keeps nothing offers cursors: %q", h.Get(HeaderStreamCursor))
	}
	ws.Write(ctx, websocket.MessageText, []byte(initBody))
	ws.Read(ctx)
	if _, ans := resumeWS(t, ctx, url, nil, h.Get(HeaderConnectionID), "x.1", 0); !refusedWith(ans, ResumeUnknown) {
		t.Fatalf("resume on a server that keeps nothing: %s", ans)
	}
}

// A resume from before what the connection retains is refused as expired;
// from its last message it succeeds.
func TestWebSocketResumePastRetentionRefused(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{RetainMessages: 5, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s := openWS(t, ctx, url, nil)
	s.ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"stream","params":{"n":20}}`))
	for range 21 {
		if _, _, err := s.ws.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s.ws.CloseNow()
	if _, ans := resumeWS(t, ctx, url, nil, s.id, s.tag+".1", 0); !refusedWith(ans, ResumeExpired) {
		t.Fatalf("resume from before the log: %s, want %s", ans, ResumeExpired)
	}
	if _, ans := resumeWS(t, ctx, url, nil, s.id, s.tag+".22", 0); !strings.Contains(ans, `"method":"stream/resumed"`) {
		t.Fatalf("resume from the last message: %s", ans)
	}
}

// The Dial client surfaces a refused resume as a *ResumeError naming the
// reason, so the application falls back to session/resume or
// session/load.
func TestWebSocketDialSurfacesRefusedResume(t *testing.T) {
	s := NewServer(serveTest, Options{RetainMessages: 1, Logger: quiet()})
	url := startServer(t, s)
	rpc, _, c := dialRPC(t, url, DialOptions{Profile: WebSocket})
	if _, err := rpc.Call(context.Background(), "stream", wire.Raw(`{"n":3}`)); err != nil {
		t.Fatal(err)
	}
	l := c.l.(*wsClient)
	l.mu.Lock()
	l.n = 1 // as if the socket had lost messages 2..5 the server retains no more
	l.mu.Unlock()
	l.cut()
	_, err := rpc.Call(context.Background(), "echo", wire.Raw(`{}`))
	var re *ResumeError
	if err == nil || !errors.As(l.err, &re) || re.Reason != ResumeExpired || re.Cursor != l.tag+".1" {
		t.Fatalf("after the refused resume: call %v, connection %v; want a *ResumeError %s", err, l.err, ResumeExpired)
	}
}

// countUpgrades counts the WebSocket upgrades s is asked for.
func countUpgrades(s http.Handler, n *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isUpgrade(r) {
			n.Add(1)
		}
		s.ServeHTTP(w, r)
	})
}

// After Close the client never reconnects, and the connection is gone on
// the server (a resume is unknown); after the server's ordinary close
// (1000) neither.
func TestWebSocketNoResumeAfterClose(t *testing.T) {
	for _, by := range []string{"client", "server"} {
		t.Run(by, func(t *testing.T) {
			ended := make(chan struct{})
			serve := func(ctx context.Context, c *Conn) error {
				defer close(ended)
				if by == "server" {
					c.ReadMessage() // initialize, then an ordinary end
					return nil
				}
				return serveTest(ctx, c)
			}
			var upgrades atomic.Int32
			s := NewServer(serve, Options{Logger: quiet()})
			ts := startHandler(t, s, countUpgrades(s, &upgrades))
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			c, err := Dial(ctx, ts, DialOptions{Profile: WebSocket, Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			c.WriteMessage([]byte(initBody))
			if by == "client" {
				c.ReadMessage()
				c.Close()
			}
			receive(t, ended, "the ServeFunc's end")
			if by == "server" {
				for {
					if _, err := c.ReadMessage(); err != nil {
						if err != io.EOF {
							t.Fatalf("after the server's close: %v, want io.EOF", err)
						}
						break
					}
				}
			}
			if _, ans := resumeWS(t, ctx, ts, nil, c.ID(), c.l.(*wsClient).tag+".0", 0); !refusedWith(ans, ResumeUnknown) {
				t.Fatalf("resume after the close: %s, want %s", ans, ResumeUnknown)
			}
			time.Sleep(2 * resumeBackoffMin)  // time enough for a reconnect
			if n := upgrades.Load(); n != 2 { // the Dial and the raw resume
				t.Fatalf("%d upgrades, want 2: the client reconnected", n)
			}
		})
	}
}

// A socket that is not resumed within IdleTimeout ends the connection:
// its ServeFunc's context ends, and a later resume is unknown.
func TestWebSocketNotResumedEnds(t *testing.T) {
	ended := make(chan struct{})
	serve := func(ctx context.Context, c *Conn) error {
		defer close(ended)
		return serveTest(ctx, c)
	}
	url := startServer(t, NewServer(serve, Options{IdleTimeout: 50 * time.Millisecond, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s := openWS(t, ctx, url, nil)
	s.ws.CloseNow()
	receive(t, ended, "the ServeFunc's end")
	if _, ans := resumeWS(t, ctx, url, nil, s.id, s.tag+".1", 0); !refusedWith(ans, ResumeUnknown) {
		t.Fatalf("resume after IdleTimeout: %s, want %s", ans, ResumeUnknown)
	}
}

// While the socket is gone the agent's turn runs on: its output is held,
// and on resume sent after the replay, followed by Options.ResumeState's
// messages, numbered as the others.
func TestWebSocketTurnRunsWhileGone(t *testing.T) {
	gate := make(chan struct{})
	serve := func(ctx context.Context, c *Conn) error {
		a := &gatedAgent{gate: gate}
		a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
		return a.conn.Run(ctx)
	}
	state := func(c *Conn, session string) [][]byte {
		return [][]byte{[]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"state_update","state":"idle"}}}`)}
	}
	srv := NewServer(serve, Options{ResumeState: state, Logger: quiet()})
	url := startServer(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	s := openWS(t, ctx, url, nil)
	s.ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"turn","params":{"sessionId":"s1","n":10,"half":0}}`))
	srv.mu.Lock()
	c := srv.conns[s.id].ws
	srv.mu.Unlock()
	s.ws.CloseNow()
	for detached := false; !detached; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		detached = c.sock == nil
		c.mu.Unlock()
	}
	close(gate)
	// Messages: 1 initialize's answer, 2..11 the updates, 12 the answer.
	for held := 0; held < 11; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		held = len(c.box.q)
		c.mu.Unlock()
	}
	ws, ack := resumeWS(t, ctx, url, nil, s.id, s.tag+".1", 0)
	if !strings.Contains(ack, `"method":"stream/resumed"`) {
		t.Fatalf("resume: %s", ack)
	}
	for i := range 12 {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		msg := string(b)
		var ok bool
		switch {
		case i < 10:
			ok = strings.Contains(msg, fmt.Sprintf(`"i":%d`, i)) && strings.Contains(msg, fmt.Sprintf(`"acp/cursor":"%s.%d"`, s.tag, i+2))
		case i == 10:
			ok = msg == `{"jsonrpc":"2.0","id":2,"result":{"n":10}}`
		default:
			ok = strings.Contains(msg, `"state_update"`) && strings.Contains(msg, fmt.Sprintf(`"acp/cursor":"%s.13"`, s.tag))
		}
		if !ok {
			t.Fatalf("message %d after the resume: %s", i, msg)
		}
	}
}

// startHandler serves h, which wraps s, and returns its /acp URL.
func startHandler(t *testing.T, s *Server, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return ts.URL + "/acp"
}

// A resumed Streamable HTTP session stream delivers, after the replay,
// Options.ResumeState's messages for the session, numbered in the stream.
func TestResumeStateAfterHTTPReplay(t *testing.T) {
	var asked atomic.Value
	state := func(c *Conn, session string) [][]byte {
		asked.Store(session)
		return [][]byte{fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"state_update","state":"idle"}}}`, session)}
	}
	url := startServer(t, NewServer(serveTest, Options{ResumeState: state, Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	id := initConn(t, url)
	first := openStream(t, ctx, url, id, "s1")
	streamUpdates(t, url, id, 3)
	es := takeEvents(t, first, 4) // the updates and the answer
	first.Body.Close()
	resumed := resumeUntilFree(t, ctx, url, id, "s1", es[0].id)
	got := takeEvents(t, resumed, 4)
	for i, e := range got[:3] {
		if e != es[i+1] {
			t.Fatalf("replayed %d: %v, want %v", i, e, es[i+1])
		}
	}
	if e := got[3]; !strings.Contains(e.data, `"state_update"`) || !strings.HasSuffix(e.id, ".5") || !strings.Contains(e.data, `"acp/cursor":"`+e.id+`"`) {
		t.Fatalf("after the replay: %v, want the state numbered 5", e)
	}
	if asked.Load() != "s1" {
		t.Errorf("ResumeState asked for %v, want s1", asked.Load())
	}
}

// discard is a ResponseWriter that drops the answer.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// A POST whose answer is lost in transit, after the server handed the
// request to the agent, is sent again marked Acp-Retry; the server does
// not hand it over twice: the request runs once and is answered once.
func TestHTTPPostCutInTransitRunsOnce(t *testing.T) {
	var runs atomic.Int32
	serve := func(ctx context.Context, c *Conn) error {
		a := &runCounter{runs: &runs}
		a.conn = jsonrpc.NewConn(c, c, a, jsonrpc.Options{Logger: quiet()})
		return a.conn.Run(ctx)
	}
	s := NewServer(serve, Options{Logger: quiet()})
	var cut atomic.Bool
	var retried atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(HeaderRetry) != "" {
			retried.Add(1)
		}
		if r.Method == http.MethodPost && r.Header.Get(HeaderConnectionID) != "" && cut.CompareAndSwap(false, true) {
			s.ServeHTTP(&discard{h: http.Header{}}, r) // handled, then the connection drops
			panic(http.ErrAbortHandler)
		}
		s.ServeHTTP(w, r)
	})
	url := startHandler(t, s, h)
	rpc, _, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if res, err := rpc.Call(ctx, "count", wire.Raw(`{}`)); err != nil || string(res) != `{"runs":1}` {
		t.Fatalf("count: %s %v", res, err)
	}
	if res, err := rpc.Call(ctx, "count", wire.Raw(`{}`)); err != nil || string(res) != `{"runs":2}` {
		t.Fatalf("the next count: %s %v", res, err)
	}
	if !cut.Load() || retried.Load() != 1 || runs.Load() != 2 {
		t.Fatalf("cut %v, %d retries, %d runs: want the cut POST sent again once and run once", cut.Load(), retried.Load(), runs.Load())
	}
}

// runCounter answers "count" with how many times it ran.
type runCounter struct {
	testAgent
	runs *atomic.Int32
}

func (a *runCounter) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if method != "count" {
		return a.testAgent.HandleRequest(ctx, method, params)
	}
	return fmt.Appendf(nil, `{"runs":%d}`, a.runs.Add(1)), nil
}

// keepingRetention keeps the slices Append is given, the slice of them
// included, as a log that writes behind holds them until it has written
// them.
type keepingRetention struct{}

func (keepingRetention) Open(string, string) StreamLog { return &keepingLog{} }

type keepingLog struct {
	first   uint64
	batches [][][]byte
}

func (l *keepingLog) Append(first uint64, msgs [][]byte) error {
	if len(l.batches) == 0 {
		l.first = first
	}
	l.batches = append(l.batches, msgs)
	return nil
}

// Forget keeps everything: After reads from the first message appended.
func (l *keepingLog) Forget(uint64) error { return nil }

func (l *keepingLog) After(n, last uint64) ([][]byte, error) {
	var all [][]byte
	for _, b := range l.batches {
		all = append(all, b...)
	}
	if n+1 < l.first || last >= l.first+uint64(len(all)) {
		return nil, errNotRetained
	}
	return all[n+1-l.first : last+1-l.first], nil
}

func (l *keepingLog) Close() error {
	l.batches = nil
	return nil
}
