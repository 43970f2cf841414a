package jsonrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Recorder records a connection's outgoing requests and notifications in
// batches, before their frames are written; see Options.Recorder. A
// Recorder serves one connection: its methods are called on that
// connection's writer goroutine, one at a time.
type Recorder interface {
	// Record is given each request and notification of a batch, and each
	// message queued with Conn.Record, in the order they were queued: the
	// context it was sent with (for its values;
	// it may have ended since), the method, the params' sessionId ("" when
	// none) and the params as written (valid only during the call). It
	// keeps what it records for Commit; an error fails the batch.
	Record(ctx context.Context, method, sessionID string, params []byte) error
	// Commit makes what Record kept since the last Commit durable and
	// returns once it is; the batch's frames are written only after it
	// returns nil. It is called once per batch, even when Record kept
	// nothing.
	Commit(ctx context.Context) error
}

// DefaultMaxQueued is Options.MaxQueued's default.
const DefaultMaxQueued = 1 << 20

// behind is the outgoing queue of a connection that writes behind its
// senders (Options.Recorder): frames in send order, recorded and written in
// batches by one goroutine.
type behind struct {
	rec Recorder
	max int

	mu     sync.Mutex
	items  []outItem
	bytes  int           // of the frames queued or being written
	room   chan struct{} // closed (and replaced) whenever bytes shrink
	ready  chan struct{} // a token when items were added
	closed bool          // no more items: the writer ends once it has written these
	err    error         // sticky: the first record or write failure
	failed bool          // err is a record failure (the connection was closed for it)
	start  sync.Once
	ended  chan struct{} // closed when the writer goroutine has ended
}

// outItem is one queued frame: a request or notification (method set,
// params at frame[params:len(frame)-2] when params > 0), a response, a
// message to record only (frame nil, method set, its params in only), or a
// flush mark (frame nil, method "").
type outItem struct {
	ctx    context.Context
	frame  []byte
	method string
	params int
	only   []byte
	done   chan error // when not nil: told the outcome once written
}

func newBehind(r Recorder, max int) *behind {
	if max <= 0 {
		max = DefaultMaxQueued
	}
	return &behind{rec: r, max: max, room: make(chan struct{}), ready: make(chan struct{}, 1), ended: make(chan struct{})}
}

// enqueue adds a copy of frame b to the queue once there is room (a frame
// larger than the bound waits for an empty queue); method is "" for a
// response. With wait set it returns once the frame is written (or failed);
// otherwise at once. ctx bounds the wait for room only: once queued, the
// frame is recorded and written whatever ctx does.
func (c *Conn) enqueue(ctx context.Context, b []byte, method string, wait bool) error {
	it := outItem{ctx: ctx, method: method}
	if b != nil {
		it.frame = bytes.Clone(b)
		if method != "" {
			if i := bytes.Index(b, []byte(`,"params":`)); i >= 0 {
				it.params = i + len(`,"params":`)
			}
		}
	}
	if wait {
		it.done = make(chan error, 1)
	}
	return c.enqueueItem(ctx, it, len(it.frame))
}

// enqueueItem queues it, counted as size bytes against the bound, and
// waits for its outcome when it has a done channel.
func (c *Conn) enqueueItem(ctx context.Context, it outItem, size int) error {
	q := c.q
	q.start.Do(func() { go c.writeLoop() })
	q.mu.Lock()
	for q.err == nil && !q.closed && q.bytes > 0 && q.bytes+size > q.max {
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
		q.mu.Lock()
	}
	switch {
	case q.err != nil:
		err := q.err
		q.mu.Unlock()
		return err
	case q.closed:
		q.mu.Unlock()
		return ErrClosed
	}
	q.items = append(q.items, it)
	q.bytes += size
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	if it.done == nil {
		return nil
	}
	return <-it.done
}

// Flush returns once every frame queued before the call has been recorded
// and written, with the connection's record or write failure if there has
// been one (so nil means: everything sent so far reached the transport). On
// a connection without a Recorder frames are written as they are sent, and
// Flush returns the sticky write error. ctx bounds only the wait for room in
// the queue.
func (c *Conn) Flush(ctx context.Context) error {
	if c.q == nil {
		return c.writeErr()
	}
	err := c.enqueue(ctx, nil, "", true)
	if errors.Is(err, ErrClosed) {
		c.q.mu.Lock()
		if c.q.err != nil {
			err = c.q.err
		}
		c.q.mu.Unlock()
	}
	return err
}

// Record queues a message for the Recorder alone, in order with what the
// connection sends, and writes nothing: something that belongs in the same
// record as what is sent, such as what the peer sent (ACP: the prompt's
// text, recorded as the user's session/update), committed with the next
// batch instead of in a write of its own. It returns once the message is
// queued (a copy of params); Flush waits for it as for a frame. Without a
// Recorder it does nothing.
func (c *Conn) Record(ctx context.Context, method string, params wire.Raw) error {
	if c.q == nil {
		return nil
	}
	if err := c.recordFailure(); err != nil {
		return err
	}
	it := outItem{ctx: ctx, method: method, only: bytes.Clone(params)}
	return c.enqueueItem(ctx, it, len(it.only))
}

// RecordFrom is Record on the connection whose handler was given ctx; it
// does nothing on any other context.
func RecordFrom(ctx context.Context, method string, params wire.Raw) error {
	if c, _ := ctx.Value(connKey{}).(*Conn); c != nil {
		return c.Record(ctx, method, params)
	}
	return nil
}

// connKey marks the contexts of a connection's handlers with the connection.
type connKey struct{}

// FlushFrom is Flush on the connection whose handler was given ctx (or a
// context derived from it): a handler that recorded what it sent can wait
// until the peer has it before it records what follows, such as a turn's
// end after the turn's updates. It returns nil on any other context.
func FlushFrom(ctx context.Context) error {
	if c, _ := ctx.Value(connKey{}).(*Conn); c != nil {
		return c.Flush(ctx)
	}
	return nil
}

// writeErr returns the sticky write error, once no write is under way.
func (c *Conn) writeErr() error {
	c.wlock <- struct{}{}
	err := c.werr
	<-c.wlock
	return err
}

// closeQueue lets the writer end once it has written what is queued, and
// with wait set waits for that.
func (c *Conn) closeQueue(wait bool) {
	q := c.q
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.start.Do(func() { go c.writeLoop() })
	select {
	case q.ready <- struct{}{}:
	default:
	}
	if wait {
		<-q.ended
	}
}

// recordFailure is the record failure that ended the connection, if any.
func (c *Conn) recordFailure() error {
	if c.q == nil {
		return nil
	}
	c.q.mu.Lock()
	defer c.q.mu.Unlock()
	if c.q.failed {
		return c.q.err
	}
	return nil
}

// writeLoop is the writer: it takes everything queued as one batch, gives
// its requests and notifications to the Recorder, commits, then writes the
// frames in order. What is queued while a batch commits forms the next one,
// so the batches grow with the store's latency. A record failure ends the
// connection: the batch and everything queued after it are dropped unwritten.
func (c *Conn) writeLoop() {
	q := c.q
	defer close(q.ended)
	var batch []outItem
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.mu.Unlock()
			<-q.ready
			q.mu.Lock()
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
			return
		}
		batch, q.items = q.items, batch[:0]
		err := q.err
		q.mu.Unlock()

		size, held := 0, 0 // the frames' bytes; all the bytes counted
		for _, it := range batch {
			size += len(it.frame)
			held += len(it.frame) + len(it.only)
		}
		if err == nil {
			if err = c.recordBatch(batch); err != nil {
				c.failRecord(err)
			}
		}
		if err == nil {
			err = c.writeBatch(batch, size)
		}
		for i := range batch {
			if batch[i].done != nil {
				batch[i].done <- err
			}
			batch[i] = outItem{}
		}
		q.mu.Lock()
		q.bytes -= held
		close(q.room)
		q.room = make(chan struct{})
		q.mu.Unlock()
	}
}

// recordBatch gives the batch's requests and notifications to the Recorder
// and commits them.
func (c *Conn) recordBatch(batch []outItem) error {
	for _, it := range batch {
		if it.method == "" {
			continue
		}
		params := it.only
		if it.params > 0 {
			params = it.frame[it.params : len(it.frame)-2] // the frame ends in "}\n"
		}
		session, _ := SessionID(params)
		if err := c.q.rec.Record(it.ctx, it.method, session, params); err != nil {
			return fmt.Errorf("jsonrpc: %s not recorded: %w", it.method, err)
		}
	}
	if err := c.q.rec.Commit(context.Background()); err != nil {
		return fmt.Errorf("jsonrpc: recording failed: %w", err)
	}
	return nil
}

// failRecord makes err the queue's sticky error and shuts the connection
// down: frames queued behind the failed batch were sent after what could not
// be recorded, and writing them would show the peer a conversation with a
// hole the store cannot replay.
func (c *Conn) failRecord(err error) {
	q := c.q
	q.mu.Lock()
	first := q.err == nil
	if first {
		q.err, q.failed = err, true
	}
	dropped := q.items
	q.items = nil
	for _, it := range dropped {
		q.bytes -= len(it.frame) + len(it.only)
		if it.done != nil {
			it.done <- err
		}
	}
	q.mu.Unlock()
	if first {
		c.log.Error("jsonrpc: recording outgoing messages failed; closing the connection", "err", err)
		go c.Close() // not on the writer: Close may wait for nothing, but keep the writer free
	}
}

// writeBatch writes the batch's frames in order: one write for the whole
// batch on a byte stream, one message each on a MessageWriter.
func (c *Conn) writeBatch(batch []outItem, size int) error {
	if c.mw != nil {
		for _, it := range batch {
			if it.frame == nil {
				continue
			}
			if err := c.write(context.Background(), it.frame); err != nil {
				c.failWrite(err)
				return err
			}
		}
		return nil
	}
	if size == 0 {
		return c.writeErr()
	}
	buf := make([]byte, 0, size)
	for _, it := range batch {
		buf = append(buf, it.frame...)
	}
	if err := c.write(context.Background(), buf); err != nil {
		c.failWrite(err)
		return err
	}
	return nil
}

// failWrite makes a write failure sticky for later sends, as a connection
// without a Recorder does.
func (c *Conn) failWrite(err error) {
	c.q.mu.Lock()
	if c.q.err == nil {
		c.q.err = err
	}
	c.q.mu.Unlock()
	c.log.Log(context.Background(), slog.LevelDebug, "jsonrpc: write behind failed", "err", err)
}
