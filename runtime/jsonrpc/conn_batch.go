package jsonrpc

import (
	"fmt"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// A batch (JSON-RPC 2.0 §6) is a frame holding a JSON array of messages;
// see "Batches" in the package documentation.

// batchReply collects the answers to one batch: its requests' responses and
// the errors for its invalid entries, written as one array line once the
// last one is in.
type batchReply struct {
	mu   sync.Mutex
	owed int    // answers still to come, plus one while the reader dispatches the batch
	buf  []byte // "[", then each answer so far followed by ','
	// requests and cost are what the batch's admitted requests count
	// against the bounds, released when the array is written.
	requests, cost int
}

// batchSize is what the reader learns of a batch before dispatching it.
type batchSize struct {
	entries  int
	answered int // requests and invalid entries: each gets an answer
	requests int
	cost     int // what the requests count against MaxBuffered
}

// handleBatch handles a batch frame, on the reader goroutine. The batch's
// requests are admitted together, as if they were one request (a part of
// them admitted while the rest waits for room could wait for itself, since
// none is answered before all are); then the entries are dispatched in
// order, each a copy of its own, as a frame of its own would be: requests
// to workers (never inline: the rest of the batch is still to be read),
// notifications to their queue, responses to their calls.
func (c *Conn) handleBatch(frame []byte) {
	size, f := c.measureBatch(frame)
	if f != nil {
		c.warn(warnRejected, "jsonrpc: rejected batch", "code", f.Code, "reason", f.Reason, "frame", preview(frame))
		c.replyError(nil, f.RPCError())
		return
	}
	b := &batchReply{owed: 1, buf: make([]byte, 1, 512)}
	b.buf[0] = '['
	adm := admitted
	if size.requests > 0 {
		c.mu.Lock()
		if adm = c.admit(size.requests, size.cost); adm == admitted {
			b.requests, b.cost = size.requests, size.cost
		}
		c.mu.Unlock()
	}
	var d wire.Decoder
	d.Reset(frame, wire.Strict)
	_ = d.BeginArray() // measureBatch checked the frame
	for {
		if more, _ := d.NextItem(); !more {
			break
		}
		entry, _ := d.ReadRaw()
		c.batchEntry(entry, adm, b)
	}
	c.settle(b)
}

// measureBatch checks a batch frame and counts its entries. A frame that is
// not JSON, an empty batch, and one with more requests and invalid entries
// than MaxInFlight are refused whole, with the error it returns.
func (c *Conn) measureBatch(frame []byte) (s batchSize, f *FrameError) {
	if !wire.Valid(frame) {
		return s, parseError(errOf(frame))
	}
	var d wire.Decoder
	d.Reset(frame, wire.Strict)
	_ = d.BeginArray()
	for {
		if more, _ := d.NextItem(); !more {
			break
		}
		entry, _, _ := rawValue(&d, frame)
		var m message
		e := parseEntry(&c.dec, entry, &m)
		s.entries++
		switch {
		case e != nil:
			s.answered++
		case m.kind == kindRequest:
			s.answered++
			s.requests++
			s.cost += len(entry) + FrameOverhead
		}
	}
	c.dec.Reset(nil, wire.Strict)
	switch {
	case s.entries == 0:
		return s, invalidRequest("empty batch")
	case s.answered > c.maxInFlight:
		return s, invalidRequest(fmt.Sprintf("batch of %d requests and invalid entries exceeds %d", s.answered, c.maxInFlight))
	}
	return s, nil
}

// batchEntry dispatches one entry of a batch; adm is what admission decided
// for the batch's requests.
func (c *Conn) batchEntry(entry []byte, adm admission, b *batchReply) {
	var m message
	e := parseEntry(&c.dec, entry, &m)
	c.dec.Reset(nil, wire.Strict)
	cost := len(entry) + FrameOverhead
	switch {
	case e != nil:
		c.rejected(entry, &m, e)
		c.owe(b, m.replyID, e.RPCError())
	case m.kind != kindRequest:
		c.handleOther(&m, cost)
	case adm == admitted:
		c.startBatched(&m, cost, b)
	case adm == refused:
		c.refuse(&m)
		c.owe(b, m.id, errOverloaded)
	case adm == draining:
		c.log.Debug("jsonrpc: request read while draining refused", "method", m.method, "id", string(m.id))
		c.owe(b, m.id, errShuttingDown)
	default:
		c.log.Debug("jsonrpc: request read during shutdown not handled", "method", m.method, "id", string(m.id))
	}
}

// startBatched hands an admitted request of batch b to a worker.
func (c *Conn) startBatched(m *message, cost int, b *batchReply) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.log.Debug("jsonrpc: request read during shutdown not handled", "method", m.method, "id", string(m.id))
		return
	}
	j := c.track(m, cost)
	c.mu.Unlock()
	j.ctx = c.arrived(j.ctx, m, true)
	j.batch = b
	b.mu.Lock()
	b.owed++
	b.mu.Unlock()
	c.dispatch(j)
}

// owe adds the runtime's own answer e to request id to batch b.
func (c *Conn) owe(b *batchReply, id wire.Raw, e *wire.RPCError) {
	b.mu.Lock()
	b.owed++
	b.mu.Unlock()
	c.collect(b, id, "", nil, e)
}

// collect adds an answer to batch b, counted against MaxBuffered until the
// array is written, and writes the array once it is the last answer owed.
func (c *Conn) collect(b *batchReply, id wire.Raw, method string, res wire.Raw, rerr *wire.RPCError) {
	b.mu.Lock()
	mark := len(b.buf)
	b.buf = c.appendReply(b.buf, id, method, res, rerr)
	b.buf[len(b.buf)-1] = ',' // the array's separator in place of the line's end
	c.mu.Lock()
	c.held += len(b.buf) - mark
	c.mu.Unlock()
	b.owed--
	last := b.owed == 0
	b.mu.Unlock()
	if last {
		c.finishBatch(b)
	}
}

// settle ends the reader's dispatch of batch b.
func (c *Conn) settle(b *batchReply) {
	b.mu.Lock()
	b.owed--
	last := b.owed == 0
	b.mu.Unlock()
	if last {
		c.finishBatch(b)
	}
}

// finishBatch writes batch b's answers as one array line (nothing when no
// entry is answered: a batch of notifications and responses) and releases
// what the batch held.
func (c *Conn) finishBatch(b *batchReply) {
	answers := len(b.buf) - 1
	if answers > 0 {
		b.buf[len(b.buf)-1] = ']'
		c.writeReply(append(b.buf, '\n'))
	}
	c.mu.Lock()
	c.requests -= b.requests
	c.held -= b.cost + answers
	c.wake()
	c.checkDrained()
	c.mu.Unlock()
}
