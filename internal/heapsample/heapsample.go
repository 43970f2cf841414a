// Package heapsample measures the live heap while a test streams a burst
// of lines through a relay (the inspector, a proxy, the conductor): the
// relay's output goes to a Writer, which counts lines and samples the live
// heap near the burst's end, when a relay that kept frames would hold
// most of them.
package heapsample

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Writer is the receiving end of a burst. Its zero value counts lines
// only; set the fields before the first Write.
type Writer struct {
	// At is the line count at which the live heap is sampled.
	At int
	// StallAt, when positive, is the line count at which the Writer stops
	// reading for Stall and then samples the live heap, so a relay that
	// reads without bound takes in the burst meanwhile.
	StallAt int
	Stall   time.Duration
	// Want, when positive, is the line count that closes Done.
	Want int

	mu    sync.Mutex
	lines int
	heap  uint64
	done  chan struct{}
}

// Write counts p's lines, sampling the heap or stalling on the way.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := w.lines
	w.lines += bytes.Count(p, []byte("\n"))
	if crossed(before, w.lines, w.StallAt) {
		time.Sleep(w.Stall)
		w.heap = max(w.heap, Live())
	}
	if crossed(before, w.lines, w.At) {
		w.heap = max(w.heap, Live())
	}
	if crossed(before, w.lines, w.Want) {
		close(w.doneChan())
	}
	return len(p), nil
}

func crossed(before, after, at int) bool { return at > 0 && before < at && after >= at }

// Done is closed once Want lines arrived.
func (w *Writer) Done() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.doneChan()
}

func (w *Writer) doneChan() chan struct{} {
	if w.done == nil {
		w.done = make(chan struct{})
	}
	return w.done
}

// Lines returns how many lines arrived.
func (w *Writer) Lines() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines
}

// Check fails t when the largest sample exceeds base by more than bound
// bytes, and logs the growth either way.
func (w *Writer) Check(t testing.TB, base uint64, bound int64) {
	t.Helper()
	w.mu.Lock()
	growth := int64(w.heap) - int64(base)
	w.mu.Unlock()
	t.Logf("live heap near the burst's end: %d KiB above the start", growth>>10)
	if growth > bound {
		t.Errorf("live heap grew by %d MiB during the burst, bound %d MiB", growth>>20, bound>>20)
	}
}

// Live returns the live heap after a collection.
func Live() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
