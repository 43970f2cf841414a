package acphttp

import (
	"context"
	"errors"
	"io"
	"sync"
	"unicode/utf8"
)

// Profile names a transport profile of the /acp endpoint.
type Profile string

// The two profiles.
const (
	WebSocket      Profile = "websocket"
	StreamableHTTP Profile = "streamable-http"
)

// Header names the profiles use.
const (
	HeaderConnectionID = "Acp-Connection-Id"
	HeaderSessionID    = "Acp-Session-Id"
)

// link is one profile's message transport.
type link interface {
	read() ([]byte, error)
	write(msg []byte) error
	close() error
}

// Conn is one transport connection. It is a jsonrpc.MessageReader and
// MessageWriter: pass it as both the reader and the writer of
// acp.NewAgentConn or acp.NewClientConn. Read fails: the jsonrpc runtime uses
// ReadMessage; Write sends p as one message.
type Conn struct {
	l         link
	profile   Profile
	id        string
	principal string
	once      sync.Once
	cerr      error
}

// errByteRead is what Read returns: a Conn delivers whole messages only.
var errByteRead = errors.New("acphttp: Conn delivers whole messages: use ReadMessage")

// Profile reports which profile carries the connection.
func (c *Conn) Profile() Profile { return c.profile }

// ID returns the connection's Acp-Connection-Id: "" on a client WebSocket
// whose server sent none, and on a Streamable HTTP client until initialize
// has been answered.
func (c *Conn) ID() string {
	if h, ok := c.l.(*httpLink); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.id
	}
	return c.id
}

// Principal returns who the server's Auth hook said the client is; without
// Auth, the connection's own principal (see PrincipalFrom); "" on the client
// side.
func (c *Conn) Principal() string { return c.principal }

// ReadMessage returns the next message; io.EOF once the peer has closed.
func (c *Conn) ReadMessage() ([]byte, error) { return c.l.read() }

// WriteMessage sends one message.
func (c *Conn) WriteMessage(msg []byte) error { return c.l.write(msg) }

// Read always fails; see Conn.
func (c *Conn) Read([]byte) (int, error) { return 0, errByteRead }

// Write sends p, without a trailing line terminator, as one message.
func (c *Conn) Write(p []byte) (int, error) {
	m := p
	for len(m) > 0 && (m[len(m)-1] == '\n' || m[len(m)-1] == '\r') {
		m = m[:len(m)-1]
	}
	if err := c.l.write(m); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close ends the connection: a WebSocket is closed, a Streamable HTTP
// connection is deleted. Pending ReadMessage calls return io.EOF.
func (c *Conn) Close() error {
	c.once.Do(func() { c.cerr = c.l.close() })
	return c.cerr
}

// Fail closes the connection as failed, so that the client tells it from an
// ordinary close: a WebSocket with 1011 (internal error) and reason (cut to
// the 123 bytes a close frame holds); a Streamable HTTP connection as Close
// does. A proxy ends its client's connection so when its upstream died.
func (c *Conn) Fail(reason string) error {
	c.once.Do(func() {
		if f, ok := c.l.(failer); ok {
			c.cerr = f.fail(closeReason(reason))
		} else {
			c.cerr = c.l.close()
		}
	})
	return c.cerr
}

// failer is a link that can tell its peer the connection ended in failure.
type failer interface{ fail(reason string) error }

// closeEnded closes c once its ServeFunc returned err: a failure (not the
// peer leaving, not this side's shutdown) with Fail.
func (c *Conn) closeEnded(err error, ctx context.Context) {
	if err != nil && ctx.Err() == nil && !peerGone(err) {
		c.Fail(err.Error())
	}
	c.Close()
}

// closeReason fits s into a WebSocket close frame's reason (123 bytes),
// cut at a character boundary.
func closeReason(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

var _ io.ReadWriteCloser = (*Conn)(nil)
