// Package retaintest is the conformance suite every acphttp.Retention runs
// (Run): the memory one in the runtime, the SQLite and PostgreSQL ones in
// the store module. It checks a stream log's contract directly, then a
// Server on the Retention: a resume replays what was delivered byte for
// byte, the bounds refuse an older cursor as expired, another principal's
// cursor is answered as an unknown one, and an ended connection's logs are
// closed.
package retaintest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// Run runs the suite; open returns the Retention under test (a new one
// for each call, or one shared: the logs of different tags are apart).
func Run(t *testing.T, open func(t *testing.T) acphttp.Retention) {
	t.Run("AppendAfter", func(t *testing.T) { appendAfter(t, open(t)) })
	t.Run("Forget", func(t *testing.T) { forget(t, open(t)) })
	t.Run("StreamsApart", func(t *testing.T) { apart(t, open(t)) })
	t.Run("BytesKept", func(t *testing.T) { bytesKept(t, open(t)) })
	t.Run("StreamsAtOnce", func(t *testing.T) { atOnce(t, open(t)) })
	t.Run("ResumeReplaysByteForByte", func(t *testing.T) { replay(t, open(t)) })
	t.Run("BoundsRefuseExpired", func(t *testing.T) { bounds(t, open) })
	t.Run("ForeignCursorAsUnknown", func(t *testing.T) { foreign(t, open(t)) })
	t.Run("EndedConnectionClosesLogs", func(t *testing.T) { ended(t, open(t)) })
}

func newTag() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func msg(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"note","params":{"_meta":{"acp/cursor":"t.%d"},"i":%d}}`, i, i)
}

func msgs(from, to int) [][]byte {
	var out [][]byte
	for i := from; i <= to; i++ {
		out = append(out, msg(i))
	}
	return out
}

func wantAfter(t *testing.T, l acphttp.StreamLog, n, last uint64, want [][]byte) {
	t.Helper()
	got, err := l.After(n, last)
	if err != nil {
		t.Fatalf("After(%d, %d): %v", n, last, err)
	}
	if len(got) != len(want) {
		t.Fatalf("After(%d, %d): %d messages, want %d", n, last, len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("After(%d, %d)[%d] = %q, want %q", n, last, i, got[i], want[i])
		}
	}
}

// Appends in batches read back in order, from any point, to any point.
func appendAfter(t *testing.T, r acphttp.Retention) {
	l := r.Open("alice", newTag())
	defer l.Close()
	if err := l.Append(1, msgs(1, 3)); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(4, msgs(4, 5)); err != nil {
		t.Fatal(err)
	}
	wantAfter(t, l, 0, 5, msgs(1, 5))
	wantAfter(t, l, 2, 5, msgs(3, 5))
	wantAfter(t, l, 3, 4, msgs(4, 4))
	wantAfter(t, l, 5, 5, nil)
}

// What is forgotten is not read back: After from before it fails, and
// appends go on after it.
func forget(t *testing.T, r acphttp.Retention) {
	l := r.Open("alice", newTag())
	defer l.Close()
	if err := l.Append(1, msgs(1, 6)); err != nil {
		t.Fatal(err)
	}
	if err := l.Forget(2); err != nil {
		t.Fatal(err)
	}
	wantAfter(t, l, 2, 6, msgs(3, 6))
	if got, err := l.After(1, 6); err == nil {
		t.Fatalf("After(1, 6) past Forget(2): %d messages, want an error", len(got))
	}
	if err := l.Forget(6); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(7, msgs(7, 8)); err != nil {
		t.Fatal(err)
	}
	wantAfter(t, l, 6, 8, msgs(7, 8))
	if _, err := l.After(5, 8); err == nil {
		t.Fatal("After(5, 8) past Forget(6): want an error")
	}
}

// Logs of other tags, of the same principal or another, are apart: what
// one holds, forgets or closes leaves the others as they were.
func apart(t *testing.T, r acphttp.Retention) {
	a, b, c := r.Open("alice", newTag()), r.Open("alice", newTag()), r.Open("bob", newTag())
	defer b.Close()
	defer c.Close()
	for i, l := range []acphttp.StreamLog{a, b, c} {
		if err := l.Append(1, [][]byte{fmt.Appendf(nil, `{"log":%d}`, i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Forget(1); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	wantAfter(t, b, 0, 1, [][]byte{[]byte(`{"log":1}`)})
	wantAfter(t, c, 0, 1, [][]byte{[]byte(`{"log":2}`)})
	if _, err := a.After(0, 1); err == nil {
		t.Fatal("a closed log read back: want an error")
	}
}

// Messages come back as they were given, whatever their bytes and size.
func bytesKept(t *testing.T, r acphttp.Retention) {
	l := r.Open("alice", newTag())
	defer l.Close()
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	want := [][]byte{
		[]byte(`{"text":"é ✓ \u0000 \" \\ 𝄞"}`),
		append(append([]byte(`{"big":"`), big...), `"}`...),
		[]byte(` { "spaced" : [ 1 , 2 ] } `),
	}
	if err := l.Append(1, want); err != nil {
		t.Fatal(err)
	}
	wantAfter(t, l, 0, 3, want)
}

// Streams used at once, as a server's connections use theirs (one call at
// a time per log): each reads back every message it appended, whatever
// the others do meanwhile.
func atOnce(t *testing.T, r acphttp.Retention) {
	const streams, rounds, batch = 8, 50, 7
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := r.Open(fmt.Sprint("p", s%2), newTag())
			defer l.Close()
			next := uint64(1)
			for i := range rounds {
				m := make([][]byte, batch)
				for j := range m {
					m[j] = fmt.Appendf(nil, `{"s":%d,"n":%d}`, s, next+uint64(j))
				}
				if err := l.Append(next, m); err != nil {
					errs <- err
					return
				}
				next += batch
				if i%10 == 9 {
					if err := l.Forget(next - 1 - 2*batch); err != nil {
						errs <- err
						return
					}
				}
				got, err := l.After(next-1-batch, next-1)
				if err != nil {
					errs <- fmt.Errorf("stream %d round %d: %v", s, i, err)
					return
				}
				for j := range got {
					if !bytes.Equal(got[j], m[j]) {
						errs <- fmt.Errorf("stream %d round %d: message %d is %s, want %s", s, i, j, got[j], m[j])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// counting wraps a Retention to tell which logs are still open.
type counting struct {
	acphttp.Retention
	mu   sync.Mutex
	open map[*countedLog]bool
}

type countedLog struct {
	acphttp.StreamLog
	c *counting
}

func (c *counting) Open(principal, tag string) acphttp.StreamLog {
	l := &countedLog{StreamLog: c.Retention.Open(principal, tag), c: c}
	c.mu.Lock()
	c.open[l] = true
	c.mu.Unlock()
	return l
}

func (l *countedLog) Close() error {
	l.c.mu.Lock()
	delete(l.c.open, l)
	l.c.mu.Unlock()
	return l.StreamLog.Close()
}

func (c *counting) opened() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// serve is the agent of the server cases: initialize answers; "flood"
// sends N notes on the session its params name, then answers.
func serve(ctx context.Context, c *acphttp.Conn) error {
	for {
		m, err := c.ReadMessage()
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				N         int    `json:"n"`
			} `json:"params"`
		}
		if json.Unmarshal(m, &req) != nil || req.ID == nil {
			continue
		}
		if req.Method == "flood" {
			for i := range req.Params.N {
				if c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"note","params":{"sessionId":%q,"i":%d}}`, req.Params.SessionID, i)) != nil {
					return nil
				}
			}
		}
		if c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)) != nil {
			return nil
		}
	}
}

// server starts a Server with o on the Retention and returns its URL.
func server(t *testing.T, r acphttp.Retention, o acphttp.Options) string {
	o.Retention = r
	o.Logger = slog.New(slog.DiscardHandler)
	s := acphttp.NewServer(serve, o)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL + "/acp"
}

func do(t *testing.T, method, url, body string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "text/event-stream" {
		t.Cleanup(func() { resp.Body.Close() })
		return resp, ""
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// initialize opens a connection as the principal of h and returns its id.
func initialize(t *testing.T, url string, h map[string]string) string {
	t.Helper()
	resp, body := do(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, h)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(acphttp.HeaderConnectionID) == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	return resp.Header.Get(acphttp.HeaderConnectionID)
}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// flood POSTs the agent's flood of n notes on session s1.
func flood(t *testing.T, url, id string, h map[string]string, n int) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"flood","params":{"sessionId":"s1","n":%d}}`, n)
	if resp, b := do(t, http.MethodPost, url, body, with(h, acphttp.HeaderConnectionID, id, acphttp.HeaderSessionID, "s1")); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("flood: %d %s", resp.StatusCode, b)
	}
}

// stream GETs s1's event stream, from cursor when not empty; a refusal is
// returned as the status and body.
func stream(t *testing.T, url, id string, h map[string]string, cursor string) (*http.Response, string) {
	t.Helper()
	hs := with(h, acphttp.HeaderConnectionID, id, acphttp.HeaderSessionID, "s1")
	if cursor != "" {
		hs["Last-Event-ID"] = cursor
	}
	return do(t, http.MethodGet, url, "", hs)
}

// resume GETs s1's stream from cursor, retrying while the server has not
// yet seen the dropped stream end (stream_in_use).
func resume(t *testing.T, url, id string, h map[string]string, cursor string) (*http.Response, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := stream(t, url, id, h, cursor)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, acphttp.ResumeInUse) || time.Now().After(deadline) {
			return resp, body
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type event struct{ data, id string }

// events reads n events of an event stream.
func events(t *testing.T, resp *http.Response, n int) []event {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var out []event
	var e event
	for len(out) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			e.data = strings.TrimPrefix(line, "data: ")
		case strings.HasPrefix(line, "id: "):
			e.id = strings.TrimPrefix(line, "id: ")
		case line == "" && e.data != "":
			out = append(out, e)
			e = event{}
		}
	}
	if len(out) < n {
		t.Fatalf("read %d events, want %d: %v", len(out), n, sc.Err())
	}
	return out
}

// A stream cut after 10 of 50 notes and resumed from the 10th's cursor
// delivers every later message once, in order, each exactly as first
// numbered (its cursor as the event's id and first in params._meta), then
// the answer.
func replay(t *testing.T, r acphttp.Retention) {
	url := server(t, r, acphttp.Options{})
	id := initialize(t, url, nil)
	first, _ := stream(t, url, id, nil, "")
	flood(t, url, id, nil, 50)
	es := events(t, first, 10)
	first.Body.Close()
	resp, body := resume(t, url, id, nil, es[9].id)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("resume from %s: %d %s", es[9].id, resp.StatusCode, body)
	}
	tag, _, _ := strings.Cut(es[9].id, ".")
	es = append(es, events(t, resp, 41)...)
	for i, e := range es[:50] {
		cursor := fmt.Sprintf("%s.%d", tag, i+1)
		want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"_meta":{"acp/cursor":%q},"sessionId":"s1","i":%d}}`, cursor, i)
		if e.id != cursor || e.data != want {
			t.Fatalf("event %d: id %s data %s, want id %s data %s", i, e.id, e.data, cursor, want)
		}
	}
	if last := es[50]; last.id != tag+".51" || last.data != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("the answer: %+v", last)
	}
}

// A resume from before what the stream keeps is refused with 409
// expired_cursor: past RetainMessages, past MaxRetained's bytes, past
// RetainFor; from within it, it replays.
func bounds(t *testing.T, open func(t *testing.T) acphttp.Retention) {
	for _, tc := range []struct {
		name string
		o    acphttp.Options
	}{
		{"messages", acphttp.Options{RetainMessages: 5}},
		{"bytes", acphttp.Options{MaxRetained: 2000}},
		{"age", acphttp.Options{RetainFor: time.Nanosecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := server(t, open(t), tc.o)
			id := initialize(t, url, nil)
			s, _ := stream(t, url, id, nil, "")
			flood(t, url, id, nil, 40)
			es := events(t, s, 41)
			flood(t, url, id, nil, 1) // taken later: the age bound drops the first 41
			events(t, s, 2)
			s.Body.Close()
			resp, body := resume(t, url, id, nil, es[1].id)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, `"reason":"`+acphttp.ResumeExpired+`"`) {
				t.Fatalf("resume from %s: %d %s, want 409 %s", es[1].id, resp.StatusCode, body, acphttp.ResumeExpired)
			}
		})
	}
}

// Another principal's cursor, with the owner's connection id, is answered
// exactly as a cursor nobody issued.
func foreign(t *testing.T, r acphttp.Retention) {
	url := server(t, r, acphttp.Options{Auth: acphttp.BearerToken("alice", "bob")})
	alice := map[string]string{"Authorization": "Bearer alice"}
	bob := map[string]string{"Authorization": "Bearer bob"}
	aid, bid := initialize(t, url, alice), initialize(t, url, bob)
	s, _ := stream(t, url, aid, alice, "")
	flood(t, url, aid, alice, 5)
	es := events(t, s, 6)
	s.Body.Close()
	type answer struct {
		status int
		body   string
	}
	ask := func(h map[string]string, id, cursor string) answer {
		resp, body := stream(t, url, id, h, cursor)
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close()
		}
		return answer{resp.StatusCode, body}
	}
	unknown := ask(bob, bid, "0123456789ab.1")
	if unknown.status != http.StatusConflict || !strings.Contains(unknown.body, `"reason":"`+acphttp.ResumeUnknown+`"`) {
		t.Fatalf("unknown cursor: %+v, want 409 %s", unknown, acphttp.ResumeUnknown)
	}
	for name, got := range map[string]answer{
		"bob with alice's connection and cursor": ask(bob, aid, es[0].id),
		"bob's connection with alice's cursor":   ask(bob, bid, es[0].id),
	} {
		if got != unknown {
			t.Errorf("%s: %+v, want %+v", name, got, unknown)
		}
	}
	if resp, body := resume(t, url, aid, alice, es[0].id); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice resuming her own stream: %d %s", resp.StatusCode, body)
	}
}

// Once a connection ends (DELETE), every log its streams opened is closed,
// and a resume of them is refused as unknown.
func ended(t *testing.T, r acphttp.Retention) {
	c := &counting{Retention: r, open: map[*countedLog]bool{}}
	url := server(t, c, acphttp.Options{})
	id := initialize(t, url, nil)
	s, _ := stream(t, url, id, nil, "")
	flood(t, url, id, nil, 5)
	es := events(t, s, 6)
	s.Body.Close()
	if c.opened() == 0 {
		t.Fatal("the stream opened no log")
	}
	if resp, body := do(t, http.MethodDelete, url, "", map[string]string{acphttp.HeaderConnectionID: id}); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.opened() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d logs still open after the connection ended", c.opened())
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp, body := stream(t, url, id, nil, es[0].id)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, acphttp.ResumeUnknown) {
		t.Fatalf("resume of an ended connection: %d %s, want 409 %s", resp.StatusCode, body, acphttp.ResumeUnknown)
	}
}
