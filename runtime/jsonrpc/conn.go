package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
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
	// answered -32800 request cancelled. ctx also ends once the request is
	// answered. params is nil when absent or null;
	// it stays valid after the handler returns.
	HandleRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error)
	// HandleNotification handles one notification; notifications are never
	// answered. Calls are made one at a time, in arrival order; ctx is
	// cancelled when the connection shuts down; params is nil when absent
	// or null.
	HandleNotification(ctx context.Context, method string, params wire.Raw)
}

// ArrivalHandler is a Handler that must act on messages in the order they
// were read: requests run concurrently and notifications on a goroutine of
// their own, so without it a handler cannot tell whether a notification was
// sent before or after a request (ACP: whether a session/cancel came before
// or after the session/prompt it should end).
type ArrivalHandler interface {
	Handler
	// Arrived is called on the goroutine reading the connection, once for
	// each request and notification (batch entries included, $/cancel_request
	// excluded), in the order they were read, before the message is handed
	// to HandleRequest or HandleNotification. For a request, ctx is the
	// request's context and the context Arrived returns is the one
	// HandleRequest receives (derive it from ctx); a request refused at the
	// bounds or read during shutdown does not arrive. For a notification,
	// ctx is the connection's and the result is ignored. Arrived must return
	// quickly: nothing is read meanwhile.
	Arrived(ctx context.Context, method string, params wire.Raw, request bool) context.Context
}

// AnswerHandler is an ArrivalHandler that is also told when each request
// that arrived is answered (ACP: a prompt turn ends with its request).
type AnswerHandler interface {
	ArrivalHandler
	// Answered is called once for each request Arrived was told of, with
	// the context Arrived returned, as the request's context ends: its
	// handler has returned (or will never run) and its answer is about to
	// be written. It must return quickly.
	Answered(ctx context.Context)
}

// Dispatcher is a Handler that decodes params in the pass that reads the
// frame and encodes a request's result straight into the response frame
// (the generated dispatcher): the Conn calls DecodeParams as it reads a
// message's params (when its method came before them), and AppendRequest
// and HandleDecoded instead of HandleRequest and HandleNotification,
// except for the entries of a batch.
type Dispatcher interface {
	Handler
	// Mode is the mode frames are read in, so that DecodeParams decodes
	// in it.
	Mode() wire.Mode
	// DecodeParams decodes the params of method from d, which is at their
	// value, an object, into a new value of the method's params type, and
	// returns it with d past the value. It returns nil, d anywhere, when
	// it does not decode method's params or they do not decode: the Conn
	// then reads them as raw JSON. It runs on the reading goroutine.
	DecodeParams(method string, d *wire.Decoder) any
	// AppendRequest handles a request as HandleRequest does, appending the
	// result's JSON to b and returning the extended slice instead of
	// returning the result: one valid JSON value (nothing appended is
	// null), which the Conn writes as it is, without checking it again
	// (line breaks are removed). On error what was appended is discarded.
	// decoded is what DecodeParams returned for params, or nil.
	AppendRequest(ctx context.Context, method string, params wire.Raw, decoded any, b []byte) ([]byte, error)
	// HandleDecoded is HandleNotification, with decoded as for
	// AppendRequest.
	HandleDecoded(ctx context.Context, method string, params wire.Raw, decoded any)
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
	// Recorder, when set, makes the connection write behind its senders:
	// every outgoing frame (requests, notifications and responses alike)
	// joins one queue in the order it was sent; a writer goroutine takes
	// what is queued as a batch, gives its requests and notifications to
	// the Recorder, commits the batch (Recorder.Commit), and only then
	// writes its frames, in order. So the peer receives nothing that was
	// not recorded first, and a response never overtakes what was sent
	// before it; yet a sender does not wait for a commit of its own, as
	// messages sent during one commit share the next. Notify returns once
	// its frame is queued, a response's handler once its answer is; Call
	// still returns after its request is written. A record failure is
	// sticky and ends the connection: the failed batch and everything
	// queued after it are never written, later sends return the failure,
	// Flush returns it, the connection shuts down and Run returns it.
	Recorder Recorder
	// MaxQueued bounds the bytes of frames queued for the writer when
	// Recorder is set: a sender waits for room (a frame larger than the
	// bound waits for an empty queue). Default DefaultMaxQueued.
	MaxQueued int
}

// Defaults for Options.
const (
	DefaultMaxFrame      = 64 << 20
	DefaultMaxConcurrent = 64
	DefaultMaxBuffered   = 64 << 20
)

// In-flight limits: how many requests one reader holds unanswered before
// it answers the next jsonrpc.CodeOverloaded. Each reader of this
// repository uses one of them; they differ by what a request holds while
// it waits.
const (
	// DefaultMaxInFlight is a Conn's (Options.MaxInFlight): a request
	// holds its frame, a handler slot and its answer.
	DefaultMaxInFlight = 256
	// DefaultMaxRelayed is a relay's, per side (runtime/proxy's
	// Options.MaxInFlight): a relayed request holds an id pair and a
	// queued frame until its answer.
	DefaultMaxRelayed = 1024
	// MaxAwaited is what a router that writes frames through holds per
	// connection (runtime/conductor), and what an observer keeps per
	// direction (inspect): a request holds only its id pair.
	MaxAwaited = 4096
)

// MaxIDLength bounds a request's id as written, in bytes: every reader of
// this repository (this connection, the proxy, the conductor) answers a
// longer one -32600 with id null and does not handle it, since the id is
// held (and echoed) for as long as the request is in flight.
const MaxIDLength = 1024

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
	arrivals    ArrivalHandler // h, when it is one
	appender    Dispatcher     // h, when it is one
	mode        wire.Mode      // how frames are read: the Dispatcher's Mode, else Strict
	answers     AnswerHandler  // h, when it is one
	log         *slog.Logger
	maxFrame    int
	maxInFlight int
	maxBuffered int
	sem         chan struct{} // one token per running request handler

	r     io.Reader
	br    *bufio.Reader // nil when mr frames the input
	mr    MessageReader
	dec   wire.Decoder // used by the reader goroutine only
	names names        // method names read, reused; the reader goroutine's

	w     io.Writer
	mw    MessageWriter // nil when w takes newline-terminated frames
	wlock chan struct{} // a lock that a waiter can abandon when its ctx ends
	werr  error         // sticky write error, guarded by wlock
	q     *behind       // the outgoing queue when Options.Recorder is set

	lastID atomic.Int64

	mu       sync.Mutex
	started  bool
	closed   bool
	base     context.Context // parent of handler contexts, set by Run
	noteCtx  context.Context // base, marked inNotification: notification handlers'
	stop     context.CancelCauseFunc
	pending  map[int64]*pendingCall
	inflight []*inbound // requests admitted and not yet answered, unordered

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
	// notesDone is closed once the notification goroutine has finished
	// the queue (or at shutdown when it never started).
	notesDone chan struct{}
	// notesStarted is set, under mu, once the notification goroutine has
	// started: with the first notification, so that an idle connection
	// has no goroutine waiting for them. After shutdown none starts.
	notesStarted bool
	closing      chan struct{} // closed by Close
	jobs         chan job      // unbuffered: hand-off to an idle worker; closed, under mu, at shutdown
	once         sync.Once

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

// inbound is one request being handled: its context, and what
// $/cancel_request finds it by.
type inbound struct {
	ctx  reqCtx
	c    *Conn
	id   wire.Raw
	idx  int // its index in Conn.inflight while it is there
	cost int // counted against MaxBuffered
	// awaiting says the request holds an AwaitingInput mark until it is
	// answered (AwaitInput); gone that it is answered. Guarded by c.mu.
	awaiting, gone bool
}

// NewConn returns a connection reading frames from r and writing them to w:
// newline-delimited JSON, unless r is a MessageReader or w a MessageWriter.
// Nothing is read until Run is called.
func NewConn(r io.Reader, w io.Writer, h Handler, o Options) *Conn {
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
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
		done:        make(chan struct{}),
		notesDone:   make(chan struct{}),
		closing:     make(chan struct{}),
		jobs:        make(chan job),
	}
	c.arrivals, _ = h.(ArrivalHandler)
	c.appender, _ = h.(Dispatcher)
	c.mode = wire.Strict
	if c.appender != nil {
		c.mode = c.appender.Mode()
	}
	c.answers, _ = h.(AnswerHandler)
	if c.mr, _ = r.(MessageReader); c.mr == nil {
		c.br = bufio.NewReaderSize(r, min(64<<10, o.MaxFrame+2))
	}
	c.mw, _ = w.(MessageWriter)
	if o.Recorder != nil {
		c.q = newBehind(o.Recorder, o.MaxQueued)
	}
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
	c.base, c.stop = context.WithCancelCause(context.WithValue(ctx, connKey{}, c))
	c.noteCtx = context.WithValue(c.base, inNotification{}, true)
	c.readDone = make(chan error, 1) // buffered: an abandoned reader still exits
	c.drained = make(chan struct{})
	c.drain = DrainFrom(ctx)
	c.mu.Unlock()

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
	if c.q != nil {
		c.closeQueue(true) // the answers owed are written
		if f := c.recordFailure(); f != nil {
			err = f
		}
	}
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
	close(c.jobs) // idle workers return
	stop := c.stop
	c.wake() // a reader waiting for room stops waiting
	neverRun := !c.started
	if !c.notesStarted {
		c.notesStarted = true
		close(c.notesDone) // no notification goroutine will
	}
	c.mu.Unlock()
	if neverRun && c.q != nil {
		c.closeQueue(false) // Run will not: let the writer end
	}

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
