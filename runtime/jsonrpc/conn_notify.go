package jsonrpc

import (
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

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
	if !c.notesStarted {
		if c.closed {
			c.mu.Unlock()
			c.log.Debug("jsonrpc: notification read during shutdown not handled", "method", n.method)
			return
		}
		c.notesStarted = true
		c.wg.Add(1) // under mu, so it happens before shutdown's Wait
		go c.notificationLoop()
	}
	c.held += n.cost
	c.noteHeld += n.cost
	c.mu.Unlock()
	c.notes.push(n)
}

// notificationLoop runs notification handlers one at a time, in order.
func (c *Conn) notificationLoop() {
	defer c.wg.Done()
	defer close(c.notesDone)
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
	if c.appender != nil {
		c.appender.HandleDecoded(c.noteCtx, n.method, n.params, n.decoded)
		return
	}
	c.h.HandleNotification(c.noteCtx, n.method, n.params)
}

// note is a queued inbound notification.
type note struct {
	method  string
	params  wire.Raw
	decoded any // see message
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
