package jsonrpc

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
)

// write writes one whole frame. Once a write fails the stream may hold a
// partial frame, so every later write fails too.
func (c *Conn) write(ctx context.Context, b []byte) error {
	select {
	case c.wlock <- struct{}{}: // uncontended: no wait on ctx
	default:
		select {
		case c.wlock <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-c.wlock }() // a Write that panics in a handler must not keep the lock
	return c.writeLocked(b)
}

// writeLocked is write with the lock held.
func (c *Conn) writeLocked(b []byte) error {
	if c.werr != nil {
		return c.werr
	}
	var err error
	if c.mw != nil {
		err = c.mw.WriteMessage(b[:len(b)-1]) // every frame ends in '\n'
	} else {
		_, err = c.w.Write(b)
	}
	if err != nil {
		c.werr = fmt.Errorf("jsonrpc: write: %w", err)
		level := slog.LevelError
		if c.ending() || peerlog.Gone(err) {
			level = slog.LevelDebug // the peer has gone: an ordinary end
		}
		c.log.Log(context.Background(), level, "jsonrpc: write failed; later writes will fail", "err", err)
		return c.werr
	}
	return nil
}

// preview shortens a frame for logs.
func preview(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
