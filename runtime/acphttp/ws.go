package acphttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/coder/websocket"
)

// wsLink carries one JSON-RPC message per text frame.
type wsLink struct {
	c            *websocket.Conn
	ctx          context.Context // ends when the link closes
	cancel       context.CancelFunc
	writeTimeout time.Duration
	log          *slog.Logger
	// budget, on the server side, charges messages while they are read,
	// each within bodyTimeout once its first frame has arrived.
	budget      *budget
	bodyTimeout time.Duration
	// goingAway makes close use 1001: the server is shutting down.
	goingAway atomic.Bool
	// closing is set before this side closes the socket: a read that then
	// fails (the library reports the closed connection before close
	// returns and the read's context is cancelled) is the end of input.
	closing atomic.Bool
	// dropped is set when this side gave the socket up for dead (an
	// unanswered ping, a write that timed out): a read then fails with
	// errSocketDropped rather than io.EOF, so a resumable connection waits
	// for its client to come back.
	dropped atomic.Bool
	// nonText bounds the warnings about frames a client may send by the
	// thousand.
	nonText peerlog.Limiter
	// pingTimer runs the next ping (nil without pings).
	pingTimer atomic.Pointer[time.Timer]
	// wmu makes one write at a time; stall, made by the first, closes the
	// socket when a write has waited writeTimeout.
	wmu   sync.Mutex
	stall *time.Timer
}

func newWSLink(c *websocket.Conn, maxMessage int, writeTimeout, ping time.Duration, log *slog.Logger) *wsLink {
	c.SetReadLimit(int64(maxMessage))
	ctx, cancel := context.WithCancel(context.Background())
	l := &wsLink{c: c, ctx: ctx, cancel: cancel, writeTimeout: writeTimeout, log: log}
	if ping > 0 {
		// Armed once stored: the first ping re-arms it through pingTimer.
		t := time.AfterFunc(time.Hour, func() { l.ping(ping) })
		l.pingTimer.Store(t)
		t.Reset(ping)
		context.AfterFunc(ctx, func() { t.Stop() })
	}
	return l
}

// ping pings the peer and closes the socket when the ping goes unanswered
// for an interval: the peer is gone without closing it. A timer runs it
// once per interval, so an idle connection holds no goroutine for it.
func (l *wsLink) ping(every time.Duration) {
	if l.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(l.ctx, every)
	err := l.c.Ping(ctx)
	cancel()
	switch {
	case l.ctx.Err() != nil:
	case err != nil:
		level := slog.LevelWarn
		if l.closing.Load() || peerGone(err) {
			level = slog.LevelDebug
		}
		l.log.Log(context.Background(), level, "acphttp: WebSocket ping failed, closing", "err", err)
		l.drop()
	default:
		l.pingTimer.Load().Reset(every)
	}
}

// errSocketDropped is a read from a socket this side gave up for dead.
// errSocketDropped is a read from a socket this side gave up for dead.
var errSocketDropped = errors.New("acphttp: WebSocket dropped")

// drop gives the socket up for dead: closed without a close frame, a read
// in progress fails with errSocketDropped.
func (l *wsLink) drop() {
	l.dropped.Store(true)
	l.cancel()
	l.c.CloseNow()
}

func (l *wsLink) read() ([]byte, error) {
	for {
		typ, b, err := l.next()
		if err != nil {
			if l.dropped.Load() {
				return nil, errSocketDropped
			}
			if l.ctx.Err() != nil || l.closing.Load() {
				return nil, io.EOF
			}
			switch websocket.CloseStatus(err) {
			case websocket.StatusNormalClosure, websocket.StatusGoingAway, websocket.StatusNoStatusRcvd:
				return nil, io.EOF
			}
			return nil, err
		}
		if typ != websocket.MessageText {
			l.nonText.Log(l.log, slog.LevelWarn, "acphttp: non-text WebSocket frame ignored")
			continue
		}
		return b, nil
	}
}

// next reads one message. On the server side its bytes count against the
// budget while it is read: they leave it when read returns them to the
// jsonrpc reader, which takes them at once. A binary message is skipped
// unread.
func (l *wsLink) next() (websocket.MessageType, []byte, error) {
	if l.budget == nil {
		return l.c.Read(l.ctx)
	}
	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	typ, r, err := l.c.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	if typ != websocket.MessageText {
		_, err := io.Copy(io.Discard, r)
		return typ, nil, err
	}
	var timer *time.Timer
	deadline := func(d time.Duration) {
		if timer != nil {
			timer.Stop()
		}
		if d > 0 {
			timer = time.AfterFunc(d, cancel) // the library closes the socket
		}
	}
	b, charged, err := l.budget.readChunked(r, l.ctx.Done(), l.bodyTimeout, deadline, false)
	l.budget.give(charged, true)
	if err != nil && ctx.Err() != nil && l.ctx.Err() == nil {
		err = errSlowBody
	}
	return typ, b, err
}

// write waits for the socket at most writeTimeout: a socket whose peer
// reads none of the output for that long is dropped (drop), and no output
// queues on it meanwhile.
// The bound is one timer per link, re-armed for each write: a context with
// a deadline per message, which the library also watches per frame, took
// about a third of the CPU a streamed update costs.
func (l *wsLink) write(msg []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if l.stall == nil {
		l.stall = time.AfterFunc(l.writeTimeout, l.drop) // given up for dead: a resumable connection waits for its client
	} else {
		l.stall.Reset(l.writeTimeout)
	}
	err := l.c.Write(context.Background(), websocket.MessageText, msg)
	l.stall.Stop()
	return err
}

func (l *wsLink) close() error {
	if l.goingAway.Load() {
		return l.closeWith(websocket.StatusGoingAway, "Server shutting down")
	}
	return l.closeWith(websocket.StatusNormalClosure, "")
}

// fail closes the socket with 1011 (internal error) and reason.
func (l *wsLink) fail(reason string) error {
	return l.closeWith(websocket.StatusInternalError, reason)
}

// closeWith closes the socket with a status, then unblocks a pending read.
// The close frame goes first: cancelling the read first would drop the
// socket without one.
func (l *wsLink) closeWith(code websocket.StatusCode, reason string) error {
	l.closing.Store(true)
	err := l.c.Close(code, reason)
	l.cancel()
	var ce websocket.CloseError
	if errors.As(err, &ce) || errors.Is(err, net.ErrClosed) {
		return nil // already closed, by the peer or by us
	}
	return err
}

// serveWebSocket upgrades r and runs a connection on the socket, or hands
// the socket to the connection its first message resumes.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, principal string) {
	// A resume needs no room of its own: it takes back a connection in use.
	if s.full() && !s.has(r.Header.Get(HeaderConnectionID)) {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	id := newConnectionID()
	c := newWSConn(s, id)
	w.Header().Set(HeaderConnectionID, id)
	if c.resumable {
		w.Header().Set(HeaderStreamCursor, formatCursor(c.box.tag, 0))
	}
	// Origins were checked already; Accept's own check would refuse the
	// patterns Options documents with a scheme.
	ws, err := websocket.Accept(smallReads{w}, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		s.log.Debug("acphttp: WebSocket upgrade failed", "err", err)
		return
	}
	l := newWSLink(ws, s.o.MaxMessage, s.o.StallTimeout, s.o.PingInterval, s.log)
	l.budget, l.bodyTimeout = s.budget, s.o.BodyTimeout
	c.sock = l
	conn := &Conn{l: c, profile: WebSocket, id: id, principal: principal}
	c.conn = conn
	away := func() { c.goingAway.Store(true) }
	// kill closes the socket itself: a ServeFunc may be reading it without
	// watching its context (a router waiting for initialize).
	kill := func() { away(); go conn.Close() }
	sc := &serverConn{principal: principal, kill: kill, away: away, ws: c}
	sc.pooled.close = func(err error) {
		if err == errInitTimeout {
			l.closeWith(websocket.StatusPolicyViolation, "No initialize in time")
		} else {
			l.closeWith(websocket.StatusTryAgainLater, "Too many connections waiting for initialize")
		}
	}
	sc.gate = func() bool { return c.gate(l) }
	c.sc = sc
	if err := s.open(conn, sc); err != nil {
		ws.Close(websocket.StatusTryAgainLater, "Server busy")
	}
}

// wsReadBuffer is the read buffer a server WebSocket keeps for its life, in
// place of the 4 KiB net/http reads a request with. Client messages are
// few (prompts, cancels, answers): a larger one is read past the buffer,
// straight into the message, at the cost of a read call or two, while every
// idle connection saves the difference.
const wsReadBuffer = 512

// smallReads hands the WebSocket library, at the upgrade, a connection whose
// read buffer is wsReadBuffer bytes. What the client sent after its upgrade
// request and net/http had read already is in that buffer.
type smallReads struct{ http.ResponseWriter }

func (w smallReads) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	early, _ := brw.Reader.Peek(brw.Reader.Buffered())
	early = bytes.Clone(early)
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(early), conn), max(wsReadBuffer, len(early)))
	if _, err := br.Peek(len(early)); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, bufio.NewReadWriter(br, brw.Writer), nil
}

func (w smallReads) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// has reports whether a connection id is open.
func (s *Server) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return id != "" && s.conns[id] != nil
}
