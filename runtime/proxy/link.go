package proxy

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// Link is one side of a proxy: the connection to its predecessor (the
// editor's side) or to its successor (the agent's side). The proxy reads
// from a Link on one goroutine and writes to it one message at a time.
type Link interface {
	// Read returns the next message, one JSON-RPC frame without a line
	// terminator; the proxy keeps the slice. It returns io.EOF when the
	// peer has closed the connection, or an error saying what ended it
	// ("agent exited: exit status 3").
	Read() ([]byte, error)
	// Write sends one message (no line terminator); msg is reused once it
	// returns.
	Write(msg []byte) error
	// Close ends the link and makes a pending Read return.
	Close() error
}

// ErrFrameTooBig is what a Link's Read returns for a message longer than
// its bound; the proxy answers the sender -32600 and reads on.
var ErrFrameTooBig = errors.New("proxy: message too long")

// Stream returns the Link over newline-delimited JSON: r is the peer's
// output, w its input (os.Stdin and os.Stdout, or an agent process's stdout
// and stdin). A line longer than jsonrpc.DefaultMaxFrame is skipped
// without being held whole. Close closes r and w when they are io.Closers.
func Stream(r io.Reader, w io.Writer) Link {
	return &stream{br: bufio.NewReaderSize(r, 64<<10), r: r, w: w, max: jsonrpc.DefaultMaxFrame}
}

type stream struct {
	br  *bufio.Reader
	r   io.Reader
	w   io.Writer
	max int
	mu  sync.Mutex
	buf []byte
}

func (s *stream) Read() ([]byte, error) {
	for {
		frame, tooBig, err := jsonrpc.ReadFrame(s.br, s.max)
		switch {
		case tooBig:
			return nil, ErrFrameTooBig
		case len(frame) > 0:
			return frame, nil // a last line without a newline: EOF comes next
		case err != nil:
			return nil, err
		}
	}
}

// Write writes msg and its newline with one Write, so a frame is never
// split between writers of the same stream.
func (s *stream) Write(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(append(s.buf[:0], msg...), '\n')
	_, err := s.w.Write(s.buf)
	if cap(s.buf) > 64<<10 {
		s.buf = nil // one huge frame does not pin its buffer
	}
	return err
}

// CloseWrite closes w when it is an io.Closer: the peer's input ends.
func (s *stream) CloseWrite() error {
	if c, ok := s.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func (s *stream) Close() error {
	var errs []error
	for _, c := range []any{s.w, s.r} {
		if c, ok := c.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// MessageConn is a transport that frames messages itself, such as
// *acphttp.Conn (from acphttp.Dial, or given to an acphttp.ServeFunc).
type MessageConn interface {
	jsonrpc.MessageReader
	jsonrpc.MessageWriter
	io.Closer
}

// Messages returns the Link over c.
func Messages(c MessageConn) Link { return messages{c} }

type messages struct{ c MessageConn }

func (m messages) Read() ([]byte, error)  { return m.c.ReadMessage() }
func (m messages) Write(msg []byte) error { return m.c.WriteMessage(msg) }
func (m messages) Close() error           { return m.c.Close() }
