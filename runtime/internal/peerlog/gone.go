package peerlog

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Gone reports whether err, from reading or writing a connection or from
// the code serving it, means that the peer closed the connection or went
// away, or that the connection was cancelled: an ordinary end, logged at
// Debug level only. (A WebSocket's close statuses are its transport's to
// judge.)
func Gone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.Canceled)
}
