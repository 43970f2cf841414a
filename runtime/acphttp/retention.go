package acphttp

// Retention is where event streams keep the messages they delivered, for
// a client that resumes (Options.Retention; "Resumable event streams" and
// "Resumable WebSocket connections" in docs/transports-and-security.md).
// acphttp decides what is kept (RetainMessages, MaxRetained, RetainFor)
// and tells each stream's log what to forget; a Retention only holds the
// bytes. The default keeps them in the process's memory (MemoryRetention);
// the session store module keeps them in its database.
//
// A stream's log belongs to one connection, which lives in one process: a
// resume is answered only by the server that holds the connection, and what
// a log holds is read back only by it.
type Retention interface {
	// Open returns the log of a new stream: tag is its part of its
	// cursors (random, never reused), principal the connection's. Open
	// itself must not fail: a log whose writes fail reports it on them.
	Open(principal, tag string) StreamLog
}

// StreamLog is one stream's retained messages, numbered from 1 in the
// order delivered, each kept as it was sent (its cursor in its params).
// acphttp calls one log's methods one at a time, with the numbers
// contiguous: Append after the last appended, Forget from the oldest.
type StreamLog interface {
	// Append keeps msgs, numbered first, first+1, ... It may keep them
	// after it returns (a log that writes behind): After then returns
	// what every earlier Append kept, or an error. An error (this call's,
	// or an earlier write's found now) makes acphttp drop what the stream
	// retains: a resume from before it is refused as expired.
	Append(first uint64, msgs [][]byte) error
	// Forget drops the messages numbered through n.
	Forget(through uint64) error
	// After returns the messages numbered n+1 through last, in order. A
	// failure refuses the resume as expired.
	After(n, last uint64) ([][]byte, error)
	// Close drops everything: the stream is gone.
	Close() error
}

// MemoryRetention keeps retained messages in the process's memory: the
// default Retention.
type MemoryRetention struct{}

// Open returns an empty log in memory.
func (MemoryRetention) Open(principal, tag string) StreamLog { return &memLog{} }

// memLog holds messages first .. first+len(spans)-1, copied end to end
// into chunks: a few allocations without pointers rather than one per
// message, which the garbage collector neither counts nor scans one by one.
// A chunk's bytes are never written again once appended, so what After
// returns stays valid while the log takes more.
type memLog struct {
	first  uint64
	spans  []span   // where each message is
	chunks [][]byte // chunks[i] is chunk number base+i
	base   int
}

// span is where one message is: chunk number, offset and length.
type span struct{ chunk, off, n int }

// A log's chunks grow from minChunk, doubling to maxChunk; a larger
// message has a chunk of its own size.
const (
	minChunk = 1 << 10
	maxChunk = 64 << 10
)

func (l *memLog) appendCopies() {}

func (l *memLog) Append(first uint64, msgs [][]byte) error {
	if len(l.spans) == 0 {
		l.first = first
	}
	for _, m := range msgs {
		last := len(l.chunks) - 1
		if last < 0 || cap(l.chunks[last])-len(l.chunks[last]) < len(m) {
			size := minChunk
			if last >= 0 {
				size = min(2*cap(l.chunks[last]), maxChunk)
			}
			l.chunks = append(l.chunks, make([]byte, 0, max(size, len(m))))
			last++
		}
		c := l.chunks[last]
		l.spans = append(l.spans, span{chunk: l.base + last, off: len(c), n: len(m)})
		l.chunks[last] = append(c, m...)
	}
	return nil
}

func (l *memLog) Forget(through uint64) error {
	if len(l.spans) == 0 || through < l.first {
		return nil
	}
	k := min(through-l.first+1, uint64(len(l.spans)))
	l.spans = l.spans[k:]
	l.first += k
	if len(l.spans) == 0 {
		l.Close()
		return nil
	}
	// Drop the chunks before the oldest message kept.
	drop := l.spans[0].chunk - l.base
	clear(l.chunks[:drop])
	l.chunks = l.chunks[drop:]
	l.base += drop
	return nil
}

func (l *memLog) After(n, last uint64) ([][]byte, error) {
	if n >= last {
		return nil, nil
	}
	if len(l.spans) == 0 || n+1 < l.first || last >= l.first+uint64(len(l.spans)) {
		return nil, errNotRetained
	}
	out := make([][]byte, 0, last-n)
	for _, sp := range l.spans[n+1-l.first : last+1-l.first] {
		c := l.chunks[sp.chunk-l.base]
		out = append(out, c[sp.off:sp.off+sp.n:sp.off+sp.n])
	}
	return out, nil
}

func (l *memLog) Close() error {
	l.spans, l.chunks, l.base = nil, nil, 0
	return nil
}
