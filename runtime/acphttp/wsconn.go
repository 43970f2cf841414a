package acphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// A resumable WebSocket connection outlives its socket (the RFD draft
// "durable & resumable transport", on WebSocket). Every message the server
// sends on it is numbered as a Streamable HTTP event stream's are: the n-th
// has cursor TAG.n, in params._meta["acp/cursor"] when it has params (a
// response carries none: the client counts). The upgrade answers with
// Acp-Connection-Id and Acp-Stream-Cursor (TAG.0). When the socket drops
// without a close frame, the connection lives on for IdleTimeout: its turns
// keep running, their output is held (up to MaxBuffered; at the bound the
// agent's writes wait, and if no socket takes the output for StallTimeout
// the connection closes). A new socket whose first message is
// stream/resume takes it back: the server answers stream/resumed, replays
// what the connection delivered after the cursor, then what it held, then
// Options.ResumeState's messages, then goes live; or it answers
// stream/resume_failed with a reason and closes the socket. A close frame
// from the client (1000, 1001, or none) ends the connection at once.

// The frames of a WebSocket resume (provisional names; see
// docs/transports-and-security.md, "Resumable WebSocket connections").
const (
	methodStreamResume       = "stream/resume"
	methodStreamResumed      = "stream/resumed"
	methodStreamResumeFailed = "stream/resume_failed"
)

// resumeRequest is stream/resume's params: the connection, the cursor of
// the last message the client received (TAG.0 for none), and the number of
// the socket it last had (0 for the first; stream/resumed gives the next).
type resumeRequest struct {
	ConnectionID string `json:"connectionId"`
	Cursor       string `json:"cursor"`
	Socket       uint64 `json:"socket"`
}

// resumedParams is stream/resumed's params: the socket's number, and how
// many messages the server has taken from the client on the connection
// (initialize included): the client sends again those that followed.
type resumedParams struct {
	Socket   uint64 `json:"socket"`
	Received uint64 `json:"received"`
}

// wsConn is the server side of one WebSocket connection.
type wsConn struct {
	s         *Server
	sc        *serverConn
	conn      *Conn
	id        string
	resumable bool // Options.RetainMessages >= 0
	goingAway atomic.Bool
	first     []byte // the initialize the gate read, for the agent's reader

	wmu   sync.Mutex // held while a message is sent, and while a resume swaps the socket in
	stamp []byte     // with wmu: the message being sent, its cursor in it

	mu       sync.Mutex
	sock     *wsLink       // nil while the socket is gone
	socket   uint64        // the number of the socket attached last
	attached chan struct{} // closed and replaced when a socket attaches or the connection ends
	box      *outbox       // q: output held while the socket is gone; log: delivered
	buffered int           // bytes in box.q
	charged  int64         // what box.q holds of the server's budget
	since    time.Time     // when the socket dropped
	received uint64        // client messages handed to the agent's reader
	done     bool
	ended    chan struct{}
}

func newWSConn(s *Server, id string) *wsConn {
	return &wsConn{
		s: s, id: id, resumable: s.o.RetainMessages >= 0,
		attached: make(chan struct{}), box: newOutbox(), ended: make(chan struct{}),
	}
}

// gate reads the first message of a new socket: an initialize opens the
// connection (true: its ServeFunc runs); a stream/resume hands the socket
// to the connection it names; anything else closes it with 1002.
func (c *wsConn) gate(l *wsLink) bool {
	b, err := l.read()
	if err != nil {
		l.cancel()
		l.c.CloseNow()
		return false
	}
	p, ok := peekMessage(b)
	switch {
	case ok && p.isRequest() && p.method() == methodInitialize:
		if err := c.s.promote(c.sc); err != nil {
			if err == errLimit {
				l.c.Close(websocket.StatusTryAgainLater, "Server busy")
			}
			l.cancel()
			return false
		}
		c.first = b
		return true
	case ok && p.method() == methodStreamResume:
		c.s.mu.Lock()
		c.s.unpool(c.sc) // the socket is no longer this pending connection's
		c.s.mu.Unlock()
		c.mu.Lock()
		c.sock = nil
		c.mu.Unlock()
		c.s.resumeWS(l, b, c.sc.principal)
		return false
	}
	l.closeWith(websocket.StatusProtocolError, "First message must be initialize")
	return false
}

// resumeWS answers a socket whose first message is stream/resume. Another
// principal's connection is answered exactly as an unknown one.
func (s *Server) resumeWS(l *wsLink, frame []byte, principal string) {
	var m struct {
		Params resumeRequest `json:"params"`
	}
	json.Unmarshal(frame, &m)
	s.mu.Lock()
	sc := s.conns[m.Params.ConnectionID]
	s.mu.Unlock()
	if sc == nil || sc.ws == nil || !sc.ws.resumable || (s.o.Auth != nil && sc.principal != principal) {
		refuseWS(l, ResumeUnknown)
		return
	}
	sc.ws.resume(l, m.Params)
}

// refuseWS answers a stream/resume with stream/resume_failed and closes
// the socket.
func refuseWS(l *wsLink, reason string) {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": methodStreamResumeFailed,
		"params": map[string]string{"reason": reason, "message": resumeRefusals[reason]},
	})
	l.write(b)
	l.closeWith(websocket.StatusNormalClosure, "Resume refused")
}

var resumeRefusals = map[string]string{
	ResumeUnknown: "the stream never issued this cursor",
	ResumeExpired: "messages after this cursor are no longer retained",
	ResumeInUse:   "the stream has a receiver already",
}

// resume attaches l in place of the connection's socket: a socket number
// older than the last one attached means another resume won (in use); the
// one attached, if any, is the client's own dropped socket and is closed.
func (c *wsConn) resume(l *wsLink, r resumeRequest) {
	c.mu.Lock()
	reason := ""
	if c.done {
		reason = ResumeUnknown
	} else if reason = c.checkLocked(r.Cursor); reason == "" {
		switch {
		case r.Socket > c.socket:
			reason = ResumeUnknown
		case r.Socket < c.socket:
			reason = ResumeInUse
		}
	}
	if reason != "" {
		c.mu.Unlock()
		refuseWS(l, reason)
		return
	}
	old := c.sock
	c.detachLocked()
	c.socket++
	num := c.socket
	c.mu.Unlock()
	if old != nil {
		old.drop() // a write waiting on it fails now
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if n, ok := parseCursor(c.box.tag, r.Cursor); ok {
		// A message the client has is delivered, though its write
		// reported the socket's loss.
		for len(c.box.q) > 0 && c.box.q[0].n <= n {
			c.unholdLocked()
		}
	}
	replay, reason := c.box.after(r.Cursor)
	if c.done {
		reason = ResumeUnknown
	} else if c.socket != num {
		reason = ResumeInUse
	}
	received := c.received
	c.mu.Unlock()
	if reason != "" {
		refuseWS(l, reason)
		return
	}
	ack, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": methodStreamResumed, "params": resumedParams{Socket: num, Received: received}})
	if l.write(ack) != nil {
		l.drop()
		return
	}
	for _, e := range replay {
		if l.write(e.msg) != nil {
			l.drop()
			return
		}
	}
	if !c.flush(l) {
		l.drop()
		return
	}
	if c.s.o.ResumeState != nil {
		for _, m := range c.s.o.ResumeState(c.conn, "") {
			if c.send(l, m, 0) != nil {
				l.drop()
				return
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.socket != num {
		l.drop()
		return
	}
	c.sock = l
	c.wakeLocked()
	c.s.log.Debug("acphttp: WebSocket connection resumed", "connection", c.id, "socket", num, "replayed", len(replay))
}

// flush writes the output held while the socket was gone to l, with wmu
// held; each message written moves to the log.
func (c *wsConn) flush(l *wsLink) bool {
	for {
		c.mu.Lock()
		if len(c.box.q) == 0 {
			c.mu.Unlock()
			return true
		}
		e := c.box.q[0]
		c.mu.Unlock()
		if l.write(e.msg) != nil {
			return false
		}
		c.mu.Lock()
		c.unholdLocked()
		c.mu.Unlock()
	}
}

// unholdLocked records the first message held as delivered. Called with
// mu held.
func (c *wsConn) unholdLocked() {
	e := c.box.q[0]
	c.box.q[0] = entry{}
	c.box.q = c.box.q[1:]
	c.buffered -= len(e.msg)
	charge := min(c.charged, int64(len(e.msg))+outputOverhead)
	c.charged -= charge
	c.s.budget.give(charge, false)
	c.deliveredLocked(e)
}

// checkLocked returns why a resume from cursor is refused, or "". Every
// number given counts as issued: a write of it may be under way. Called
// with mu held.
func (c *wsConn) checkLocked(cursor string) string {
	n, ok := parseCursor(c.box.tag, cursor)
	switch {
	case !ok || n > c.box.next:
		return ResumeUnknown
	case n < c.box.floor:
		return ResumeExpired
	}
	return ""
}

// deliveredLocked records e as delivered. Called with mu held.
func (c *wsConn) deliveredLocked(e entry) {
	e.at = time.Now()
	c.box.sent = e.n
	c.box.trim(c.s, e.at)
	c.box.retain(c.s, c.principal(), []entry{e})
}

// principal is whom the connection's retained messages belong to.
func (c *wsConn) principal() string {
	if c.sc == nil {
		return ""
	}
	return c.sc.principal
}

// detachLocked forgets the socket and starts the IdleTimeout the
// connection lives without one. Called with mu held.
func (c *wsConn) detachLocked() {
	if c.sock == nil {
		return
	}
	c.sock = nil
	c.since = time.Now()
	num := c.socket
	time.AfterFunc(c.s.o.IdleTimeout, func() {
		c.mu.Lock()
		gone := c.sock == nil && c.socket == num && !c.done
		c.mu.Unlock()
		if gone {
			c.s.log.Info("acphttp: closing WebSocket connection not resumed in time", "connection", c.id)
			c.shut(errIdle)
		}
	})
}

func (c *wsConn) wakeLocked() {
	close(c.attached)
	c.attached = make(chan struct{})
}

// read is the agent's reader: the next client message, from whichever
// socket is attached; while none is, it waits for a resume.
func (c *wsConn) read() ([]byte, error) {
	if b := c.first; b != nil {
		c.first = nil
		c.mu.Lock()
		c.received++
		c.mu.Unlock()
		return b, nil
	}
	for {
		c.mu.Lock()
		sock, attached, done := c.sock, c.attached, c.done
		c.mu.Unlock()
		if done {
			return nil, io.EOF
		}
		if sock == nil {
			select {
			case <-attached:
			case <-c.ended:
			}
			continue
		}
		b, err := sock.read()
		c.mu.Lock()
		if c.sock != sock {
			// Taken over by a resume, whose stream/resumed did not count
			// b: the client sends it again.
			c.mu.Unlock()
			continue
		}
		if err == nil {
			c.received++
			c.mu.Unlock()
			return b, nil
		}
		if !c.resumable || c.done || !socketDropped(err) {
			c.mu.Unlock()
			return nil, err
		}
		c.detachLocked()
		c.mu.Unlock()
		sock.drop()
		c.s.log.Debug("acphttp: WebSocket dropped; connection kept for a resume", "connection", c.id, "err", err)
	}
}

// socketDropped reports whether a read error is the socket's loss rather
// than an end: no close frame, the transport failed or this side gave the
// socket up.
func socketDropped(err error) bool {
	if errors.Is(err, errSocketDropped) {
		return true
	}
	// wsLink.read's plain io.EOF is a close frame or this side's close.
	if err == io.EOF || websocket.CloseStatus(err) != -1 || errors.Is(err, errSlowBody) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// write sends one agent message, numbered; while the socket is gone it is
// held for the client's resume.
func (c *wsConn) write(msg []byte) error {
	if !c.resumable {
		c.mu.Lock()
		sock := c.sock
		c.mu.Unlock()
		if sock == nil {
			return errConnClosed
		}
		return sock.write(msg)
	}
	charge, err := c.waitRoom(int64(len(msg)) + outputOverhead)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.send(nil, msg, charge)
}

// send numbers msg and writes it to l, or with l nil to the socket
// attached, holding it when there is none. Called with wmu held.
// ch is what waitRoom charged for it.
func (c *wsConn) send(l *wsLink, msg []byte, ch int64) error {
	slot := findCursorSlot(msg)
	tag := c.box.tag
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		c.s.budget.give(ch, false)
		return errConnClosed
	}
	c.box.next++
	n := c.box.next
	sock := l
	if sock == nil {
		sock = c.sock
	}
	if sock == nil {
		c.holdLocked(entry{n: n, msg: withCursor(msg, slot, tag, n)}, ch)
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	c.s.budget.give(ch, false)
	// The message is stamped into a buffer wmu keeps: the socket's write
	// copies it, and the log copies it or is given a copy (entry.borrowed).
	c.stamp = appendStamped(c.stamp[:0], msg, slot, tag, n)
	e := entry{n: n, msg: c.stamp, borrowed: true}
	if cap(c.stamp) > maxStamp {
		c.stamp = nil
	}
	err := sock.write(e.msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return errConnClosed
	}
	if err == nil {
		c.deliveredLocked(e)
		return nil
	}
	if l != nil {
		return err
	}
	if c.sock == sock {
		c.detachLocked()
		go sock.drop()
	}
	c.holdLocked(entry{n: n, msg: bytes.Clone(e.msg)}, 0)
	return nil
}

// maxStamp is the largest buffer a connection keeps for stamping messages
// between them: a larger message's goes when it has been sent.
const maxStamp = 64 << 10

// holdLocked queues e for the next socket. Called with mu held.
func (c *wsConn) holdLocked(e entry, charge int64) {
	c.box.q = append(c.box.q, e)
	c.buffered += len(e.msg)
	c.charged += charge
}

// waitRoom waits while the socket is gone and the connection holds
// MaxBuffered; if no socket comes back within StallTimeout the connection
// closes. While the socket is gone, it charges n to the server's budget.
func (c *wsConn) waitRoom(n int64) (int64, error) {
	var timer *time.Timer
	c.mu.Lock()
	for c.sock == nil && !c.done && c.buffered >= c.s.o.MaxBuffered {
		if timer == nil {
			timer = time.NewTimer(c.s.o.StallTimeout)
			defer timer.Stop()
		}
		attached := c.attached
		c.mu.Unlock()
		select {
		case <-attached:
		case <-timer.C:
			c.s.log.Warn("acphttp: closing WebSocket connection whose client did not come back", "connection", c.id)
			c.shut(errStalled)
			return 0, errStalled
		}
		c.mu.Lock()
	}
	detached, done := c.sock == nil, c.done
	c.mu.Unlock()
	if done {
		return 0, errConnClosed
	}
	if !detached {
		return 0, nil
	}
	charge, err := c.s.budget.take(c.ended, n, false, nil, false)
	if err != nil {
		return 0, errConnClosed
	}
	return charge, nil
}

// stalled reports whether the socket has been gone for StallTimeout while
// the connection holds output.
func (c *wsConn) stalled(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.done && c.sock == nil && c.charged > 0 && now.Sub(c.since) >= c.s.o.StallTimeout
}

// endLocked marks the connection over: held output and retained messages
// are dropped; the reader and writers waiting wake. It returns the socket
// attached, if any. Called with mu held.
func (c *wsConn) endLocked() *wsLink {
	if c.done {
		return nil
	}
	c.done = true
	c.box.q = nil
	c.buffered = 0
	c.s.budget.give(c.charged, false)
	c.charged = 0
	c.box.dropLog(c.s)
	close(c.ended)
	c.wakeLocked()
	sock := c.sock
	c.sock = nil
	return sock
}

// shut ends the connection from this side (idle, stalled): the agent's
// context is cancelled.
func (c *wsConn) shut(err error) {
	c.mu.Lock()
	sock := c.endLocked()
	c.mu.Unlock()
	if sock != nil {
		sock.close()
	}
	if c.sc.cancel != nil {
		c.sc.cancel()
	}
}

// close ends the connection: the socket attached is closed with 1000, or
// 1001 when the server is shutting down.
func (c *wsConn) close() error {
	return c.closeSocket(func(l *wsLink) error {
		if c.goingAway.Load() {
			l.goingAway.Store(true)
		}
		return l.close()
	})
}

// fail ends the connection with 1011 and reason.
func (c *wsConn) fail(reason string) error {
	return c.closeSocket(func(l *wsLink) error { return l.fail(reason) })
}

func (c *wsConn) closeSocket(close func(*wsLink) error) error {
	c.mu.Lock()
	sock := c.endLocked()
	c.mu.Unlock()
	if sock == nil {
		return nil
	}
	return close(sock)
}
