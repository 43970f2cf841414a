package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

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
			c.replyError(nil, invalidRequest(fmt.Sprintf("frame exceeds %d bytes", c.maxFrame)).RPCError())
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
		return ReadFrame(c.br, c.maxFrame)
	}
	frame, err = c.mr.ReadMessage()
	if len(frame) > c.maxFrame {
		return nil, true, err
	}
	return frame, false, err
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
	if fastParse(&c.dec, frame, &m, c.appender, c.mode, &c.names) {
		if m.kind == kindRequest {
			return c.startRequest(&m, len(frame)+FrameOverhead, mayInline)
		}
		c.handleOther(&m, len(frame)+FrameOverhead)
		return true
	}
	if f := beginObject(&c.dec, frame, c.mode); f != nil {
		if c.dec.Reset(frame, c.mode); c.dec.Peek() == wire.KindArray {
			c.dec.Reset(nil, wire.Strict)
			c.handleBatch(frame)
			return true
		}
		c.dec.Reset(nil, wire.Strict)
		c.rejected(frame, &m, f)
		c.replyError(nil, f.RPCError())
		return true
	}
	e := parse(&c.dec, frame, &m, c.appender, &c.names)
	c.dec.Reset(nil, wire.Strict) // hold on to no frame between reads
	if e != nil {
		c.rejected(frame, &m, e)
		c.replyError(m.replyID, e.RPCError())
		return true
	}
	if m.kind == kindRequest {
		return c.startRequest(&m, len(frame)+FrameOverhead, mayInline)
	}
	c.handleOther(&m, len(frame)+FrameOverhead)
	return true
}

// rejected logs a frame that is not a valid message. A Call the frame was
// meant to answer is released with ErrMalformedResponse rather than left
// hanging.
func (c *Conn) rejected(frame []byte, m *message, e *FrameError) {
	c.warn(warnRejected, "jsonrpc: rejected frame", "code", e.Code, "reason", e.Reason, "frame", preview(frame))
	if m.kind == kindResponse && m.callID != 0 {
		c.deliver(m.callID, m.id, callResult{err: fmt.Errorf("%w: %s", ErrMalformedResponse, e.Reason)})
	}
}

// handleOther handles a notification or a response; cost is what a
// notification counts against MaxBuffered.
func (c *Conn) handleOther(m *message, cost int) {
	if m.kind == kindNotification {
		if m.method == CancelRequestMethod {
			c.cancelInbound(m.params)
			return
		}
		c.arrived(c.base, m, false)
		c.queueNotification(note{method: m.method, params: m.params, decoded: m.decoded, cost: cost})
		return
	}
	if m.callID == 0 {
		c.logUnknownResponse(m)
		return
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
			return
		}
	}
	c.deliver(m.callID, m.id, r)
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
