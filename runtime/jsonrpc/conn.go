package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Handler receives inbound messages. The generated dispatcher implements it.
type Handler interface {
	// HandleRequest handles one request and returns the JSON of its result,
	// or an error: a *wire.RPCError is sent as is; anything with an
	// RPCError() *wire.RPCError method is converted with it; any other error
	// becomes -32603 internal error whose message is the error text. ctx is
	// cancelled when the peer sends $/cancel_request for this id or the
	// connection shuts down; a handler that then returns any error is
	// answered -32800 request cancelled. params is nil when absent or null;
	// it stays valid after the handler returns.
	HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error)
	// HandleNotification handles one notification; notifications are never
	// answered. Calls are made one at a time, in arrival order; ctx is
	// cancelled when the connection shuts down; params is nil when absent
	// or null.
	HandleNotification(ctx context.Context, method string, params wire.Raw)
}

// Options tune a Conn; the zero value is usable. The bounds are described
// under "Flow control" in the package documentation.
type Options struct {
	// MaxFrame is the maximum length in bytes of one line, without its line
	// terminator. Longer lines are answered -32600 and skipped. Default
	// DefaultMaxFrame.
	MaxFrame int
	// Logger receives the runtime's logs. Default: a text handler on
	// os.Stderr (stdout carries the protocol).
	Logger *slog.Logger
	// MaxConcurrent bounds the inbound request handlers running at once;
	// other requests in flight wait for a slot. Default DefaultMaxConcurrent.
	MaxConcurrent int
	// MaxInFlight bounds the inbound requests read and not yet answered:
	// waiting for a slot, running, or waiting to write their answer.
	// Default DefaultMaxInFlight.
	MaxInFlight int
	// MaxBuffered bounds the bytes of inbound frames the connection holds:
	// the requests in flight and the notifications queued or being handled,
	// each counted as its length plus FrameOverhead. A frame larger than the
	// bound is taken when nothing else is held. Default DefaultMaxBuffered.
	MaxBuffered int
}

// Defaults for Options.
const (
	DefaultMaxFrame      = 64 << 20
	DefaultMaxConcurrent = 64
	DefaultMaxInFlight   = 256
	DefaultMaxBuffered   = 64 << 20
)

// FrameOverhead is what each held frame counts against Options.MaxBuffered
// on top of its length: the bookkeeping that goes with it.
const FrameOverhead = 256

// CodeOverloaded is the error code of the answer to a request refused
// because the connection is at its bounds (Options.MaxInFlight,
// Options.MaxBuffered) while pausing the reader could deadlock; see "Flow
// control" in the package documentation. The request was not handled: the
// peer may send it again later.
const CodeOverloaded wire.ErrorCode = -32001

// CancelRequestMethod is the protocol-level notification that cancels an
// in-flight request; params {"requestId": id}.
const CancelRequestMethod = "$/cancel_request"

// ErrClosed is returned by Call and Notify once the connection has shut down.
var ErrClosed = errors.New("jsonrpc: connection closed")

// ErrMalformedResponse is wrapped by the error a Call returns when the peer
// answers it with a response that breaks JSON-RPC (e.g. both result and
// error).
var ErrMalformedResponse = errors.New("jsonrpc: malformed response")

// MessageReader is implemented by a reader whose transport frames messages
// itself (a WebSocket, an HTTP stream). NewConn then takes one message per
// ReadMessage call instead of splitting lines; the Conn keeps the slice
// returned. ReadMessage returns io.EOF at the end of the input. A message
// longer than Options.MaxFrame is answered -32600 and skipped, like a long
// line; a transport should refuse one while reading it.
type MessageReader interface {
	ReadMessage() ([]byte, error)
}

// MessageWriter is implemented by a writer whose transport frames messages
// itself. NewConn then calls WriteMessage once per message, one call at a
// time, with the message's JSON and no line terminator; msg is reused once
// the call returns.
type MessageWriter interface {
	WriteMessage(msg []byte) error
}

// Conn is one JSON-RPC connection. Its methods are safe for concurrent use.
type Conn struct {
	h           Handler
	log         *slog.Logger
	maxFrame    int
	maxInFlight int
	maxBuffered int
	sem         chan struct{} // one token per running request handler

	r   io.Reader
	br  *bufio.Reader // nil when mr frames the input
	mr  MessageReader
	dec wire.Decoder // used by the reader goroutine only

	w     io.Writer
	mw    MessageWriter // nil when w takes newline-terminated frames
	wlock chan struct{} // a lock that a waiter can abandon when its ctx ends
	werr  error         // sticky write error, guarded by wlock

	lastID atomic.Int64

	mu       sync.Mutex
	started  bool
	closed   bool
	base     context.Context // parent of handler contexts, set by Run
	stop     context.CancelCauseFunc
	pending  map[int64]*pendingCall
	inflight map[string]*inbound // by idKey; duplicates chained

	// Flow control, guarded by mu; see "Flow control" in the package doc.
	flow     sync.Cond // the reader waits on it for room; L is &mu
	waiting  bool      // the reader is waiting on flow
	requests int       // admitted requests not yet answered
	awaiting int       // open AwaitingInput marks
	held     int       // bytes counted for admitted requests and queued notifications
	noteHeld int       // of held, the notifications' share
	direct   int       // pending calls made from notification handlers

	// Inline requests, guarded by mu; see runInline. inlining is set while a
	// request runs inline and no goroutine reads: a goroutine that ends an
	// inline request while it is set clears it and reads on, handOff clears
	// it and starts a reader. So one goroutine reads at a time (not always the
	// one that set it).
	inlining bool
	runs     uint64      // requests run inline so far
	watched  uint64      // the value of runs at the watchdog's last tick
	ticking  bool        // the watchdog is armed
	watchdog *time.Timer // ticks every inlineSlice while requests run inline

	readDone chan error // the reading role's end: nil at EOF, or the read error
	notes    queue
	wg       sync.WaitGroup // handlers and the notification goroutine
	done     chan struct{}  // closed at shutdown
	closing  chan struct{}  // closed by Close
	jobs     chan job       // unbuffered: hand-off to an idle worker
	once     sync.Once

	// Drain, guarded by mu; see Drain. drained is closed once a drain has
	// nothing left to wait for.
	drain     *Drain
	draining  bool
	drainDone bool
	drained   chan struct{}

	warns [numWarns]peerlog.Limiter // per-frame warnings, rate-limited
}

type pendingCall struct {
	method string
	ch     chan callResult // buffered: the reader never blocks on it
	// abandoned marks a call whose caller gave up (its ctx ended); the entry
	// stays so the peer's late answer is recognised and dropped quietly.
	abandoned bool
	// direct marks a call made from a notification handler.
	direct bool
}

// errPeerCancelled is the cancellation cause of a request the peer cancelled
// with $/cancel_request.
var errPeerCancelled = errors.New("jsonrpc: cancelled by the peer")

type callResult struct {
	result wire.Raw
	err    error
}

// inbound is one request being handled, for $/cancel_request.
type inbound struct {
	key    string
	cancel context.CancelCauseFunc
	next   *inbound // another in-flight request with the same id
	cost   int      // counted against MaxBuffered
}

// NewConn returns a connection reading frames from r and writing them to w:
// newline-delimited JSON, unless r is a MessageReader or w a MessageWriter.
// Nothing is read until Run is called.
func NewConn(r io.Reader, w io.Writer, h Handler, o Options) *Conn {
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	o.MaxFrame = min(o.MaxFrame, math.MaxInt-2) // readFrame adds 2
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = DefaultMaxBuffered
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	c := &Conn{
		h:           h,
		log:         o.Logger,
		maxFrame:    o.MaxFrame,
		maxInFlight: o.MaxInFlight,
		maxBuffered: o.MaxBuffered,
		sem:         make(chan struct{}, o.MaxConcurrent),
		r:           r,
		w:           w,
		wlock:       make(chan struct{}, 1),
		pending:     make(map[int64]*pendingCall),
		inflight:    make(map[string]*inbound),
		done:        make(chan struct{}),
		closing:     make(chan struct{}),
		jobs:        make(chan job),
	}
	if c.mr, _ = r.(MessageReader); c.mr == nil {
		c.br = bufio.NewReaderSize(r, min(64<<10, o.MaxFrame+2))
	}
	c.mw, _ = w.(MessageWriter)
	c.flow.L = &c.mu
	c.notes.init()
	c.watchdog = time.AfterFunc(time.Hour, c.tick)
	c.watchdog.Stop()
	return c
}

// Done returns a channel closed when the connection shuts down.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Run reads and dispatches frames until EOF (returns nil), until ctx ends
// (returns ctx.Err()), until Close (returns nil), until the drain ctx
// carries has finished (returns nil; see Drain) or a read error (returned).
// Handler contexts derive from ctx. Before returning, Run cancels in-flight
// handlers and waits for them; see the package documentation on shutdown.
// Run may be called once.
func (c *Conn) Run(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return errors.New("jsonrpc: Run called twice")
	}
	c.started = true
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.base, c.stop = context.WithCancelCause(ctx)
	c.readDone = make(chan error, 1) // buffered: an abandoned reader still exits
	c.drained = make(chan struct{})
	c.drain = DrainFrom(ctx)
	c.wg.Add(1)
	c.mu.Unlock()

	go c.notificationLoop()
	if c.drain != nil {
		c.drain.attach(c)
		defer c.drain.detach(c)
	}
	go c.read()

	var err error
	early := true // stopped before the reader finished
	select {
	case err = <-c.readDone:
		early = false
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.closing:
	case <-c.drained:
	}
	select {
	case <-c.closing:
		// A read error caused by Close closing the reader is no error.
		err = nil
	default:
	}
	c.shutdown(early)
	c.wg.Wait()
	return err
}

// Close shuts the connection down: in-flight handler contexts are cancelled,
// pending and later Calls and Notifies fail with ErrClosed, and the reader is
// closed if it is an io.Closer so that Run's Read returns. Close does not wait
// (it may be called from a handler); Run returns once handlers have finished.
// The writer is not closed. Close returns the reader's Close error, if any.
func (c *Conn) Close() error {
	c.once.Do(func() { close(c.closing) })
	return c.shutdown(true)
}

// shutdown runs once; closeReader says whether to unblock a pending Read.
func (c *Conn) shutdown(closeReader bool) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	stop := c.stop
	c.wake() // a reader waiting for room stops waiting
	c.mu.Unlock()

	close(c.done) // wakes every Call still waiting
	if stop != nil {
		stop(nil)
	}
	c.notes.close()
	if closeReader {
		if rc, ok := c.r.(io.Closer); ok {
			return rc.Close()
		}
	}
	return nil
}

func (c *Conn) isClosed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// read holds the reading role: one goroutine at a time runs it, first the
// one Run starts, then each one handOff starts.
func (c *Conn) read() {
	if err := c.readLoop(); err != errHandedOff {
		c.readDone <- err
	}
}

// errHandedOff ends a readLoop whose reading role passed to another goroutine
// while it ran a request inline.
var errHandedOff = errors.New("jsonrpc: reading handed off")

// readLoop reads frames until EOF, a read error or handOff.
func (c *Conn) readLoop() error {
	for {
		frame, tooBig, err := c.next()
		if c.isClosed() {
			return nil
		}
		switch {
		case tooBig:
			c.warn(warnTooLarge, "jsonrpc: frame too large, skipped", "max", c.maxFrame)
			c.replyError(nil, invalidRequest(fmt.Sprintf("frame exceeds %d bytes", c.maxFrame)).rpc())
		case !blank(frame):
			if !c.handleFrame(frame, c.mayInline(err)) {
				return errHandedOff
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("jsonrpc: read: %w", err)
		}
	}
}

// mayInline reports whether a request just read may run inline (see
// runInline): only when the next frame has not arrived yet, so that the
// reader would wait anyway. Frames already buffered (a peer pipelining
// requests) go to workers, and the reader reads on while they run. A frame
// read with the input's end never runs inline: the goroutine taking over
// would read past the end again.
func (c *Conn) mayInline(err error) bool {
	return err == nil && (c.br == nil || c.br.Buffered() == 0)
}

// next returns the next frame: a message of a MessageReader, or a line.
func (c *Conn) next() (frame []byte, tooBig bool, err error) {
	if c.mr == nil {
		return c.readFrame()
	}
	frame, err = c.mr.ReadMessage()
	if len(frame) > c.maxFrame {
		return nil, true, err
	}
	return frame, false, err
}

// readFrame returns the next line without its terminator. A line longer than
// maxFrame is consumed chunk by chunk and dropped (tooBig). A final line
// without a newline is returned together with io.EOF.
//
// A line longer than the read buffer is kept in parts and assembled once at
// its end, so reading it allocates twice its length (not the several times
// that growing one slice would).
func (c *Conn) readFrame() (frame []byte, tooBig bool, err error) {
	limit := c.maxFrame + 2 // room for "\r\n", checked exactly below
	var parts [][]byte
	size := 0
	for {
		chunk, err := c.br.ReadSlice('\n')
		if !tooBig {
			switch {
			case size+len(chunk) > limit:
				tooBig, parts = true, nil
			case size == 0 && err != bufio.ErrBufferFull:
				// The usual case: the whole line was buffered. Copy it, as
				// handlers keep slices of it after the next read.
				frame = append(make([]byte, 0, len(chunk)), chunk...)
			default:
				parts = append(parts, append(make([]byte, 0, len(chunk)), chunk...))
				size += len(chunk)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooBig {
			return nil, true, err
		}
		if parts != nil {
			frame = make([]byte, 0, size)
			for i, p := range parts {
				frame = append(frame, p...)
				parts[i] = nil // collectable as soon as copied
			}
		}
		frame = trimEOL(frame)
		if len(frame) > c.maxFrame {
			return nil, true, err
		}
		return frame, false, err
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// handleFrame classifies one frame and dispatches it, on the reader goroutine.
// It reports whether this goroutine still holds the reading role; mayInline
// lets a request run on it (see runInline).
func (c *Conn) handleFrame(frame []byte, mayInline bool) (reading bool) {
	var m message
	e := parse(&c.dec, frame, &m)
	c.dec.Reset(nil, wire.Strict) // hold on to no frame between reads
	if e != nil {
		c.warn(warnRejected, "jsonrpc: rejected frame", "code", e.code, "reason", e.reason, "frame", preview(frame))
		if m.kind == kindResponse && m.callID != 0 {
			// Release the Call waiting for this answer rather than leave it hanging.
			c.deliver(m.callID, m.id, callResult{err: fmt.Errorf("%w: %s", ErrMalformedResponse, e.reason)})
		}
		c.replyError(m.replyID, e.rpc())
		return true
	}
	switch m.kind {
	case kindRequest:
		return c.startRequest(&m, len(frame)+FrameOverhead, mayInline)
	case kindNotification:
		if m.method == CancelRequestMethod {
			c.cancelInbound(m.params)
			return true
		}
		c.queueNotification(note{method: m.method, params: m.params, cost: len(frame) + FrameOverhead})
	case kindResponse:
		if m.callID == 0 {
			c.logUnknownResponse(&m)
			return true
		}
		var r callResult
		if m.rpcErr != nil {
			r.err = m.rpcErr
		} else {
			r.result = m.result
		}
		// A response must not overtake the notifications read before it: the
		// caller may rely on their effects (ACP: a turn's session/update
		// notifications precede its session/prompt response).
		if !c.isDirect(m.callID) {
			id, rawID := m.callID, append(wire.Raw(nil), m.id...)
			if c.notes.pushIfBusy(note{then: func() { c.deliver(id, rawID, r) }}) {
				return true
			}
		}
		c.deliver(m.callID, m.id, r)
	}
	return true
}

// isDirect reports whether the call waiting for id was made from a
// notification handler, whose response is delivered without waiting.
func (c *Conn) isDirect(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending[id]
	return p != nil && p.direct
}

// deliver hands a response to the Call waiting for id.
func (c *Conn) deliver(id int64, rawID wire.Raw, r callResult) {
	c.mu.Lock()
	p := c.dropPending(id)
	abandoned := p != nil && p.abandoned
	c.mu.Unlock()
	switch {
	case p == nil:
		c.warn(warnUnknownID, "jsonrpc: response to unknown id ignored", "id", string(rawID))
	case abandoned:
		c.log.Debug("jsonrpc: late response to abandoned call ignored", "id", id, "method", p.method)
	default:
		p.ch <- r
	}
}

func (c *Conn) logUnknownResponse(m *message) {
	if m.rpcErr != nil {
		c.warn(warnUnknownID, "jsonrpc: error response to unknown id ignored", "id", string(m.id), "code", m.rpcErr.Code, "message", m.rpcErr.Message)
		return
	}
	c.warn(warnUnknownID, "jsonrpc: response to unknown id ignored", "id", string(m.id))
}

// dropPending removes the pending call id and returns it (nil if none).
// Called with mu held.
func (c *Conn) dropPending(id int64) *pendingCall {
	p := c.pending[id]
	if p == nil {
		return nil
	}
	delete(c.pending, id)
	if p.direct {
		c.direct--
	}
	c.wake()
	return p
}

// wake tells a reader waiting for room that the state it waits on changed.
// Called with mu held.
func (c *Conn) wake() {
	if c.waiting {
		c.flow.Signal()
	}
}

// wait blocks the reader until wake. Called with mu held.
func (c *Conn) wait() {
	c.waiting = true
	c.flow.Wait()
	c.waiting = false
}

// pauseSafe reports whether the reader may stop reading until a request
// finishes without risking a deadlock: no Call of ours waits for an answer
// (it may be behind the frames not read yet) and no handler said it awaits
// a later message (AwaitingInput). Called with mu held.
func (c *Conn) pauseSafe() bool {
	return len(c.pending) == 0 && c.awaiting == 0
}

// AwaitingInput tells the Conn that a handler may wait for a later inbound
// message other than the answer to its own Call (which the Conn knows of):
// an ACP prompt turn runs until session/cancel, say. Until done is called,
// the reader never pauses for room (see "Flow control" in the package
// documentation): a request past the bounds is refused with CodeOverloaded
// instead, so that the awaited message is still read. done may be called more
// than once.
func (c *Conn) AwaitingInput() (done func()) {
	c.mu.Lock()
	c.awaiting++
	c.wake()
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.awaiting--
			c.wake()
			c.mu.Unlock()
		})
	}
}

// Replies the runtime makes itself. They are shared, never mutated.
var errOverloaded = &wire.RPCError{Code: CodeOverloaded, Message: "Server overloaded: too many requests in flight; retry later"}

// startRequest admits an inbound request, once there is room for it, and
// runs it inline (see runInline) or hands it to a worker; past the bounds,
// when pausing is not safe, it refuses the request with CodeOverloaded. cost
// is what the frame counts against MaxBuffered. It reports whether this
// goroutine still holds the reading role.
func (c *Conn) startRequest(m *message, cost int, mayInline bool) (reading bool) {
	in := &inbound{key: idKey(m.id), cost: cost}
	c.mu.Lock()
	for !c.closed && !c.draining && !(c.requests < c.maxInFlight && (c.held+cost <= c.maxBuffered || c.held == 0)) {
		if !c.pauseSafe() {
			n, held := c.requests, c.held
			c.mu.Unlock()
			c.warn(warnRefused, "jsonrpc: request refused, the connection is at its bounds", "method", m.method, "id", string(m.id),
				"inFlight", n, "maxInFlight", c.maxInFlight, "held", held, "maxBuffered", c.maxBuffered)
			c.replyError(m.id, errOverloaded)
			return true
		}
		c.wait()
	}
	if c.closed {
		// Read as the connection shut down (Close, end of Run's context).
		c.mu.Unlock()
		c.log.Debug("jsonrpc: request read during shutdown not handled", "method", m.method, "id", string(m.id))
		return true
	}
	if c.draining {
		c.mu.Unlock()
		c.log.Debug("jsonrpc: request read while draining refused", "method", m.method, "id", string(m.id))
		c.replyError(m.id, errShuttingDown)
		return true
	}
	c.requests++
	c.held += cost
	ctx, cancel := context.WithCancelCause(c.base)
	in.cancel = cancel
	in.next = c.inflight[in.key]
	c.inflight[in.key] = in
	c.wg.Add(1) // under mu, so it happens before shutdown's Wait
	// Inline only when the reader could pause anyway (no answer or later
	// message awaited) and a handler slot is free at once.
	inline := mayInline && c.pauseSafe() && c.trySlot()
	if inline {
		c.inlining = true
		c.runs++
		if !c.ticking {
			c.ticking, c.watched = true, c.runs
			c.watchdog.Reset(inlineSlice)
		}
	}
	c.mu.Unlock()
	j := job{ctx, in, m.id, m.method, m.params}
	if inline {
		return c.runInline(j)
	}
	select {
	case c.jobs <- j: // an idle worker takes it
	default:
		c.wg.Add(1)
		go c.worker(j)
	}
	return true
}

// trySlot takes a handler slot if one is free.
func (c *Conn) trySlot() bool {
	select {
	case c.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// inlineSlice is the watchdog's period: a request runs inline, answer
// written included, for one to two periods before the reading role passes to
// a new goroutine.
const inlineSlice = 200 * time.Microsecond

// runInline runs a request on the goroutine holding the reading role, with a
// slot already taken: no hand-off to a worker and back (two goroutine
// switches and a wake-up per request). The reader stops meanwhile, so the
// role passes to a new goroutine (handOff) as soon as anything makes a Call,
// whose answer the reader must read, or once the request has run for one to
// two inlineSlice periods (tick), as it may be waiting for anything (a
// $/cancel_request, a later request, the peer to read our writes). It reports
// whether this goroutine still holds the role.
func (c *Conn) runInline(j job) (reading bool) {
	c.answer(j, true)
	c.mu.Lock()
	reading = c.inlining
	c.inlining = false
	c.mu.Unlock()
	c.wg.Done()
	return reading
}

// tick is the watchdog: it hands the reading role off from a request that has
// run inline since the last tick, and ticks again while requests run inline.
// A watchdog rather than a timer per request: arming and stopping a timer for
// every request would cost a good part of what running inline saves.
func (c *Conn) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.inlining {
		c.ticking = false
		return
	}
	if c.runs == c.watched {
		c.handOff()
		c.ticking = false
		return
	}
	c.watched = c.runs
	c.watchdog.Reset(inlineSlice)
}

// handOff passes the reading role from a request running inline to a new
// goroutine. After shutdown nothing more is read, so none starts. Called with
// mu held.
func (c *Conn) handOff() {
	if !c.inlining {
		return
	}
	c.inlining = false
	if !c.closed {
		go c.read()
	}
}

// job is one inbound request for a worker.
type job struct {
	ctx    context.Context
	in     *inbound
	id     wire.Raw
	method string
	params wire.Raw
}

// worker serves requests until shutdown. Workers are reused rather than one
// goroutine started per request: a fresh goroutine's small stack grows (and
// is copied) on every request deep in decoding; a warm one has grown already.
// There are never more workers than requests were once in flight together.
func (c *Conn) worker(j job) {
	defer c.wg.Done()
	for {
		c.serve(j)
		select {
		case j = <-c.jobs:
		case <-c.done:
			return
		}
	}
}

// untrack forgets a request whose handler has returned (or will not run)
// for $/cancel_request and cancels its context.
func (c *Conn) untrack(in *inbound) {
	c.mu.Lock()
	head := c.inflight[in.key]
	if head == in {
		if in.next == nil {
			delete(c.inflight, in.key)
		} else {
			c.inflight[in.key] = in.next
		}
	} else {
		for p := head; p != nil; p = p.next {
			if p.next == in {
				p.next = in.next
				break
			}
		}
	}
	c.mu.Unlock()
	in.cancel(nil)
}

// answered releases what an answered request held.
func (c *Conn) answered(in *inbound) {
	c.mu.Lock()
	c.requests--
	c.held -= in.cost
	c.wake()
	c.checkDrained()
	c.mu.Unlock()
}

// cancelInbound handles $/cancel_request.
func (c *Conn) cancelInbound(params wire.Raw) {
	id, ok := requestIDParam(params)
	if !ok {
		c.warn(warnBadCancel, "jsonrpc: malformed $/cancel_request ignored", "params", preview(params))
		return
	}
	key := idKey(id)
	c.mu.Lock()
	in := c.inflight[key]
	for p := in; p != nil; p = p.next {
		p.cancel(errPeerCancelled)
	}
	c.mu.Unlock()
	if in == nil {
		c.log.Debug("jsonrpc: $/cancel_request for unknown id", "id", string(id))
	}
}

// Replies the runtime makes itself. They are shared, never mutated.
var (
	errPanic     = &wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error"}
	errCancelled = &wire.RPCError{Code: wire.CodeCancelled, Message: "Request cancelled"}
)

// serve waits for a handler slot, then runs the request's handler and
// answers it. The handler runs unless the peer cancelled the request before
// it started; shutdown does not keep it from running (its context is then
// already cancelled), so every request read before EOF is handled the same
// way whatever the timing.
func (c *Conn) serve(j job) {
	defer c.wg.Done()
	slot := true
	select {
	case c.sem <- struct{}{}:
	case <-j.ctx.Done():
		if slot = !peerCancelled(j.ctx); slot {
			c.sem <- struct{}{} // shutdown: the handler still runs
		}
	}
	c.answer(j, slot)
}

func peerCancelled(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errPeerCancelled)
}

// answer runs the handler, unless the peer has cancelled the request, and
// answers the request. slot says whether a handler slot is held for it; it is
// released as the handler returns.
func (c *Conn) answer(j job, slot bool) {
	ctx, in, id, method := j.ctx, j.in, j.id, j.method
	var (
		res      wire.Raw
		rerr     *wire.RPCError
		panicked bool
	)
	if peerCancelled(ctx) {
		// Cancelled by the peer before it started: the handler never runs.
		rerr = errCancelled
	} else {
		res, rerr, panicked = c.callHandler(ctx, id, method, j.params)
	}
	if slot {
		<-c.sem
	}
	cancelled := ctx.Err() != nil // before untrack, which cancels ctx
	c.untrack(in)
	switch {
	case rerr == nil:
		c.replyResult(id, method, res)
	case cancelled && !panicked:
		c.replyError(id, errCancelled)
	default:
		c.replyError(id, rerr)
	}
	c.answered(in)
}

// callHandler runs the handler and converts its error, both under recover:
// an error's Error or RPCError method is user code too.
func (c *Conn) callHandler(ctx context.Context, id wire.Raw, method string, params wire.Raw) (res wire.Raw, rerr *wire.RPCError, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("jsonrpc: request handler panicked", "method", method, "id", string(id), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res, rerr, panicked = nil, errPanic, true
		}
	}()
	res, err := c.h.HandleRequest(ctx, method, params)
	if err != nil {
		rerr = toRPCError(err)
		c.log.Debug("jsonrpc: request failed", "method", method, "id", string(id), "code", rerr.Code, "err", rerr.Message)
		return nil, rerr, false
	}
	return res, nil, false
}

// rpcErrorer is what wire.ValidationError and wire.GateError implement.
type rpcErrorer interface{ RPCError() *wire.RPCError }

func toRPCError(err error) *wire.RPCError {
	var re *wire.RPCError
	if errors.As(err, &re) {
		if re != nil {
			return re
		}
		return errPanic // a typed nil *RPCError: nothing to report but failure
	}
	var conv rpcErrorer
	if errors.As(err, &conv) {
		if re := conv.RPCError(); re != nil {
			return re
		}
	}
	return &wire.RPCError{Code: wire.CodeInternalError, Message: err.Error()}
}

// queueNotification queues an inbound notification for the notification
// goroutine once there is room for it (see "Flow control" in the package
// doc): it fits under MaxBuffered, or no other notification is held. Waiting
// for room needs only the notification goroutine, which makes progress on its
// own unless its handler waits for the answer to a Call of its own: then the
// notification is queued at once, as that answer may be behind it.
func (c *Conn) queueNotification(n note) {
	c.mu.Lock()
	for !c.closed && c.direct == 0 && c.held+n.cost > c.maxBuffered && c.noteHeld > 0 {
		c.wait()
	}
	c.held += n.cost
	c.noteHeld += n.cost
	c.mu.Unlock()
	c.notes.push(n)
}

// notificationLoop runs notification handlers one at a time, in order.
func (c *Conn) notificationLoop() {
	defer c.wg.Done()
	for {
		n, ok := c.notes.pop()
		if !ok {
			return
		}
		if n.then != nil {
			n.then()
		} else {
			c.callNotification(n)
		}
		c.notes.finish()
		if n.cost > 0 {
			c.mu.Lock()
			c.held -= n.cost
			c.noteHeld -= n.cost
			c.wake()
			c.mu.Unlock()
		}
	}
}

// inNotification marks the context notification handlers get: a Call made
// with it is answered at once, since holding its response behind the running
// notification (itself) would deadlock.
type inNotification struct{}

func (c *Conn) callNotification(n note) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("jsonrpc: notification handler panicked", "method", n.method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		}
	}()
	c.h.HandleNotification(context.WithValue(c.base, inNotification{}, true), n.method, n.params)
}

// Call sends a request and waits for its response. It returns the result
// JSON, or a *wire.RPCError when the peer answers with an error. When ctx ends
// first, Call sends "$/cancel_request" for the request and returns ctx.Err();
// the peer's late answer is dropped. After shutdown it returns ErrClosed.
// params may be nil (omitted); it must be valid JSON.
func (c *Conn) Call(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id := c.lastID.Add(1)
	p := &pendingCall{method: method, ch: make(chan callResult, 1), direct: ctx.Value(inNotification{}) != nil}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[id] = p // before writing: the answer may arrive at once
	if p.direct {
		c.direct++
	}
	c.wake()    // a waiting reader may no longer pause (see pauseSafe)
	c.handOff() // a request running inline must not keep the answer unread
	c.mu.Unlock()

	buf := getBuf()
	b, err := appendRequest(*buf, id, method, params)
	if err == nil {
		err = c.write(ctx, b)
	}
	putBuf(buf, b)
	if err != nil {
		c.mu.Lock()
		c.dropPending(id)
		c.mu.Unlock()
		return nil, err
	}

	select {
	case r := <-p.ch:
		return r.result, r.err
	case <-c.done:
		return nil, ErrClosed
	case <-ctx.Done():
	}
	c.mu.Lock()
	_, waiting := c.pending[id]
	if waiting {
		p.abandoned = true
	}
	c.mu.Unlock()
	if !waiting {
		// The answer won the race with ctx: it is in (or on its way to) p.ch.
		select {
		case r := <-p.ch:
			return r.result, r.err
		case <-c.done:
			return nil, ErrClosed
		}
	}
	if err := c.notify(context.WithoutCancel(ctx), CancelRequestMethod, appendCancelParams(nil, id)); err != nil && !errors.Is(err, ErrClosed) {
		c.log.Debug("jsonrpc: sending $/cancel_request failed", "id", id, "err", err)
	}
	return nil, ctx.Err()
}

// Notify sends a notification and returns once its frame is written. params
// may be nil (omitted); it must be valid JSON. If ctx ends while waiting for
// the writer, Notify returns ctx.Err() and nothing is written.
func (c *Conn) Notify(ctx context.Context, method string, params wire.Raw) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.notify(ctx, method, params)
}

func (c *Conn) notify(ctx context.Context, method string, params wire.Raw) error {
	if c.isClosed() {
		return ErrClosed
	}
	buf := getBuf()
	b, err := appendNotification(*buf, method, params)
	if err == nil {
		err = c.write(ctx, b)
	}
	putBuf(buf, b)
	return err
}

func (c *Conn) replyResult(id wire.Raw, method string, res wire.Raw) {
	buf := getBuf()
	b, err := appendResult(*buf, id, res)
	if err != nil {
		c.log.Error("jsonrpc: handler returned invalid result JSON", "method", method, "id", string(id), "err", err)
		b = appendError((*buf)[:0], id, &wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error: invalid result JSON"}, c.log)
	}
	c.writeReply(b)
	putBuf(buf, b)
}

func (c *Conn) replyError(id wire.Raw, e *wire.RPCError) {
	buf := getBuf()
	b := appendError(*buf, id, e, c.log)
	c.writeReply(b)
	putBuf(buf, b)
}

// writeReply writes a response; replies are owed even during shutdown, so it
// ignores the closed state. Failures are logged by write.
func (c *Conn) writeReply(b []byte) { _ = c.write(context.Background(), b) }

// write writes one whole frame. Once a write fails the stream may hold a
// partial frame, so every later write fails too.
func (c *Conn) write(ctx context.Context, b []byte) error {
	select {
	case c.wlock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.wlock }()
	if c.werr != nil {
		return c.werr
	}
	var err error
	if c.mw != nil {
		err = c.mw.WriteMessage(b[:len(b)-1]) // every frame ends in '\n'
	} else {
		_, err = c.w.Write(b)
	}
	if err != nil {
		c.werr = fmt.Errorf("jsonrpc: write: %w", err)
		level := slog.LevelError
		if c.ending() || peerlog.Gone(err) {
			level = slog.LevelDebug // the peer has gone: an ordinary end
		}
		c.log.Log(context.Background(), level, "jsonrpc: write failed; later writes will fail", "err", err)
		return c.werr
	}
	return nil
}

// preview shortens a frame for logs.
func preview(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// note is a queued inbound notification.
type note struct {
	method string
	params wire.Raw
	// then, when set, makes the item a response delivery that was held back
	// until the notifications read before the response had been handled.
	then func()
	// cost is what the notification counts against MaxBuffered.
	cost int
}

// queue is a FIFO of notifications. Pushing never blocks: the reader bounds
// what it pushes (queueNotification).
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []note
	head   int
	closed bool
	active bool // an item handed out by pop is still being handled
}

// pushIfBusy queues n behind pending or running items and reports whether it
// did; with the queue idle, the caller may act at once instead.
func (q *queue) pushIfBusy(n note) bool {
	q.mu.Lock()
	busy := q.active || q.head < len(q.items)
	if busy {
		q.items = append(q.items, n)
	}
	q.mu.Unlock()
	if busy {
		q.cond.Signal()
	}
	return busy
}

// finish marks the item last handed out by pop as handled.
func (q *queue) finish() {
	q.mu.Lock()
	q.active = false
	q.mu.Unlock()
}

func (q *queue) init() { q.cond.L = &q.mu }

func (q *queue) push(n note) {
	q.mu.Lock()
	q.items = append(q.items, n)
	q.mu.Unlock()
	q.cond.Signal()
}

// pop waits for the next notification; ok is false once the queue is closed
// and drained.
func (q *queue) pop() (n note, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) {
		if q.closed {
			return note{}, false
		}
		q.cond.Wait()
	}
	n = q.items[q.head]
	q.items[q.head] = note{} // let the frame be collected
	q.head++
	q.active = true
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return n, true
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
