// Package syncwriter makes the writes of several goroutines to one writer
// whole: a line one goroutine writes is never cut by another's.
package syncwriter

import (
	"io"
	"sync"
)

// Writer serialises Write calls to W.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

// New returns a Writer over w.
func New(w io.Writer) *Writer { return &Writer{W: w} }

// Write writes p to the underlying writer while holding the lock.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}
