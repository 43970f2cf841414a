package acphttp

import (
	"container/list"
	"errors"
	"io"
	"sync"
	"time"
)

// budget is a Server's Options.MaxServerBuffered: the bytes of client
// messages read (or being read) and not yet taken by their connection's
// reader, and of Streamable HTTP output queued and not yet written to its
// stream, across all connections.
//
// Input may hold at most half of it. Agent output is what frees input (a
// reader pauses until its handlers have written), so output must always be
// able to get room that input cannot take. Each half's waiters are served in
// arrival order.
//
// A message whose length is not known before it is read (a chunked POST
// body, a WebSocket message) is charged chunk by chunk while it holds the
// chunks read so far. Two such messages could each hold part of the budget
// and wait for the rest; so the oldest message being read is never kept
// waiting: it may take the budget past its bound by at most one message.
type budget struct {
	max, inMax int64
	maxWaiting int           // POSTs that may wait for room holding nothing
	stall      time.Duration // how long a wait lasts before shed runs
	shed       func()        // closes connections whose output nobody takes

	mu         sync.Mutex
	used, in   int64
	inQ, outQ  list.List // *waiter, oldest first
	assembling list.List // *assembly being read, oldest first
	waiting    int       // POSTs waiting holding nothing

	// retained is what the event streams' logs hold for resumption, at
	// most retainMax (Options.MaxRetained). It never waits: a message that
	// does not fit is not retained (resume.go).
	retained, retainMax int64
}

// retain charges n bytes of retained messages if they fit.
func (b *budget) retain(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.retained+n > b.retainMax {
		return false
	}
	b.retained += n
	return true
}

func (b *budget) unretain(n int64) {
	b.mu.Lock()
	b.retained -= n
	b.mu.Unlock()
}

// waiter is one charge waiting for room.
type waiter struct {
	n     int64
	input bool
	a     *assembly
	ready chan struct{} // closed once charged
}

// assembly is a message of unknown length being read chunk by chunk.
type assembly struct{ e *list.Element }

// errBusy refuses a POST past Options.MaxWaitingPosts; errGone ends a
// wait whose request or connection went away.
var (
	errBusy = errors.New("acphttp: too many POSTs wait for room")
	errGone = errors.New("acphttp: gone while waiting for room")
)

func newBudget(max int64, maxWaiting int, stall time.Duration, shed func()) *budget {
	return &budget{max: max, inMax: max / 2, maxWaiting: maxWaiting, stall: stall, shed: shed}
}

// take charges n bytes (at most its half of the budget), waiting for room
// until done closes (errGone), and returns what it charged, for give. a,
// when not nil, is the message the input bytes belong to. post makes a wait
// count against maxWaiting (errBusy past it).
func (b *budget) take(done <-chan struct{}, n int64, input bool, a *assembly, post bool) (int64, error) {
	w := &waiter{n: b.clamp(n, input), input: input, a: a}
	b.mu.Lock()
	q := b.queue(input)
	if (q.Len() == 0 && b.fits(w)) || b.oldest(a) {
		b.charge(w)
		b.mu.Unlock()
		return w.n, nil
	}
	if post {
		if b.waiting >= b.maxWaiting {
			b.mu.Unlock()
			return 0, errBusy
		}
		b.waiting++
	}
	w.ready = make(chan struct{})
	e := q.PushBack(w)
	b.mu.Unlock()
	err := b.wait(done, w)
	b.mu.Lock()
	defer b.mu.Unlock()
	if post {
		b.waiting--
	}
	if err == nil {
		return w.n, nil
	}
	select {
	case <-w.ready: // charged meanwhile: give it back
		b.uncharge(w.n, input)
	default:
		q.Remove(e)
	}
	b.grant()
	return 0, err
}

// wait waits until w is charged or done closes; every stall of waiting, it
// sheds connections whose output nobody takes.
func (b *budget) wait(done <-chan struct{}, w *waiter) error {
	t := time.NewTimer(b.stall)
	defer t.Stop()
	for {
		select {
		case <-w.ready:
			return nil
		case <-done:
			return errGone
		case <-t.C:
			b.shed()
			t.Reset(b.stall)
		}
	}
}

// give returns n bytes that take charged.
func (b *budget) give(n int64, input bool) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.uncharge(n, input)
	b.grant()
	b.mu.Unlock()
}

// clamp bounds a charge so that it can be granted once its half is empty.
func (b *budget) clamp(n int64, input bool) int64 {
	if input {
		return min(n, b.inMax)
	}
	return min(n, b.max)
}

func (b *budget) queue(input bool) *list.List {
	if input {
		return &b.inQ
	}
	return &b.outQ
}

func (b *budget) fits(w *waiter) bool {
	return b.used+w.n <= b.max && (!w.input || b.in+w.n <= b.inMax)
}

// oldest reports whether a is the oldest message being read.
func (b *budget) oldest(a *assembly) bool {
	return a != nil && b.assembling.Front() == a.e
}

func (b *budget) charge(w *waiter) {
	b.used += w.n
	if w.input {
		b.in += w.n
	}
}

func (b *budget) uncharge(n int64, input bool) {
	b.used -= n
	if input {
		b.in -= n
	}
}

// grant charges the waiters that fit, in order, and the oldest message's.
func (b *budget) grant() {
	for _, q := range []*list.List{&b.inQ, &b.outQ} {
		for e := q.Front(); e != nil; {
			w := e.Value.(*waiter)
			next := e.Next()
			if b.oldest(w.a) || (e == q.Front() && b.fits(w)) {
				q.Remove(e)
				b.charge(w)
				close(w.ready)
			}
			e = next
		}
	}
}

// start registers a message of unknown length; end forgets it.
func (b *budget) start() *assembly {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := &assembly{}
	a.e = b.assembling.PushBack(a)
	return a
}

func (b *budget) end(a *assembly) {
	b.mu.Lock()
	b.assembling.Remove(a.e)
	b.grant()
	b.mu.Unlock()
}

// chunkSize is how much of a message of unknown length is admitted at once.
const chunkSize = 64 << 10

// readChunked reads r to its end, admitting each chunk against the budget
// before reading it (what is charged is the buffer's capacity, which grows
// by a quarter at a time). deadline(d) bounds the next read to d from now
// (0: no bound, set once the message is read whole; after a failed read
// the last deadline stays): the time spent reading, not waiting for room,
// is at most timeout. It returns the message and what it charged, which the caller
// gives back (also on error). The first wait for room counts as a POST's
// when post.
func (b *budget) readChunked(r io.Reader, done <-chan struct{}, timeout time.Duration, deadline func(time.Duration), post bool) (msg []byte, charged int64, err error) {
	a := b.start()
	defer b.end(a)
	left := timeout
	for {
		if cap(msg)-len(msg) < chunkSize {
			size := len(msg) + max(chunkSize, len(msg)/4)
			got, err := b.take(done, int64(size-cap(msg)), true, a, post && charged == 0)
			charged += got
			if err != nil {
				return nil, charged, err
			}
			nb := make([]byte, len(msg), size)
			copy(nb, msg)
			msg = nb
		}
		if left <= 0 {
			return nil, charged, errSlowBody
		}
		deadline(left)
		start := time.Now()
		n, err := io.ReadFull(r, msg[len(msg):len(msg)+chunkSize])
		msg = msg[:len(msg)+n]
		left -= time.Since(start)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			deadline(0)
			return msg, charged, nil
		case err != nil:
			return nil, charged, err
		}
	}
}

// errSlowBody ends a message not read whole within Options.BodyTimeout.
var errSlowBody = errors.New("acphttp: message not received within the body timeout")

// shedStalled closes the Streamable HTTP connections whose queued output
// nobody has taken for StallTimeout: something waits for room they hold.
func (s *Server) shedStalled() {
	now := time.Now()
	s.mu.Lock()
	var stalled []*streamConn
	var gone []*wsConn
	for _, sc := range s.conns {
		if sc.stream != nil && sc.stream.stalled(now) {
			stalled = append(stalled, sc.stream)
		}
		if sc.ws != nil && sc.ws.stalled(now) {
			gone = append(gone, sc.ws)
		}
	}
	s.mu.Unlock()
	for _, c := range stalled {
		s.log.Warn("acphttp: closing connection whose client stopped reading", "connection", c.id)
		c.shut(errStalled)
	}
	for _, c := range gone {
		s.log.Warn("acphttp: closing WebSocket connection whose client did not come back", "connection", c.id)
		c.shut(errStalled)
	}
}
