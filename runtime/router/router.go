// Package router serves several ACP protocol versions (v1 and the v2 draft)
// on one connection endpoint. It reads JSON-RPC messages until a valid
// initialize request arrives, selects the implementation for the requested
// protocol version, and hands it the connection: the initialize message
// first, then every later message unchanged.
//
// A connection is a byte stream of newline-delimited frames (stdio) or a
// transport that frames messages itself (a WebSocket or Streamable HTTP
// connection of runtime/acphttp, a jsonrpc.MessageReader and
// MessageWriter); [Router.ServeConn] takes either, and both go through the
// same routing decision.
//
// The implementations are whatever serves one protocol version, typically a
// generated package's NewAgentConn(...).Run. The router itself knows only
// JSON-RPC and initialize's protocolVersion, so it works with any generated
// package and never re-routes a connection once it has chosen.
package router

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Serve runs one protocol version's implementation on a connection. r yields
// the initialize request first (as a line, or as a message when the
// connection's reader is a jsonrpc.MessageReader); w is the connection's
// writer. Serve owns r and w until it returns.
type Serve func(ctx context.Context, r io.Reader, w io.Writer) error

// Router maps protocol versions to implementations. Configure it with Handle
// before serving; a Router is then safe for concurrent connections.
type Router struct {
	versions map[int]Serve
	// MaxFrame bounds one frame read before initialize (default
	// DefaultMaxFrame): a longer frame is skipped without being held whole
	// and answered -32600 with id null, as jsonrpc answers one over its own
	// bound, and the router goes on waiting for initialize.
	MaxFrame int
}

// DefaultMaxFrame is the bound on a frame read before initialize when
// Router.MaxFrame is not set: nothing legitimate that early is that large.
const DefaultMaxFrame = 1 << 20

// Maximum protocol version: the schema types it as uint16.
const maxVersion = 0xffff

// codeUnsupported reports a protocolVersion no configured implementation can
// serve, with the requested and supported versions as data. It is the code
// the official TypeScript SDK's router uses.
const codeUnsupported wire.ErrorCode = -32022

// New returns a router with no implementations.
func New() *Router { return &Router{versions: map[int]Serve{}} }

// Handle configures the implementation of protocol version v (1 or more).
func (rt *Router) Handle(v int, s Serve) *Router {
	if v < 1 || v > maxVersion || s == nil {
		panic(fmt.Sprintf("router: Handle(%d): want a version in 1..%d and a non-nil Serve", v, maxVersion))
	}
	rt.versions[v] = s
	return rt
}

// ErrClosed reports a connection that ended before a valid initialize.
var ErrClosed = errors.New("router: connection closed before initialize")

// ServeConn reads r until a valid initialize and runs the selected
// implementation on the connection. Before that, notifications and
// responses are ignored and every other message is answered with an error
// on w without closing the connection, so the client may send initialize
// again. A batch (a JSON array) before initialize is one such message: it
// is answered with one -32600 error, id null, and none of its entries is
// handled; after initialize the implementation's jsonrpc.Conn answers
// batches.
//
// As with jsonrpc.NewConn, r and w carry newline-delimited JSON unless r is
// a [jsonrpc.MessageReader] or w a [jsonrpc.MessageWriter] (a network
// connection of runtime/acphttp is both): the router then reads, and
// answers, whole messages, and the implementation's reader is a
// MessageReader that returns the initialize message first and then reads r.
func (rt *Router) ServeConn(ctx context.Context, r io.Reader, w io.Writer) error {
	if len(rt.versions) == 0 {
		return errors.New("router: no protocol version is configured")
	}
	limit := rt.MaxFrame
	if limit <= 0 {
		limit = DefaultMaxFrame
	}
	var src source
	if mr, ok := r.(jsonrpc.MessageReader); ok {
		src = &messages{mr: mr, r: r, limit: limit}
	} else {
		src = &lines{br: bufio.NewReaderSize(r, 64<<10), limit: limit}
	}
	mw, _ := w.(jsonrpc.MessageWriter)
	for {
		frame, tooLong, err := src.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ErrClosed
			}
			return err
		}
		var v int
		var initFrame, reply []byte
		switch {
		case tooLong:
			reply = errorFrame(nil, wire.CodeInvalidRequest, fmt.Sprintf("frame exceeds %d bytes", limit), nil)
		case len(bytes.TrimSpace(frame)) == 0:
			continue
		default:
			v, initFrame, reply = rt.route(frame)
		}
		if reply != nil {
			if mw != nil {
				err = mw.WriteMessage(bytes.TrimSuffix(reply, []byte("\n")))
			} else {
				_, err = w.Write(reply)
			}
			if err != nil {
				return err
			}
			continue
		}
		if v == 0 {
			continue // a notification or response: ignored
		}
		return rt.versions[v](ctx, src.handOff(initFrame), w)
	}
}

// source is a connection's input before initialize.
type source interface {
	// next returns the next frame, or reports one over the bound (tooLong,
	// skipped); io.EOF at the end of the input. An end that comes with a
	// frame is reported by the following call.
	next() (frame []byte, tooLong bool, err error)
	// handOff returns the implementation's reader: initFrame, then the
	// input not read yet.
	handOff(initFrame []byte) io.Reader
}

// lines reads newline-delimited frames.
type lines struct {
	br    *bufio.Reader
	limit int
	end   error // the end, seen together with the last frame
}

func (l *lines) next() ([]byte, bool, error) {
	if l.end != nil {
		return nil, false, l.end
	}
	frame, tooLong, err := jsonrpc.ReadFrame(l.br, l.limit)
	if err != nil && (tooLong || errors.Is(err, io.EOF) && len(bytes.TrimSpace(frame)) > 0) {
		l.end = err
		return frame, tooLong, nil
	}
	return frame, tooLong, err
}

func (l *lines) handOff(initFrame []byte) io.Reader {
	return io.MultiReader(bytes.NewReader(append(initFrame, '\n')), l.br)
}

// messages reads a transport that frames messages itself.
type messages struct {
	mr    jsonrpc.MessageReader
	r     io.Reader
	limit int
	eof   error // the end, seen together with a last message
}

func (m *messages) next() ([]byte, bool, error) {
	if m.eof != nil {
		return nil, false, m.eof
	}
	msg, err := m.mr.ReadMessage()
	tooLong := len(msg) > m.limit
	if tooLong {
		msg = nil
	}
	if err != nil && (tooLong || len(bytes.TrimSpace(msg)) > 0) {
		m.eof = err
		return msg, tooLong, nil
	}
	return msg, tooLong, err
}

func (m *messages) handOff(initFrame []byte) io.Reader {
	return &replay{first: initFrame, src: m}
}

// replay is the reader a message transport's implementation gets: a
// MessageReader returning the initialize message first. Closing it closes
// the transport's reader, so that jsonrpc.Conn can end a blocked read.
type replay struct {
	first []byte
	src   *messages
}

// errByteRead is what replay.Read returns: the transport has no byte stream.
var errByteRead = errors.New("router: the connection delivers whole messages: use ReadMessage")

func (p *replay) ReadMessage() ([]byte, error) {
	if m := p.first; m != nil {
		p.first = nil
		return m, nil
	}
	if p.src.eof != nil {
		return nil, p.src.eof
	}
	return p.src.mr.ReadMessage()
}

func (p *replay) Read([]byte) (int, error) { return 0, errByteRead }

func (p *replay) Close() error {
	if c, ok := p.src.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// supported lists the configured versions, ascending.
func (rt *Router) supported() []int { return slices.Sorted(maps.Keys(rt.versions)) }

// selectVersion picks the highest configured version at or below the
// requested one. A v1-only router takes every request as v1, which is how
// v1 peers negotiate: the agent answers with the version it speaks.
func (rt *Router) selectVersion(requested int) int {
	vs := rt.supported()
	if len(vs) == 1 && vs[0] == 1 {
		return 1
	}
	best := 0
	for _, v := range vs {
		if v <= requested {
			best = v
		}
	}
	return best
}

// errorFrame is a JSON-RPC error response frame, newline-terminated; a nil
// id is written as null.
func errorFrame(id wire.Raw, code wire.ErrorCode, msg string, data any) []byte {
	b, _ := jsonrpc.AppendError(nil, id, &wire.RPCError{Code: code, Message: msg, Data: data})
	return b
}
