package acphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/acpgen/acpgen/runtime/wire"
)

// httpLink is the client side of a Streamable HTTP connection: messages are
// POSTed; the connection's event stream opens after initialize, a session's
// before the first message naming it (or when a response names it).
type httpLink struct {
	url        string
	hc         *http.Client
	header     http.Header
	maxMessage int
	log        *slog.Logger
	ctx        context.Context // ends at close or on a connection failure
	cancel     context.CancelFunc
	in         chan []byte     // to the jsonrpc reader
	streams    sync.WaitGroup  // running session event streams
	refused    peerlog.Limiter // notifications and responses the server refused

	mu         sync.Mutex
	id         string
	err        error                     // why the link failed
	sessions   map[string]*sessionStream // open or opening
	failed     map[string]error          // sessions refused with 409, until session/load or resume
	serverReqs map[string]string         // agent request id -> session stream it came on
	pending    map[string]pendingReq     // our session requests not yet answered, by id
	positions  map[string]*position      // each stream's last cursor ("" the connection's)
	closing    map[string]bool           // sessions closed with session/close: never resumed
	resumeFor  time.Duration
}

type sessionStream struct {
	ready chan struct{} // closed once the GET is answered
	err   error         // set before ready closes when the GET failed
}

type pendingReq struct {
	session string
	id      json.RawMessage
}

func dialHTTP(u *url.URL, o DialOptions) (*Conn, error) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &httpLink{
		url: withScheme(u, false), hc: o.HTTPClient, header: o.Header, maxMessage: o.MaxMessage, log: o.Logger,
		ctx: ctx, cancel: cancel, in: make(chan []byte, 16),
		sessions: map[string]*sessionStream{}, failed: map[string]error{},
		serverReqs: map[string]string{}, pending: map[string]pendingReq{},
		positions: map[string]*position{}, closing: map[string]bool{}, resumeFor: o.ResumeFor,
	}
	return &Conn{l: l, profile: StreamableHTTP}, nil
}

func (l *httpLink) read() ([]byte, error) {
	select {
	case m := <-l.in:
		return m, nil
	case <-l.ctx.Done():
		select {
		case m := <-l.in: // delivered before the end
			return m, nil
		default:
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return nil, l.err
		}
		return nil, io.EOF
	}
}

// push hands a message to the reader.
func (l *httpLink) push(m []byte) {
	select {
	case l.in <- m:
	case <-l.ctx.Done():
	}
}

// fail ends the link: the server is gone or refused the connection.
func (l *httpLink) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	id := l.id
	l.mu.Unlock()
	l.cancel()
	if id != "" && !errors.Is(err, io.EOF) {
		go l.delete(id)
	}
}

func (l *httpLink) close() error {
	l.mu.Lock()
	id, failed := l.id, l.err != nil
	if l.err == nil {
		l.err = io.EOF
	}
	l.mu.Unlock()
	l.cancel()
	if id == "" || failed {
		return nil
	}
	return l.delete(id)
}

func (l *httpLink) delete(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, l.url, nil)
	l.setHeaders(req, id, "")
	resp, err := l.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotFound {
		return l.httpError("DELETE", resp)
	}
	return nil
}

func (l *httpLink) setHeaders(req *http.Request, id, session string) {
	for k, v := range l.header {
		req.Header[k] = v
	}
	if id != "" {
		req.Header.Set(HeaderConnectionID, id)
	}
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
}

func (l *httpLink) httpError(op string, resp *http.Response) *HTTPError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	return &HTTPError{Op: op, Status: resp.StatusCode, Body: string(b)}
}

func (l *httpLink) post(id, session string, body []byte, retry bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	l.setHeaders(req, id, session)
	req.Header.Set("Content-Type", "application/json")
	if retry {
		req.Header.Set(HeaderRetry, "1")
	}
	return l.hc.Do(req)
}

// resendsPosts reports whether a POST that failed in transit is sent
// again: the server numbers its streams (so it also recognises a request
// sent twice) and resumption is on.
func (l *httpLink) resendsPosts() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.positions[""]
	return l.resumeFor >= 0 && p != nil && p.last != ""
}

// maxRetryWait bounds the time one message may spend waiting out 503
// answers: a server past its bound of waiting POSTs refuses with Retry-After,
// and a notification or response refused for good would be lost.
const maxRetryWait = DefaultStallTimeout

// postRetrying posts body, and again after the delay of each 503 answer that
// carries Retry-After, until maxRetryWait has passed. A POST that fails in
// transit (the connection cut) is sent again, marked Acp-Retry, with
// backoff and jitter for ResumeFor, when resendsPosts.
func (l *httpLink) postRetrying(id, session string, body []byte) (*http.Response, error) {
	deadline := time.Now().Add(maxRetryWait)
	var resend time.Time
	wait := resumeBackoffMin
	retry := false
	for {
		resp, err := l.post(id, session, body, retry)
		if err != nil && l.ctx.Err() == nil && l.resendsPosts() {
			if resend.IsZero() {
				resend = time.Now().Add(l.resumeFor)
			}
			d := wait/2 + rand.N(wait/2+1)
			if time.Now().Add(d).Before(resend) {
				l.log.Debug("acphttp: POST failed in transit; sending it again", "err", err)
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-l.ctx.Done():
					t.Stop()
					return nil, errConnClosed
				}
				wait = min(wait*2, resumeBackoffMax)
				retry = true
				continue
			}
		}
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
			return resp, err
		}
		wait, ok := retryAfter(resp.Header.Get("Retry-After"))
		if !ok || time.Now().Add(wait).After(deadline) {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 8<<10))
		resp.Body.Close()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-l.ctx.Done():
			t.Stop()
			return nil, errConnClosed
		}
	}
}

// retryAfter reads a Retry-After header in seconds (an HTTP date is not
// honoured: servers of this profile send seconds), at least 50 ms.
func retryAfter(h string) (time.Duration, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 0 {
		return 0, false
	}
	return max(time.Duration(n)*time.Second, 50*time.Millisecond), true
}

// connectionFailures are the POST statuses that mean the whole connection
// is unusable, as the TypeScript SDK reads them.
func connectionFailure(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

func (l *httpLink) write(msg []byte) error {
	if err := l.ctx.Err(); err != nil {
		return errConnClosed
	}
	p, _ := peekMessage(msg)
	body := append([]byte(nil), msg...)
	l.mu.Lock()
	id := l.id
	l.mu.Unlock()
	if id == "" {
		return l.initialize(&p, body)
	}
	session := l.sessionOf(&p)
	if session != "" && p.method() == methodSessionClose {
		l.mu.Lock()
		l.closing[session] = true
		l.mu.Unlock()
	}
	if session != "" {
		err := l.openSession(session, p.method() == methodSessionLoad || p.method() == "session/resume")
		var he *HTTPError
		switch {
		case err == nil:
		case !errors.As(err, &he) || connectionFailure(he.Status):
			l.fail(err)
			return err
		case he.Status == http.StatusConflict || p.isRequest():
			// The session's stream is refused (409: another receiver has
			// it; 429 or 503: a stream limit); its answer could not arrive.
			l.answerLocally(&p, err)
			return nil
		}
		// A notification or response needs no stream: POSTed all the same.
		if err == nil && p.isRequest() {
			l.mu.Lock()
			l.pending[p.idKey()] = pendingReq{session, p.ID}
			l.mu.Unlock()
		}
	}
	resp, err := l.postRetrying(id, session, body)
	if err != nil {
		l.fail(err)
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 8<<10))
		return nil
	}
	he := l.httpError("POST", resp)
	l.mu.Lock()
	_, stillPending := l.pending[p.idKey()]
	delete(l.pending, p.idKey())
	l.mu.Unlock()
	switch {
	case connectionFailure(he.Status):
		l.fail(he)
		return he
	case session != "" && he.Status == http.StatusConflict:
		l.failSession(session, he)
		l.answerLocally(&p, he)
	case p.isRequest():
		if stillPending || session == "" {
			l.answerLocally(&p, he)
		}
	default:
		// A notification or a response the server refused (400, 413, a 503
		// past maxRetryWait): nobody waits for an answer to it, and the
		// connection is still usable.
		l.refused.Log(l.log, slog.LevelWarn, "acphttp: server refused a message; dropped", "method", p.method(), "status", he.Status, "body", he.Body)
	}
	return nil
}

// sessionOf is the session a message belongs to: its params' sessionId, or
// for a response the session stream its request came on.
func (l *httpLink) sessionOf(p *peek) string {
	if p.Method != nil {
		return p.session
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.serverReqs[p.idKey()]
	delete(l.serverReqs, p.idKey())
	return s
}

// answerLocally fails one of our requests with a -32603 error response, as
// the TypeScript SDK does: data carries the HTTP status and body. Anything
// else has nobody to tell.
func (l *httpLink) answerLocally(p *peek, err error) {
	if !p.isRequest() {
		return
	}
	var data any
	var he *HTTPError
	if errors.As(err, &he) {
		var body any = he.Body
		if json.Valid([]byte(he.Body)) {
			body = json.RawMessage(he.Body)
		}
		data = map[string]any{"status": he.Status, "body": body}
	}
	b := errorMessage(wire.Raw(p.ID), wire.CodeInternalError, err.Error(), data)
	go l.push(b) // not on the writer: the reader may be waiting for room
}

func (l *httpLink) initialize(p *peek, body []byte) error {
	if !p.isRequest() || p.method() != methodInitialize {
		return errors.New("acphttp: the first message on Streamable HTTP must be initialize")
	}
	resp, err := l.post("", "", body, false)
	if err != nil {
		l.fail(err)
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		he := l.httpError("initialize", resp)
		l.fail(he)
		return he
	}
	id := resp.Header.Get(HeaderConnectionID)
	if id == "" {
		err := errors.New("acphttp: initialize response has no Acp-Connection-Id")
		l.fail(err)
		return err
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(l.maxMessage)+1))
	if err == nil && len(b) > l.maxMessage {
		err = fmt.Errorf("acphttp: initialize response exceeds %d bytes", l.maxMessage)
	}
	if r, ok := peekMessage(b); err == nil && (!ok || !r.isResponse() || r.idKey() != p.idKey()) {
		err = errors.New("acphttp: initialize was not answered with its response")
	}
	l.mu.Lock()
	l.id = id
	l.mu.Unlock()
	if err != nil {
		l.fail(err)
		return err
	}
	ready := make(chan error, 1)
	go l.stream("", ready)
	if err := <-ready; err != nil {
		l.fail(err)
		return err
	}
	l.push(b)
	return nil
}

// openSession opens the session's event stream unless it is open, and
// waits until the server has answered the GET. reattach clears an earlier
// 409, as session/load and session/resume do.
func (l *httpLink) openSession(session string, reattach bool) error {
	l.mu.Lock()
	if reattach {
		delete(l.failed, session)
		delete(l.closing, session)
	}
	if err := l.failed[session]; err != nil {
		l.mu.Unlock()
		return err
	}
	s := l.sessions[session]
	if s == nil {
		s = &sessionStream{ready: make(chan struct{})}
		l.sessions[session] = s
		ready := make(chan error, 1)
		go func() {
			s.err = <-ready
			close(s.ready)
		}()
		l.streams.Add(1)
		go func() {
			defer l.streams.Done()
			l.stream(session, ready)
		}()
	}
	l.mu.Unlock()
	select {
	case <-s.ready:
		return s.err
	case <-l.ctx.Done():
		return errConnClosed
	}
}

// failSession detaches a session the server refused with 409 and fails its
// requests until session/load or session/resume reattaches it.
func (l *httpLink) failSession(session string, err error) {
	l.mu.Lock()
	l.failed[session] = err
	delete(l.sessions, session)
	l.mu.Unlock()
	l.failPending(session, err)
}

func (l *httpLink) failPending(session string, err error) {
	l.mu.Lock()
	var fail []pendingReq
	for k, pr := range l.pending {
		if pr.session == session {
			fail = append(fail, pr)
			delete(l.pending, k)
		}
	}
	l.mu.Unlock()
	for _, pr := range fail {
		m := "x"
		l.answerLocally(&peek{ID: pr.id, Method: &m}, err)
	}
}

// stream runs one event stream: the connection's (session "") or a
// session's. ready gets the GET's outcome. A stream that drops is resumed
// (resume.go's client side) until it ends or cannot be resumed.
func (l *httpLink) stream(session string, ready chan<- error) {
	resp, err := l.getStream(session, "")
	ready <- err
	if err == nil {
		err = l.consume(session, resp)
	}
	for l.resumable(session, err) {
		if resp, err = l.resume(session, err); err == nil {
			err = l.consume(session, resp)
		}
	}
	if session == "" {
		if err == nil {
			err = io.EOF // the server ended the connection
			l.awaitSessionStreams()
		}
		l.fail(err)
		return
	}
	l.mu.Lock()
	delete(l.sessions, session)
	l.mu.Unlock()
	if l.ctx.Err() != nil {
		return
	}
	var he *HTTPError
	var re *ResumeError
	if errors.As(err, &re) || (errors.As(err, &he) && he.Status == http.StatusConflict) {
		l.failSession(session, err)
		return
	}
	if err == nil {
		err = errors.New("acphttp: session event stream closed")
	}
	// Answers to the session's requests can no longer arrive; the next
	// message for it reopens the stream.
	l.failPending(session, err)
}

// sessionStreamsEndWait bounds how long the end of the connection's event
// stream waits for the session streams to deliver what the server sent
// before it.
const sessionStreamsEndWait = 5 * time.Second

// awaitSessionStreams waits for the session streams to end, as they do
// when the server ends the connection, so that their last messages (a
// drained turn's answer) are read rather than cut off.
func (l *httpLink) awaitSessionStreams() {
	done := make(chan struct{})
	go func() { l.streams.Wait(); close(done) }()
	t := time.NewTimer(sessionStreamsEndWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-l.ctx.Done():
	}
}

// getStream GETs an event stream, resuming after cursor when it is not
// "", and returns the open response.
func (l *httpLink) getStream(session, cursor string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, l.url, nil)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	id := l.id
	l.mu.Unlock()
	l.setHeaders(req, id, session)
	req.Header.Set("Accept", "text/event-stream")
	if cursor != "" {
		req.Header.Set("Last-Event-ID", cursor)
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		he := l.httpError("event stream", resp)
		resp.Body.Close()
		return nil, he
	}
	if cursor == "" {
		l.startPosition(session, resp.Header.Get(HeaderStreamCursor))
	}
	return resp, nil
}

// consume reads an open event stream to its end.
func (l *httpLink) consume(session string, resp *http.Response) error {
	defer resp.Body.Close()
	return readEvents(resp.Body, l.maxMessage, func(id string, m []byte) {
		if l.advance(session, id) {
			l.received(session, m)
		}
	})
}

// received handles one message from an event stream.
func (l *httpLink) received(session string, m []byte) {
	p, ok := peekMessage(m)
	if !ok {
		l.log.Warn("acphttp: event that is not a JSON object skipped", "length", len(m))
		return
	}
	l.mu.Lock()
	switch {
	case p.isResponse():
		delete(l.pending, p.idKey())
	case p.isRequest() && session != "":
		l.serverReqs[p.idKey()] = session
	}
	l.mu.Unlock()
	if p.isResponse() && p.session != "" {
		// A new session (session/new's answer): open its stream now.
		go l.openSession(p.session, false)
	}
	l.push(m)
}

// readEvents parses server-sent events, calling emit with each event's
// data (its data lines joined by newlines) and the stream's last event id
// (the id field, kept across events). Other fields are ignored. An event
// cut off by the stream's end is not emitted: only a blank line ends one.
func readEvents(r io.Reader, maxMessage int, emit func(id string, data []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	var lastID string
	has := false
	for {
		line, err := readLine(br, maxMessage+16)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		if len(line) == 0 {
			if has {
				emit(lastID, data)
				data, has = nil, false
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("id:")); ok {
			if v = bytes.TrimPrefix(v, []byte(" ")); bytes.IndexByte(v, 0) < 0 {
				lastID = string(v)
			}
			continue
		}
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if has {
			data = append(data, '\n')
		}
		if len(data)+len(v) > maxMessage {
			return fmt.Errorf("%w: event exceeds %d bytes", errEventSize, maxMessage)
		}
		data = append(data, v...)
		has = true
	}
}

// readLine reads one line ending in LF or CRLF, of at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, fmt.Errorf("%w: event line exceeds %d bytes", errEventSize, max)
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(line) > 0 && err == io.EOF {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), nil
	}
}
