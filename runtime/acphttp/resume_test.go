package acphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// event is one server-sent event: its id and data.
type event struct{ id, data string }

// eventReader reads the events of a raw event stream.
type eventReader struct{ br *bufio.Reader }

func newEventReader(resp *http.Response) *eventReader {
	return &eventReader{bufio.NewReaderSize(resp.Body, 1<<20)}
}

// next returns the next event with data, skipping comments.
func (r *eventReader) next() (event, error) {
	var e event
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && e.data != "":
			return e, nil
		case strings.HasPrefix(line, "data: "):
			e.data += strings.TrimPrefix(line, "data: ")
		case strings.HasPrefix(line, "id: "):
			e.id = strings.TrimPrefix(line, "id: ")
		}
	}
}

// resumeGet GETs an event stream with Last-Event-ID (when not empty) and
// returns the response, open, and for a refusal its body.
func resumeGet(t *testing.T, ctx context.Context, url string, h map[string]string, id, session, cursor string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	req.Header.Set(HeaderConnectionID, id)
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	if cursor != "" {
		req.Header.Set("Last-Event-ID", cursor)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		resp.Body.Close()
		return resp, b.String()
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, ""
}

// resumeUntilFree retries a resume while the server still holds the dropped
// stream's lease (stream_in_use), as a client would.
func resumeUntilFree(t *testing.T, ctx context.Context, url, id, session, cursor string) *http.Response {
	t.Helper()
	for {
		resp, body := resumeGet(t, ctx, url, nil, id, session, cursor)
		if resp.StatusCode == http.StatusOK {
			return resp
		}
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, ResumeInUse) {
			t.Fatalf("resume from %s: %d %s", cursor, resp.StatusCode, body)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the dropped stream's lease was never released")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// streamUpdates POSTs testAgent's "stream" request for session s1 on the
// connection id, producing n updates and then the answer on s1's stream.
func streamUpdates(t *testing.T, url, id string, n int) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"stream","params":{"sessionId":"s1","n":%d}}`, n)
	if st, _, b := rawPost(t, url, body, map[string]string{HeaderConnectionID: id, HeaderSessionID: "s1"}); st != http.StatusAccepted {
		t.Fatalf("stream: %d %s", st, b)
	}
}

// A session stream dropped after some events and resumed from the last
// cursor read delivers every later message once, in order, with its
// original cursor (as _meta["acp/cursor"] too), then the answer.
func TestResumeReplaysAfterCursor(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	id := initConn(t, url)
	first := openStream(t, ctx, url, id, "s1")
	start := first.Header.Get(HeaderStreamCursor)
	if start == "" {
		t.Fatalf("no %s on the stream's answer", HeaderStreamCursor)
	}
	const n = 200
	streamUpdates(t, url, id, n)
	r := newEventReader(first)
	var last string
	for i := range 10 {
		e, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		checkUpdate(t, e, i)
		last = e.id
	}
	first.Body.Close() // the cut: the server may have written more meanwhile
	resumed := resumeUntilFree(t, ctx, url, id, "s1", last)
	if got := resumed.Header.Get(HeaderStreamCursor); got != last {
		t.Errorf("resumed stream starts after %q, want %q", got, last)
	}
	r = newEventReader(resumed)
	for i := 10; i < n; i++ {
		e, err := r.next()
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		checkUpdate(t, e, i)
	}
	e, err := r.next()
	if err != nil || !strings.Contains(e.data, `"result":{"n":200}`) {
		t.Fatalf("after the updates: %q %v, want the answer", e.data, err)
	}
	if !strings.HasSuffix(e.id, fmt.Sprintf(".%d", n+1)) {
		t.Errorf("the answer's id %q, want cursor %d", e.id, n+1)
	}
}

// checkUpdate checks that e is update i of a "stream" request, with the
// stream's cursor i+1 as its id and in its params' _meta.
func checkUpdate(t *testing.T, e event, i int) {
	t.Helper()
	var m struct {
		Params struct {
			Meta map[string]string `json:"_meta"`
			I    int               `json:"i"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("update %d: %v in %q", i, err, e.data)
	}
	if m.Params.I != i {
		t.Fatalf("update %d: got %d (%s)", i, m.Params.I, e.data)
	}
	if !strings.HasSuffix(e.id, fmt.Sprintf(".%d", i+1)) || m.Params.Meta[MetaCursor] != e.id {
		t.Fatalf("update %d: id %q, _meta %v", i, e.id, m.Params.Meta)
	}
}

// takeEvents reads n events from resp.
func takeEvents(t *testing.T, resp *http.Response, n int) []event {
	t.Helper()
	r := newEventReader(resp)
	var es []event
	for range n {
		e, err := r.next()
		if err != nil {
			t.Fatalf("after %d events: %v", len(es), err)
		}
		es = append(es, e)
	}
	return es
}

// A resume from before what a stream still holds is refused with 409 and
// the reason expired_cursor: past RetainMessages, past MaxRetained's bytes,
// and past RetainFor.
func TestResumePastRetentionRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"messages", Options{RetainMessages: 5}},
		{"bytes", Options{MaxRetained: 2000}},
		{"age", Options{RetainFor: time.Nanosecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Logger = quiet()
			url := startServer(t, NewServer(serveTest, tc.o))
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			id := initConn(t, url)
			s := openStream(t, ctx, url, id, "s1")
			streamUpdates(t, url, id, 40)
			es := takeEvents(t, s, 41)
			streamUpdates(t, url, id, 1) // taken later: the age bound drops the first 41
			takeEvents(t, s, 2)
			s.Body.Close()
			for {
				resp, body := resumeGet(t, ctx, url, nil, id, "s1", es[1].id)
				if resp.StatusCode == http.StatusConflict && strings.Contains(body, ResumeInUse) {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if resp.StatusCode != http.StatusConflict || !strings.Contains(body, `"reason":"`+ResumeExpired+`"`) {
					t.Fatalf("resume from %s: %d %s, want 409 %s", es[1].id, resp.StatusCode, body, ResumeExpired)
				}
				break
			}
		})
	}
}

// Another principal's cursor, with its connection id, is answered exactly
// as a cursor nobody issued: on an unknown connection, on the asker's own
// connection, or a made-up one.
func TestResumeForeignCursorAnsweredAsUnknown(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Auth: BearerToken("alice", "bob"), Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	alice := map[string]string{"Authorization": "Bearer alice"}
	bob := map[string]string{"Authorization": "Bearer bob"}
	init := func(h map[string]string) string {
		st, hd, body := rawPost(t, url, initBody, h)
		if st != http.StatusOK {
			t.Fatalf("initialize: %d %s", st, body)
		}
		return hd.Get(HeaderConnectionID)
	}
	aid, bid := init(alice), init(bob)
	resp, _ := resumeGet(t, ctx, url, alice, aid, "", "")
	cursor := resp.Header.Get(HeaderStreamCursor)
	resp.Body.Close()
	type answer struct {
		status int
		body   string
	}
	ask := func(h map[string]string, id, cursor string) answer {
		resp, body := resumeGet(t, ctx, url, h, id, "", cursor)
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
		}
		return answer{resp.StatusCode, body}
	}
	unknown := ask(bob, newConnectionID(), "0123456789ab.0")
	if unknown.status != http.StatusConflict || !strings.Contains(unknown.body, `"reason":"`+ResumeUnknown+`"`) {
		t.Fatalf("unknown cursor: %+v, want 409 %s", unknown, ResumeUnknown)
	}
	for name, got := range map[string]answer{
		"bob with alice's connection and cursor": ask(bob, aid, cursor),
		"bob's connection with alice's cursor":   ask(bob, bid, cursor),
		"a cursor never issued on bob's":         ask(bob, bid, "0123456789ab.0"),
		"a cursor past the last on alice's":      ask(alice, aid, cursor[:len(cursor)-1]+"9"),
	} {
		if got != unknown {
			t.Errorf("%s: %+v, want %+v", name, got, unknown)
		}
	}
	for { // once the server has seen her first stream end
		got := ask(alice, aid, cursor)
		if got.status == http.StatusOK {
			break
		}
		if !strings.Contains(got.body, ResumeInUse) || ctx.Err() != nil {
			t.Fatalf("alice resuming her own stream: %+v", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Two clients resuming the same stream at once: one wins, the other is
// refused with stream_in_use.
func TestResumeRaceOneWins(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	id := initConn(t, url)
	s := openStream(t, ctx, url, id, "s1")
	streamUpdates(t, url, id, 3)
	es := takeEvents(t, s, 4)
	s.Body.Close()
	// The server drops a lease when it sees its stream end: until then
	// both are refused, and the race is run again.
	for won := 0; won < 20; {
		if ctx.Err() != nil {
			t.Fatal("no resume won within the guard")
		}
		var asked, held sync.WaitGroup
		release := make(chan struct{})
		answers := make([]string, 2)
		for i := range answers {
			asked.Add(1)
			held.Go(func() {
				resp, body := resumeGet(t, ctx, url, nil, id, "s1", es[0].id)
				answers[i] = fmt.Sprint(resp.StatusCode, " ", body)
				asked.Done()
				if resp.StatusCode == http.StatusOK {
					<-release // the winner holds the stream until both have answers
					resp.Body.Close()
				}
			})
		}
		asked.Wait()
		close(release)
		held.Wait()
		ok, refused := 0, 0
		for _, a := range answers {
			switch {
			case a == "200 ":
				ok++
			case strings.HasPrefix(a, "409 ") && strings.Contains(a, ResumeInUse):
				refused++
			}
		}
		if ok+refused != 2 || ok > 1 {
			t.Fatalf("two resumes at once: %q, want one 200 and one 409 %s", answers, ResumeInUse)
		}
		won += ok
	}
}

// The cursor goes into params._meta, keeping what is there; a message
// without params (a response) carries it as the event id only.
func TestCursorInMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"m","params":{}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"t.1"}}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":1}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"t.1"},"a":1}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":{}}}`, `{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":{"acp/cursor":"t.1"}}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"x":[1]},"b":{}}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"t.1","x":[1]},"b":{}}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"_meta":null}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":null}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"x"}}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"x"}}}`},
		{`{"jsonrpc":"2.0","method":"m","params":[1]}`, `{"jsonrpc":"2.0","method":"m","params":[1]}`},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":1},"params":[1]}`, `{"jsonrpc":"2.0","method":"m","params":{"a":1},"params":[1]}`},
		{`{"jsonrpc":"2.0","method":"m","params":[1],"params":{}}`, `{"jsonrpc":"2.0","method":"m","params":[1],"params":{"_meta":{"acp/cursor":"t.1"}}}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":1},"x":}`, `{"jsonrpc":"2.0","method":"m","params":{"a":1},"x":}`},
		{`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"a":1},"_meta":{"acp/cursor":"x"}}}`, `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"t.1","a":1},"_meta":{"acp/cursor":"x"}}}`},
		{` { "params" : { "s" : "{\"_meta\":1}" } , "method":"m","jsonrpc":"2.0"}`, ` { "params" : {"_meta":{"acp/cursor":"t.1"}, "s" : "{\"_meta\":1}" } , "method":"m","jsonrpc":"2.0"}`},
	} {
		msg := []byte(tc.in)
		if got := string(withCursor(msg, findCursorSlot(msg), "t", 1)); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// stampedCap holds the longest cursor a stream issues, in a _meta member
// of its own, so that the stamped copy is one allocation.
func TestStampedCap(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","method":"m","params":{"a":1}}`)
	tag := newStreamTag()
	got := withCursor(msg, findCursorSlot(msg), tag, math.MaxUint64)
	want := `{"jsonrpc":"2.0","method":"m","params":{"_meta":{"acp/cursor":"` + tag + `.18446744073709551615"},"a":1}}`
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if len(got) != stampedCap(msg, tag) {
		t.Errorf("stampedCap %d, the longest stamped message %d bytes", stampedCap(msg, tag), len(got))
	}
}

// gatedAgent is testAgent with "turn" {sessionId, n, half}: half updates,
// then a wait for gate, then the rest, then the answer {"n": n}.
type gatedAgent struct {
	testAgent
	gate <-chan struct{}
}

func (a *gatedAgent) HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if method != "turn" {
		return a.testAgent.HandleRequest(ctx, method, params)
	}
	var p struct {
		SessionID string `json:"sessionId"`
		N, Half   int
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &wire.RPCError{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	for i := range p.N {
		if i == p.Half {
			select {
			case <-a.gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := a.conn.Notify(ctx, "session/update", fmt.Appendf(nil, `{"sessionId":%q,"i":%d}`, p.SessionID, i)); err != nil {
			return nil, err
		}
	}
	return fmt.Appendf(nil, `{"n":%d}`, p.N), nil
}

// cutter dials TCP connections it can cut all at once, as a network
// failure would, while the server lives on.
type cutter struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (c *cutter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.mu.Lock()
		c.conns = append(c.conns, conn)
		c.mu.Unlock()
	}
	return conn, err
}

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// awaitNotes waits until the client holds at least n notifications, or
// the turn has ended (closed done): failed, the test fails with its error.
func awaitNotes(t *testing.T, tc *testClient, n int, done <-chan struct{}, failed func() error) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		select {
		case <-done:
			if err := failed(); err != nil {
				t.Fatalf("the turn failed before %d notifications: %v", n, err)
			}
			return
		default:
		}
		tc.mu.Lock()
		got := len(tc.notes)
		tc.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications, want at least %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The client's TCP connections are cut mid-turn while the server lives:
// the Streamable HTTP client resumes its event streams by itself and the
// application receives every update exactly once, in order, then the
// answer; on a session's stream and on the connection's, over HTTP/1.1
// and h2c.
func TestDialResumesCutStream(t *testing.T) {
	const n, half = 1500, 50
	for _, proto := range []string{"http1", "h2c"} {
		for _, session := range []string{"s1", ""} {
			t.Run(proto+"/session="+session, func(t *testing.T) {
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
				tr := &http.Transport{DialContext: cut.dial}
				if proto == "h2c" {
					tr.Protocols = new(http.Protocols)
					tr.Protocols.SetUnencryptedHTTP2(true)
				}
				rpc, tc, _ := dialRPC(t, url, DialOptions{Profile: StreamableHTTP, HTTPClient: &http.Client{Transport: tr}})
				ctx, cancel := context.WithTimeout(context.Background(), 2*guard)
				defer cancel()
				type answer struct {
					res wire.Raw
					err error
				}
				var a answer
				done := make(chan struct{})
				go func() {
					defer close(done)
					a.res, a.err = rpc.Call(ctx, "turn", fmt.Appendf(nil, `{"sessionId":%q,"n":%d,"half":%d}`, session, n, half))
				}()
				outcome := func() error { return a.err }
				awaitNotes(t, tc, half, done, outcome)
				cut.cut() // mid-turn, the agent waiting at its gate
				close(gate)
				awaitNotes(t, tc, half+100, done, outcome)
				cut.cut() // mid-turn again, the agent streaming
				<-done
				if a.err != nil || string(a.res) != fmt.Sprintf(`{"n":%d}`, n) {
					t.Fatalf("turn: %s %v", a.res, a.err)
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
			})
		}
	}
}

// A dropped stream whose cursor the server refuses (409 expired_cursor)
// ends the connection with a *ResumeError that names the reason and the
// cursor, so the application knows to fall back to session/load or
// session/resume; the client resumed from the last cursor it received.
func TestDialSurfacesRefusedResume(t *testing.T) {
	var resumedFrom atomic.Value
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			w.Header().Set(HeaderConnectionID, "c1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		case r.Header.Get("Last-Event-ID") != "":
			resumedFrom.Store(r.Header.Get("Last-Event-ID"))
			refuseResume(w, ResumeExpired)
		case r.Method == http.MethodGet:
			w.Header().Set(HeaderStreamCursor, "t.0")
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{}}\nid: t.1\n\n")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops
		}
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	c, err := Dial(ctx, ts.URL, DialOptions{Profile: StreamableHTTP, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteMessage([]byte(initBody)); err != nil {
		t.Fatal(err)
	}
	var got []string // the initialize answer and the event, in either order
	for range 2 {
		m, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, string(m))
	}
	if !strings.Contains(strings.Join(got, " "), `"method":"n"`) {
		t.Fatalf("messages %q, want the event", got)
	}
	_, err = c.ReadMessage()
	var re *ResumeError
	if !errors.As(err, &re) || re.Reason != ResumeExpired || re.Session != "" || re.Cursor != "t.1" {
		t.Fatalf("after the drop: %v, want a *ResumeError %s from t.1", err, ResumeExpired)
	}
	if got := resumedFrom.Load(); got != "t.1" {
		t.Errorf("resumed from %v, want t.1", got)
	}
}

// A stream is never resumed after the client sent session/close for its
// session (until session/load or session/resume reattaches it), nor after
// Close (DELETE); a drop of any other stream with a cursor is.
func TestDialNoResumeAfterCloseOrDelete(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	rpc, _, c := dialRPC(t, url, DialOptions{Profile: StreamableHTTP})
	l := c.l.(*httpLink)
	drop := errors.New("read: connection reset")
	for _, s := range []string{"s1", "s2"} {
		if _, err := rpc.Call(context.Background(), "stream", wire.Raw(fmt.Sprintf(`{"sessionId":%q,"n":1}`, s))); err != nil {
			t.Fatal(err)
		}
		if !l.resumable(s, drop) {
			t.Fatalf("%s: a dropped stream with a cursor is not resumed", s)
		}
	}
	rpc.Call(context.Background(), "session/close", wire.Raw(`{"sessionId":"s1"}`))
	if l.resumable("s1", drop) {
		t.Error("s1 resumed after session/close")
	}
	if !l.resumable("s2", drop) || !l.resumable("", drop) {
		t.Error("session/close of s1 stopped resuming other streams")
	}
	rpc.Call(context.Background(), "session/load", wire.Raw(`{"sessionId":"s1"}`))
	if !l.resumable("s1", drop) {
		t.Error("s1 not resumed after session/load reattached it")
	}
	c.Close()
	if l.resumable("s2", drop) || l.resumable("", drop) {
		t.Error("a stream resumed after Close (DELETE)")
	}
}
