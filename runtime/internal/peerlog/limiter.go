// Package peerlog keeps what a peer does from flooding the runtime's logs:
// a Limiter bounds a line the peer can trigger once per message, and Gone
// tells an ordinary disconnect from a failure.
package peerlog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Interval is how often a Limiter writes the summary of a burst of repeats.
const Interval = 10 * time.Second

// Limiter writes one kind of log line at a bounded rate. The zero value is
// ready to use; a Limiter must not be copied after first use.
type Limiter struct {
	mu         sync.Mutex
	open       bool // within an interval that started with a written line
	suppressed int
	log        *slog.Logger
	level      slog.Level
	msg        string
}

// Log writes msg with args at level unless a line of l was written within
// the last Interval; then it only counts it, and the count is written as
// one summary line (msg, "suppressed", n) when the interval ends. The
// logger, level and message of a summary are those of the line that opened
// the interval.
func (l *Limiter) Log(log *slog.Logger, level slog.Level, msg string, args ...any) {
	l.mu.Lock()
	if l.open {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.open, l.log, l.level, l.msg = true, log, level, msg
	l.mu.Unlock()
	log.Log(context.Background(), level, msg, args...)
	time.AfterFunc(Interval, l.flush)
}

// flush ends an interval: it writes the repeats counted in it, if any, and
// opens the next interval, or closes it when there were none.
func (l *Limiter) flush() {
	l.mu.Lock()
	n := l.suppressed
	l.suppressed = 0
	if n == 0 {
		l.open = false
		l.mu.Unlock()
		return
	}
	log, level, msg := l.log, l.level, l.msg
	l.mu.Unlock()
	log.Log(context.Background(), level, msg, "suppressed", n, "interval", Interval)
	time.AfterFunc(Interval, l.flush)
}
