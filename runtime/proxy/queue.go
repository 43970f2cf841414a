package proxy

import (
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// queue holds the messages read from one side and not yet relayed, up to
// max bytes (each counted as its length plus jsonrpc.FrameOverhead): push
// waits while it is full, so a side is read only as fast as the other is
// written. A message larger than max is taken when the queue is empty. The
// standard library has no bounded FIFO that counts bytes, hence this one.
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	items  []*item
	head   int
	bytes  int
	max    int
	closed bool
}

func newQueue(max int) *queue {
	q := &queue{max: max}
	q.cond.L = &q.mu
	return q
}

func cost(it *item) int { return len(it.frame) + jsonrpc.FrameOverhead }

// push appends it, waiting for room; false once the queue is closed.
func (q *queue) push(it *item) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > 0 && q.bytes+cost(it) > q.max {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	if q.head > 0 && q.head*2 >= len(q.items) {
		// Reuse the slots popped so far: the slice stays as long as
		// the most the queue ever held, not as everything pushed.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, it)
	q.bytes += cost(it)
	q.cond.Broadcast()
	return true
}

// pop removes the oldest item, waiting for one; false once the queue is
// closed and empty.
func (q *queue) pop() (*item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) && !q.closed {
		q.cond.Wait()
	}
	if q.head == len(q.items) {
		return nil, false
	}
	it := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	q.bytes -= cost(it)
	q.cond.Broadcast()
	return it, true
}

// close refuses later pushes; pop returns what is left, then false.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}
