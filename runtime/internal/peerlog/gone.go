package peerlog

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
)

// Gone reports whether err, from reading or writing a connection or from
// the code serving it, means that the peer closed the connection or went
// away, or that the connection was cancelled: an ordinary end, logged at
// Debug level only. (A WebSocket's close statuses are its transport's to
// judge.)
func Gone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed) || closedNetConn(err) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.Canceled)
}

// closedNetConn recognises net.ErrClosed by the text package net documents
// for it. Importing net instead would make it a dependency of every
// generated package (through runtime/jsonrpc), and of acpgen's in-memory
// type-check of them, which then runs cgo for net's resolver.
func closedNetConn(err error) bool {
	return err != nil && strings.HasSuffix(err.Error(), "use of closed network connection")
}
