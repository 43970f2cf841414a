package jsonrpc

import "log/slog"

// warnKind names a warning the peer can trigger once per frame; each kind
// is rate-limited per connection (runtime/internal/peerlog).
type warnKind int

const (
	warnTooLarge warnKind = iota
	warnRejected
	warnUnknownID
	warnRefused
	warnBadCancel
	numWarns
)

func (c *Conn) warn(k warnKind, msg string, args ...any) {
	c.warns[k].Log(c.log, slog.LevelWarn, msg, args...)
}

// ending reports whether the connection is shutting down or its context
// has ended: a write failing then finds the transport already closed.
func (c *Conn) ending() bool {
	if c.isClosed() {
		return true
	}
	c.mu.Lock()
	base := c.base
	c.mu.Unlock()
	return base != nil && base.Err() != nil
}
