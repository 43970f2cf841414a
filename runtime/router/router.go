// Package router serves several ACP protocol versions (v1 and the v2 draft)
// on one connection endpoint. It reads newline-delimited JSON-RPC frames
// until a valid initialize request arrives, selects the implementation for
// the requested protocol version, and hands it the connection: the
// initialize frame first, then every later byte unchanged.
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Serve runs one protocol version's implementation on a connection. r yields
// the initialize request first; Serve owns r and w until it returns.
type Serve func(ctx context.Context, r io.Reader, w io.Writer) error

// Router maps protocol versions to implementations. Configure it with Handle
// before serving; a Router is then safe for concurrent connections.
type Router struct {
	versions map[int]Serve
	// MaxFrame bounds one frame read before initialize (default 1 MiB);
	// a longer frame ends the connection, since nothing legitimate that
	// early is that large.
	MaxFrame int
}

// Maximum protocol version: the schema types it as uint16.
const maxVersion = 0xffff

// Error codes the router answers with.
const (
	codeParse       = -32700
	codeInvalidReq  = -32600
	codeInvalidArgs = -32602
	// codeUnsupported reports a protocolVersion no configured implementation
	// can serve, with the requested and supported versions as data. It is the
	// code the official TypeScript SDK's router uses.
	codeUnsupported = -32022
)

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
// again.
func (rt *Router) ServeConn(ctx context.Context, r io.Reader, w io.Writer) error {
	if len(rt.versions) == 0 {
		return errors.New("router: no protocol version is configured")
	}
	limit := rt.MaxFrame
	if limit <= 0 {
		limit = 1 << 20
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		frame, err := readFrame(br, limit)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return ErrClosed
			}
			return err
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			continue
		}
		v, initFrame, reply := rt.route(frame)
		if reply != nil {
			if _, err := w.Write(reply); err != nil {
				return err
			}
			continue
		}
		if v == 0 {
			continue // a notification or response: ignored
		}
		rest := io.MultiReader(bytes.NewReader(append(initFrame, '\n')), br)
		return rt.versions[v](ctx, rest, w)
	}
}

// readFrame reads one line without its terminator, at most limit bytes.
func readFrame(br *bufio.Reader, limit int) ([]byte, error) {
	var frame []byte
	for {
		chunk, err := br.ReadSlice('\n')
		frame = append(frame, chunk...)
		if len(frame) > limit+2 {
			return nil, fmt.Errorf("router: a frame before initialize is over %d bytes", limit)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(frame, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(frame)) > 0:
			return frame, nil // a last frame without a newline
		default:
			return nil, err
		}
	}
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

// errorFrame is a JSON-RPC error response frame, newline-terminated.
func errorFrame(id json.RawMessage, code int, msg string, data any) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return append(b, '\n')
}
