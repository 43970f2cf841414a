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

// memLog holds messages first .. first+len(msgs)-1.
type memLog struct {
	first uint64
	msgs  [][]byte
}

func (l *memLog) Append(first uint64, msgs [][]byte) error {
	if len(l.msgs) == 0 {
		l.first = first
	}
	l.msgs = append(l.msgs, msgs...)
	return nil
}

func (l *memLog) Forget(through uint64) error {
	for len(l.msgs) > 0 && l.first <= through {
		l.msgs[0] = nil
		l.msgs = l.msgs[1:]
		l.first++
	}
	if len(l.msgs) == 0 {
		l.msgs = nil
	}
	return nil
}

func (l *memLog) After(n, last uint64) ([][]byte, error) {
	if n >= last {
		return nil, nil
	}
	if len(l.msgs) == 0 || n+1 < l.first || last >= l.first+uint64(len(l.msgs)) {
		return nil, errNotRetained
	}
	return append([][]byte(nil), l.msgs[n+1-l.first:last+1-l.first]...), nil
}

func (l *memLog) Close() error {
	l.msgs = nil
	return nil
}
