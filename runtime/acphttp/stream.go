package acphttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// streamConn is the server side of one Streamable HTTP connection: POSTed
// messages queue for the agent; the agent's messages are routed to the
// connection's event stream or to a session's and held there until a GET
// takes them.
type streamConn struct {
	s         *Server
	sc        *serverConn
	front     *Conn // what the ServeFunc runs on
	id        string
	principal string
	in        chan []byte   // to the agent's reader; unbuffered
	ended     chan struct{} // closed when the agent's side ends or the connection is shut
	endOnce   sync.Once

	mu        sync.Mutex
	killed    error               // why the connection was shut; queued output is dropped
	finished  bool                // the agent's side ended; streams drain, then end
	logsGone  bool                // the connection is gone: streams retain nothing more
	gone      map[string]struct{} // tags of session streams forgotten (resume.go)
	goneOrder []string
	conn      *outbox
	sessions  map[string]*outbox
	parked    int                 // session outboxes without a receiver
	routes    map[string]string   // client request id -> session of its response ("" the connection)
	back      map[string]string   // agent request id -> session its response must name
	known     map[string]struct{} // sessions whose streams may stay open (see Options.SessionStreamGrace)
	named     map[string]string   // client request id -> session not known yet its POST named
	streams   int                 // open event streams (receivers)
	buffered  int                 // bytes queued across outboxes
	charged   int64               // what the queued output holds of the server's budget
	since     time.Time           // when output was last taken, or the queue last filled from empty
	progress  chan struct{}       // closed and replaced when output is taken or the connection ends
	// deliver is held while a request is checked against delivered and
	// handed to the agent; delivered holds the ids of the latest requests
	// handed over, so that one POSTed again (Acp-Retry) is not run twice.
	deliver        chan struct{}
	delivered      map[string]struct{}
	deliveredOrder []string
	initID         string
	initResp       chan []byte // the answer to initialize, taken by the POST that sent it
	active         int         // open GETs and POSTs
	last           time.Time   // when active last dropped to 0
}

// outbox is one event stream's queue and the log of what it delivered,
// for resumption (resume.go).
type outbox struct {
	q      []entry
	leased bool
	parked bool          // counted in streamConn.parked
	wake   chan struct{} // cap 1: something changed for the receiver
	probe  chan struct{} // cap 1: a resume found the stream in use

	tag       string    // the stream's part of its cursors
	next      uint64    // the last cursor number given to a message
	sent      uint64    // the last cursor number taken by a receiver
	floor     uint64    // the last cursor number no longer retained
	kept      []kept    // the retained messages floor+1 .. sent, as the bounds count them
	log       StreamLog // the retained messages themselves; nil until the first is kept
	logCopies bool      // log is a copyingLog
	msgs      [][]byte  // what retain gives a copyingLog, reused
	forgot    uint64    // what log has been told to forget through
	logBytes  int64     // what kept holds of Options.MaxRetained
}

func newOutbox() *outbox {
	return &outbox{wake: make(chan struct{}, 1), probe: make(chan struct{}, 1), tag: newStreamTag()}
}

func (b *outbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

var (
	errStalled         = errors.New("acphttp: the client read no output within the stall timeout")
	errTooManySessions = errors.New("acphttp: too many session streams hold unread output")
	errConnClosed      = errors.New("acphttp: connection closed")
)

func newStreamConn(s *Server, id, principal string) *streamConn {
	return &streamConn{
		s: s, id: id, principal: principal,
		in:        make(chan []byte),
		ended:     make(chan struct{}),
		conn:      newOutbox(),
		sessions:  map[string]*outbox{},
		routes:    map[string]string{},
		back:      map[string]string{},
		known:     map[string]struct{}{},
		named:     map[string]string{},
		progress:  make(chan struct{}),
		last:      time.Now(),
		deliver:   make(chan struct{}, 1),
		delivered: map[string]struct{}{},
	}
}

// read is the agent's reader: the next POSTed message.
func (c *streamConn) read() ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.ended:
		return nil, io.EOF
	}
}

// write routes one agent message: the answer to initialize to its POST; a
// response to the stream its request named; a request or notification with
// params.sessionId to that session's stream, anything else to the
// connection's. It then waits while the connection holds MaxBuffered.
func (c *streamConn) write(msg []byte) error {
	p, _ := peekMessage(msg)
	key := p.idKey()
	c.mu.Lock()
	if c.initResp != nil && p.isResponse() && key == c.initID && c.killed == nil && !c.finished {
		c.initResp <- append([]byte(nil), msg...) // to its POST, which is waiting
		c.initResp = nil
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	slot := findCursorSlot(msg)
	charge, err := c.s.budget.take(c.ended, int64(len(msg))+outputOverhead, false, nil, false)
	if err != nil {
		return errConnClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killed != nil || c.finished {
		c.s.budget.give(charge, false)
		return errConnClosed
	}
	c.learnLocked(&p, key)
	route := p.session
	if p.Method == nil {
		route = c.routes[key]
		delete(c.routes, key)
	} else if p.isRequest() {
		c.back[key] = p.session
	}
	box := c.outboxFor(route)
	if box == nil {
		c.shutLocked(errTooManySessions)
		return errTooManySessions
	}
	box.next++
	e := entry{n: box.next, msg: withCursor(msg, slot, box.tag, box.next)}
	box.q = append(box.q, e)
	if c.charged == 0 {
		c.since = time.Now()
	}
	c.buffered += len(e.msg)
	c.charged += charge
	box.signal()
	return c.waitRoom(nil)
}

// outputOverhead is what each queued message counts against
// Options.MaxServerBuffered on top of its length.
const outputOverhead = 64

// stalled reports whether the connection holds output nobody has taken for
// StallTimeout.
func (c *streamConn) stalled(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed == nil && c.charged > 0 && now.Sub(c.since) >= c.s.o.StallTimeout
}

// outboxFor returns the connection's outbox, or a session's, creating it;
// a session outbox without a receiver is parked (nil past
// MaxBufferedSessions). Called with mu held.
func (c *streamConn) outboxFor(session string) *outbox {
	if session == "" {
		return c.conn
	}
	b := c.sessions[session]
	if b != nil && (b.leased || b.parked) {
		return b
	}
	if c.parked >= c.s.o.MaxBufferedSessions {
		return nil
	}
	if b == nil {
		b = newOutbox()
		c.sessions[session] = b
	}
	b.parked = true
	c.parked++
	return b
}

// waitRoom waits, with mu held, while the connection holds MaxBuffered of
// output; a client that takes none of it for StallTimeout gets the
// connection shut. done, when not nil, ends the wait early (a POST's client
// went away).
func (c *streamConn) waitRoom(done <-chan struct{}) error {
	var timer *time.Timer
	for c.buffered >= c.s.o.MaxBuffered {
		if c.killed != nil {
			return c.killed
		}
		if c.finished {
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(c.s.o.StallTimeout)
			defer timer.Stop()
		}
		progress := c.progress
		c.mu.Unlock()
		select {
		case <-progress:
			c.mu.Lock()
			timer.Reset(c.s.o.StallTimeout)
		case <-timer.C:
			c.mu.Lock()
			c.s.log.Warn("acphttp: closing connection whose client stopped reading", "connection", c.id)
			c.shutLocked(errStalled)
			return errStalled
		case <-done:
			c.mu.Lock()
			return context.Canceled
		}
	}
	return c.killed
}

// notify wakes whoever waits for progress. Called with mu held.
func (c *streamConn) notify() {
	close(c.progress)
	c.progress = make(chan struct{})
}

// close is the agent's side ending (its ServeFunc returned): streams
// deliver what they hold, then end.
func (c *streamConn) close() error {
	c.mu.Lock()
	c.finished = true
	c.wakeAll()
	c.mu.Unlock()
	c.endOnce.Do(func() { close(c.ended) })
	return nil
}

// shut ends the connection now: output held is dropped, streams end, the
// agent's context is cancelled.
func (c *streamConn) shut(err error) {
	c.mu.Lock()
	c.shutLocked(err)
	c.mu.Unlock()
}

func (c *streamConn) shutLocked(err error) {
	if c.killed != nil {
		return
	}
	c.killed = err
	for _, b := range append([]*outbox{c.conn}, mapValues(c.sessions)...) {
		b.q = nil
	}
	c.dropLogsLocked()
	c.buffered = 0
	c.s.budget.give(c.charged, false)
	c.charged = 0
	c.wakeAll()
	c.endOnce.Do(func() { close(c.ended) })
	if c.sc.cancel != nil { // set by Server.open before anyone can reach c
		c.sc.cancel()
	}
}

func (c *streamConn) wakeAll() {
	c.notify()
	c.conn.signal()
	for _, b := range c.sessions {
		b.signal()
	}
}

func mapValues(m map[string]*outbox) []*outbox {
	vs := make([]*outbox, 0, len(m))
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// touch counts an open GET or POST (+1) or its end (-1), for IdleTimeout.
func (c *streamConn) touch(d int) {
	c.mu.Lock()
	c.active += d
	if c.active == 0 {
		c.last = time.Now()
	}
	c.mu.Unlock()
}

func (c *streamConn) idleSince(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active > 0 {
		return 0
	}
	return now.Sub(c.last)
}

// handlePost takes one client message.
func (s *Server) handlePost(w http.ResponseWriter, r *http.Request, principal string) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "Unsupported Media Type", http.StatusUnsupportedMediaType)
		return
	}
	if r.ContentLength > int64(s.o.MaxMessage) {
		http.Error(w, "Request Entity Too Large", http.StatusRequestEntityTooLarge)
		return
	}
	id := r.Header.Get(HeaderConnectionID)
	var c *streamConn
	if id != "" {
		var status int
		if c, status = s.use(id, principal); c == nil {
			http.Error(w, refusal(status), status)
			return
		}
		c.touch(1)
		defer c.touch(-1)
	}
	in := s.readBody(w, r)
	defer in.release()
	if in.status != 0 {
		if in.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		http.Error(w, http.StatusText(in.status), in.status)
		return
	}
	if in.msg == nil {
		return // the client went away
	}
	body := in.msg
	p, err := peekFrame(body)
	if err != nil {
		refuseBody(w, body, err)
		return
	}
	if p.isRequest() && p.method() == methodInitialize {
		if id != "" {
			http.Error(w, "Initialize not allowed on existing connection", http.StatusBadRequest)
			return
		}
		s.initialize(w, r, principal, &p, in)
		return
	}
	if id == "" {
		http.Error(w, "Missing Acp-Connection-Id", http.StatusBadRequest)
		return
	}
	if p.isRequest() {
		select {
		case c.deliver <- struct{}{}:
			defer func() { <-c.deliver }()
		case <-c.ended:
			http.Error(w, "Unknown Acp-Connection-Id", http.StatusNotFound)
			return
		case <-r.Context().Done():
			return
		}
		if r.Header.Get(HeaderRetry) != "" && c.wasDelivered(p.idKey()) {
			w.WriteHeader(http.StatusAccepted) // the first POST's got through
			return
		}
	}
	if status, msg := c.admit(r, &p); status != 0 {
		http.Error(w, msg, status)
		return
	}
	select {
	case c.in <- body:
		in.release()
		if p.isRequest() {
			c.markDelivered(p.idKey())
		}
		w.WriteHeader(http.StatusAccepted)
	case <-c.ended:
		http.Error(w, "Unknown Acp-Connection-Id", http.StatusNotFound)
	case <-r.Context().Done():
	}
}

// HeaderRetry marks a POST the client sends again because the first
// attempt failed in transit: a request whose id the connection handed to
// the agent lately (one of the last maxDelivered) is answered 202 and not
// handed over again.
const HeaderRetry = "Acp-Retry"

// maxDelivered bounds the request ids a connection remembers for
// HeaderRetry.
const maxDelivered = 1024

func (c *streamConn) wasDelivered(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.delivered[key]
	return ok
}

func (c *streamConn) markDelivered(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.deliveredOrder) >= maxDelivered {
		delete(c.delivered, c.deliveredOrder[0])
		c.deliveredOrder = c.deliveredOrder[1:]
	}
	c.delivered[key] = struct{}{}
	c.deliveredOrder = append(c.deliveredOrder, key)
}

// refuseBody answers a POST whose body is not one JSON-RPC message: 400,
// with a JSON-RPC error for a batch (its entries unread: ACP has none).
func refuseBody(w http.ResponseWriter, body []byte, err error) {
	var fe *jsonrpc.FrameError
	switch {
	case errors.As(err, &fe) && fe.Code == wire.CodeParseError:
		http.Error(w, "Invalid JSON", http.StatusBadRequest)
	case bytes.TrimLeft(body, " \t\r\n")[0] == '[':
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(errorMessage(nil, wire.CodeInvalidRequest, "Invalid request: JSON-RPC batches are not supported", nil))
	default:
		http.Error(w, "Invalid JSON-RPC message", http.StatusBadRequest)
	}
}

// refusal is the text of use's statuses, on POST and GET.
func refusal(status int) string {
	if status == http.StatusNotFound {
		return "Unknown Acp-Connection-Id"
	}
	return http.StatusText(status)
}

// inbound is a POST body read under the server's budget.
type inbound struct {
	msg     []byte // nil if not read
	status  int    // what to answer instead, or 0
	b       *budget
	charged int64
}

// release gives the body's charge back: once its connection's reader has
// taken it, or the POST is over.
func (in *inbound) release() {
	in.b.give(in.charged, true)
	in.charged = 0
}

// postOverhead is what each POST counts against Options.MaxServerBuffered
// on top of its body: the request's bookkeeping.
const postOverhead = 4 << 10

// readBody waits for room for r's body under the server's budget, then
// reads it within BodyTimeout: a body of known length is admitted whole, a
// chunked one chunk by chunk.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) *inbound {
	in := &inbound{b: s.budget}
	rc := http.NewResponseController(w)
	deadline := func(d time.Duration) {
		if d == 0 {
			rc.SetReadDeadline(time.Time{})
		} else {
			rc.SetReadDeadline(time.Now().Add(d))
		}
	}
	body := http.MaxBytesReader(w, r.Body, int64(s.o.MaxMessage))
	done := r.Context().Done()
	var err error
	if n := r.ContentLength; n >= 0 {
		if in.charged, err = s.budget.take(done, n+postOverhead, true, nil, true); err == nil {
			deadline(s.o.BodyTimeout)
			in.msg = make([]byte, n)
			if _, err = io.ReadFull(body, in.msg); err == nil {
				deadline(0)
			}
		}
	} else {
		in.msg, in.charged, err = s.budget.readChunked(body, done, s.o.BodyTimeout, deadline, true)
	}
	in.status = readStatus(err)
	if err != nil {
		// The deadline stays: the server must not read the rest of the
		// body to reuse the connection.
		w.Header().Set("Connection", "close")
		in.msg = nil
	}
	return in
}

// readStatus answers a failed body read: 0 when nobody is left to answer.
func readStatus(err error) int {
	var tooBig *http.MaxBytesError
	switch {
	case err == nil, errors.Is(err, errGone):
		return 0
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errSlowBody), errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// admit checks a POSTed message's Acp-Session-Id against its content,
// records where the answer to a request goes, and makes a request wait while
// output is backed up. It returns an HTTP status and text to refuse with, or 0.
func (c *streamConn) admit(r *http.Request, p *peek) (int, string) {
	header := r.Header.Get(HeaderSessionID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Method == nil { // a response to an agent request
		key := p.idKey()
		if route, ok := c.back[key]; ok && route != "" {
			if header == "" {
				return http.StatusBadRequest, "Missing Acp-Session-Id"
			}
			if header != route {
				return http.StatusBadRequest, "Mismatched Acp-Session-Id"
			}
		}
		delete(c.back, key)
		return 0, ""
	}
	if (c.s.sessionScoped[p.method()] || p.session != "") && header == "" {
		return http.StatusBadRequest, "Missing Acp-Session-Id"
	}
	if header != "" && p.session != "" && header != p.session {
		return http.StatusBadRequest, "Mismatched Acp-Session-Id"
	}
	if !p.isRequest() {
		return 0, ""
	}
	if err := c.waitRoom(r.Context().Done()); err != nil {
		return http.StatusNotFound, "Unknown Acp-Connection-Id"
	}
	route := header
	if p.method() == methodSessionLoad {
		route = "" // as the TypeScript SDK routes it
	}
	c.routes[p.idKey()] = route
	if _, ok := c.known[header]; header != "" && !ok {
		c.named[p.idKey()] = header
	}
	return 0, ""
}

// initialize opens a connection with the client's initialize request and
// answers with the agent's response and the new Acp-Connection-Id.
func (s *Server) initialize(w http.ResponseWriter, r *http.Request, principal string, p *peek, in *inbound) {
	if s.full() {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	id := newConnectionID()
	c := newStreamConn(s, id, principal)
	c.initID = p.idKey()
	resp := make(chan []byte, 1)
	c.initResp = resp
	c.sc = &serverConn{principal: principal, stream: c, kill: func() { c.shut(errServerClosed) }, pooled: pooled{close: c.shut}}
	c.front = &Conn{l: c, profile: StreamableHTTP, id: id, principal: principal}
	if err := s.open(c.front, c.sc); err != nil {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	c.touch(1)
	defer c.touch(-1)
	fail := func() {
		c.shut(errConnClosed)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(errorMessage(wire.Raw(p.ID), wire.CodeInternalError, "Initialize failed", nil))
	}
	select {
	case c.in <- in.msg:
		in.release()
	case <-c.ended:
		fail()
		return
	case <-r.Context().Done():
		c.shut(context.Canceled)
		return
	}
	select {
	case m := <-resp:
		w.Header().Set(HeaderConnectionID, id)
		w.Header().Set("Content-Type", "application/json")
		w.Write(m)
	case <-c.ended:
		fail()
	case <-r.Context().Done():
		c.shut(context.Canceled)
	}
}

// handleGet streams a connection's or a session's output as server-sent
// events, one message per event.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, principal string) {
	if !strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/event-stream") {
		http.Error(w, "Not Acceptable", http.StatusNotAcceptable)
		return
	}
	id := r.Header.Get(HeaderConnectionID)
	if id == "" {
		http.Error(w, "Missing Acp-Connection-Id", http.StatusBadRequest)
		return
	}
	cursor := r.Header.Get("Last-Event-ID")
	c, status := s.use(id, principal)
	if c == nil {
		if cursor != "" && status == http.StatusNotFound {
			refuseResume(w, ResumeUnknown) // as for any cursor it never issued
			return
		}
		http.Error(w, refusal(status), status)
		return
	}
	session := r.Header.Get(HeaderSessionID)
	principal = c.sc.principal // without Auth, the connection's own
	if status := s.takeStream(principal); status != 0 {
		refuseStream(w, r, status)
		return
	}
	defer s.giveStream(principal)
	l := c.lease(session, cursor)
	switch {
	case l.reason != "":
		refuseResume(w, l.reason)
		return
	case l.status == http.StatusTooManyRequests:
		refuseStream(w, r, l.status)
		return
	case l.status != 0:
		http.Error(w, http.StatusText(l.status), l.status)
		return
	}
	box := l.box
	c.touch(1)
	defer c.touch(-1)
	defer c.release(session, box)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set(HeaderStreamCursor, l.start)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	if len(l.replay) > 0 && !c.sendAll(rc, w, box.tag, l.replay) {
		return
	}
	if cursor != "" && s.o.ResumeState != nil {
		// Through the agent's own output path: numbered, routed, after
		// what is queued already.
		msgs := s.o.ResumeState(c.front, session)
		go func() {
			for _, m := range msgs {
				if c.write(m) != nil {
					return
				}
			}
		}()
	}
	c.pump(r.Context(), rc, w, box, session)
}

// leased is lease's outcome: the outbox and what to replay on it, the
// cursor the stream starts after; or the status (and for a refused resume
// the reason) to refuse the GET with.
type leased struct {
	box    *outbox
	replay []entry
	start  string
	status int
	reason string
}

// lease attaches a receiver to an outbox: 409 if it has one, 404 once the
// connection can route no more output to a new one, 429 past
// MaxConnectionStreams. With a cursor (Last-Event-ID) it resumes the
// stream: the messages delivered after the cursor are replayed, or the
// resume is refused with a reason.
func (c *streamConn) lease(session, cursor string) leased {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killed != nil {
		if cursor != "" {
			return leased{reason: ResumeUnknown}
		}
		return leased{status: http.StatusNotFound}
	}
	box := c.conn
	if session != "" {
		box = c.sessions[session]
	}
	var l leased
	if cursor != "" {
		if l.replay, l.reason = c.resumeLocked(box, cursor); l.reason != "" {
			return l
		}
		l.start = cursor
	}
	switch {
	case box == nil && c.finished:
		return leased{status: http.StatusNotFound}
	case box != nil && box.leased:
		return leased{status: http.StatusConflict}
	case c.streams >= c.s.o.MaxConnectionStreams:
		return leased{status: http.StatusTooManyRequests}
	}
	if box == nil {
		box = newOutbox()
		c.sessions[session] = box
	}
	c.streams++
	box.leased = true
	if box.parked {
		box.parked = false
		c.parked--
	}
	if l.start == "" {
		l.start = formatCursor(box.tag, box.sent)
	}
	l.box = box
	return l
}

// release detaches the receiver; a session outbox still holding output is
// parked for the next one, an empty one forgotten.
func (c *streamConn) release(session string, box *outbox) {
	c.mu.Lock()
	defer c.mu.Unlock()
	box.leased = false
	c.streams--
	if c.finished {
		c.conn.signal() // the connection stream may be waiting for this one
	}
	if session == "" || c.sessions[session] != box {
		return
	}
	if c.killed != nil || (len(box.q) == 0 && len(box.kept) == 0) {
		c.forgetLocked(session, box)
		return
	}
	if len(box.q) == 0 {
		return // kept for a resume; not parked, as it holds no output
	}
	box.parked = true
	c.parked++
	if c.parked > c.s.o.MaxBufferedSessions && !c.finished {
		c.shutLocked(errTooManySessions)
	}
}

// pump writes box's messages as events until the connection ends or the
// client goes away, or, for a session the connection does not know, until
// SessionStreamGrace passes with no request naming it awaiting its answer;
// each write waits for the client at most StallTimeout. Output leaves the
// server's budget once written (or dropped).
func (c *streamConn) pump(ctx context.Context, rc *http.ResponseController, w io.Writer, box *outbox, session string) {
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	var grace *time.Timer
	var graceC <-chan time.Time // nil once the session is known
	if session != "" && c.standing(session) != sessionKnown {
		grace = time.NewTimer(c.s.o.SessionStreamGrace)
		defer grace.Stop()
		graceC = grace.C
	}
	for {
		q, charge, killed, finished := c.take(box)
		if killed != nil {
			return
		}
		if len(q) > 0 {
			ok := c.sendAll(rc, w, box.tag, q)
			c.s.budget.give(charge, false)
			if !ok {
				return
			}
			continue
		}
		if finished {
			return
		}
		select {
		case <-box.wake:
		case <-ctx.Done():
			return
		case <-graceC:
			switch c.standing(session) {
			case sessionKnown:
				graceC = nil
			case sessionAwaited:
				grace.Reset(c.s.o.SessionStreamGrace)
			default:
				return
			}
		case <-tick.C:
			if !c.send(rc, func() error { _, err := io.WriteString(w, ":\n\n"); return err }) {
				return
			}
		case <-box.probe:
			if !c.send(rc, func() error { _, err := io.WriteString(w, ":\n\n"); return err }) {
				return
			}
		}
	}
}

// take empties box for its receiver and returns what the messages charged;
// they move to the box's log.
func (c *streamConn) take(box *outbox) (q []entry, charge int64, killed error, finished bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, box.q = box.q, nil
	now := time.Now()
	box.trim(c.s, now)
	for i := range q {
		c.buffered -= len(q[i].msg)
		charge += int64(len(q[i].msg)) + outputOverhead
		q[i].at = now
		box.sent = q[i].n
	}
	c.retainLocked(box, q)
	c.charged -= charge
	if len(q) > 0 {
		c.since = time.Now()
		c.notify()
	}
	return q, charge, c.killed, c.finished && (box != c.conn || !c.sessionStreaming())
}

// sessionStreaming reports whether a session stream is still open. Once the
// agent's side has ended, the connection stream ends only after every open
// session stream has delivered its output and ended: a client that takes the
// end of the connection stream for the end of the connection (and drops its
// session streams) loses nothing. Called with mu held.
func (c *streamConn) sessionStreaming() bool {
	for _, b := range c.sessions {
		if b.leased {
			return true
		}
	}
	return false
}

// sendAll writes q as events, one message at a time (no copy of the batch),
// each with its cursor as the event's id.
func (c *streamConn) sendAll(rc *http.ResponseController, w io.Writer, tag string, q []entry) bool {
	return c.send(rc, func() error {
		for _, e := range q {
			if err := writeEvent(w, tag, e); err != nil {
				return err
			}
		}
		return nil
	})
}

func (c *streamConn) send(rc *http.ResponseController, write func() error) bool {
	rc.SetWriteDeadline(time.Now().Add(c.s.o.StallTimeout))
	if write() != nil {
		return false
	}
	return rc.Flush() == nil
}

// handleDelete ends a connection.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, principal string) {
	id := r.Header.Get(HeaderConnectionID)
	if id == "" {
		http.Error(w, "Missing Acp-Connection-Id", http.StatusBadRequest)
		return
	}
	c := s.lookup(id, principal)
	if c == nil {
		http.Error(w, "Unknown Acp-Connection-Id", http.StatusNotFound)
		return
	}
	c.shut(errConnClosed)
	w.WriteHeader(http.StatusAccepted)
}
