package conductor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Bounds of the routing. A reader holds the one frame it routes (up to the
// frame bound) and its read buffer; frames are written through, never
// queued. At most jsonrpc.MaxAwaited requests the conductor sent on one
// connection wait for their answers; past that a request is refused with
// jsonrpc.CodeOverloaded.
const readSize = 64 << 10

// peer is one connection of the chain: the editor (position 0) or a
// component (positions 1 to n, the agent last).
type peer struct {
	pos  int
	name string // in messages: "the editor", "component 2 (filter)"

	wmu sync.Mutex // one frame at a time
	w   io.Writer

	// names is the proxychain.Dialect the conductor wraps in toward this
	// peer: the chain's until the peer sends a successor message, then
	// the one it used last.
	names atomic.Uint32

	// Guarded by chain.mu.
	next      int64            // the conductor's last request id on this connection
	pending   map[int64]origin // the conductor's requests here, by id
	forwarded map[string]route // this peer's requests the conductor forwarded, by idKey
}

// origin is where a request the conductor sent came from.
type origin struct {
	from *peer
	id   wire.Raw // the sender's id, a copy
	init bool     // the request is proxy/initialize (either dialect)
}

// route is where the conductor sent a request on: the peer and its own id
// there.
type route struct {
	to *peer
	id int64
}

func newPeer(pos int, name string, w io.Writer) *peer {
	return &peer{pos: pos, name: name, w: w, pending: map[int64]origin{}, forwarded: map[string]route{}}
}

// write writes one whole frame. A peer that has gone is the chain's end to
// handle, not the writer's.
func (p *peer) write(frame []byte) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = p.w.Write(frame)
}

// chain routes messages between the editor and the components.
type chain struct {
	names    proxychain.Dialect // of the proxy/initialize the conductor sends
	mu       sync.Mutex
	peers    []*peer // the editor, then the components
	ended    *wire.RPCError
	log      *slog.Logger
	maxFrame int
	dropped  peerlog.Limiter // frames the conductor cannot route
}

// last reports whether p is the agent: the component without a successor.
func (c *chain) last(p *peer) bool { return p.pos == len(c.peers)-1 }

// serve reads p's frames and routes each, until the end of r.
func (c *chain) serve(p *peer, r io.Reader) error {
	br := bufio.NewReaderSize(r, readSize)
	rt := &router{chain: c, from: p}
	for {
		frame, tooBig, err := jsonrpc.ReadFrame(br, c.maxFrame)
		switch {
		case tooBig:
			reason := fmt.Sprintf("a line longer than %d bytes is skipped", c.maxFrame)
			p.write(errorFrame(nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request", Data: details(reason)}))
		default:
			if frame = bytes.TrimSpace(frame); len(frame) > 0 {
				rt.route(frame)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || peerlog.Gone(err) {
				return nil
			}
			return err
		}
	}
}

// details is error data as jsonrpc writes it: the reason under "details".
func details(reason string) wire.Raw {
	return wire.Raw(append(wire.AppendString([]byte(`{"details":`), reason), '}'))
}

// router routes one peer's frames; buf is reused for each frame written.
type router struct {
	*chain
	from *peer
	buf  []byte
}

func (r *router) route(frame []byte) {
	env, err := jsonrpc.PeekEnvelope(frame)
	if err != nil {
		var fe *jsonrpc.FrameError
		if errors.As(err, &fe) {
			r.from.write(errorFrame(nil, fe.RPCError()))
		}
		return
	}
	k, reason := classify(&env)
	switch {
	case reason != "":
		r.from.write(errorFrame(env.ReplyID(), invalidRequest(reason)))
	case k == kindResponse:
		r.respond(&env)
	case r.from.pos == 0 && proxychain.Reserved(env.Name):
		// To the editor the chain is an agent; an editor's proxy/successor
		// would reach the first proxy as a message of its successor's.
		r.refuse(&env, k, &wire.RPCError{Code: wire.CodeMethodNotFound,
			Message: "Method not found: " + env.Name + ": the conductor is an agent to the editor; Proxy Chains methods pass only between it and its components"})
	case r.from.pos > 0 && isSuccessor(env.Name):
		r.successor(&env, k)
	case k == kindNotification && env.Name == methodCancelRequest:
		r.cancel(env.Params)
	default:
		r.plain(&env, k)
	}
}

func invalidRequest(reason string) *wire.RPCError {
	return &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request", Data: details(reason)}
}

// plain forwards a message sent as itself: the editor's to the first
// component, a component's to its predecessor (wrapped, unless that is the
// editor).
func (r *router) plain(env *jsonrpc.Envelope, k kind) {
	m := outbound{method: env.Method, params: env.Params}
	if r.from.pos == 0 {
		to := r.peers[1]
		m.method = r.downstreamMethod(k, env.Name, env.Method, to)
		r.send(env, k, to, m)
		return
	}
	to := r.peers[r.from.pos-1]
	m.wrap = to.pos > 0
	m.names = proxychain.Dialect(to.names.Load())
	r.send(env, k, to, m)
}

// isSuccessor reports proxy/successor in either dialect.
func isSuccessor(name string) bool {
	m, _ := proxychain.Of(name)
	return m == proxychain.Successor
}

// downstreamMethod is the method a message going down the chain arrives
// with: an initialize request becomes proxy/initialize for a component that
// has a successor.
func (r *router) downstreamMethod(k kind, name string, method wire.Raw, to *peer) wire.Raw {
	if k == kindRequest && name == methodInitialize && !r.last(to) {
		return initializeJSON[r.names]
	}
	return method
}

// successor unwraps a component's proxy/successor message and sends it, as
// itself, to the component's successor. The dialect it came in is the one
// the conductor wraps in toward the component from then on.
func (r *router) successor(env *jsonrpc.Envelope, k kind) {
	if r.last(r.from) {
		r.refuse(env, k, &wire.RPCError{Code: wire.CodeMethodNotFound,
			Message: "Method not found: " + env.Name + ": " + r.from.name + " is the last in the chain, it has no successor"})
		return
	}
	_, names := proxychain.Of(env.Name)
	r.from.names.Store(uint32(names))
	m, name, reason := unwrap(env.Params)
	if reason != "" {
		r.refuse(env, k, &wire.RPCError{Code: wire.CodeInvalidParams,
			Message: "Invalid params: " + env.Name + ": " + reason})
		return
	}
	to := r.peers[r.from.pos+1]
	m.method = r.downstreamMethod(k, name, m.method, to)
	r.send(env, k, to, m)
}

// refuse answers a request with the conductor's own error; a notification
// cannot be answered, so it is logged and dropped.
func (r *router) refuse(env *jsonrpc.Envelope, k kind, e *wire.RPCError) {
	if k == kindRequest {
		r.from.write(errorFrame(env.ID, e))
		return
	}
	r.dropped.Log(r.log, slog.LevelWarn, "conductor: notification dropped", "from", r.from.name, "reason", e.Message)
}

// send writes m to the peer to; a request goes under the conductor's own id
// there, remembered for its response and for cancellation.
func (r *router) send(env *jsonrpc.Envelope, k kind, to *peer, m outbound) {
	if k == kindNotification {
		if r.over() {
			return
		}
		r.write(to, m.appendTo(r.buf[:0], nil))
		return
	}
	init := bytes.Equal(m.method, initializeJSON[proxychain.Schema]) || bytes.Equal(m.method, initializeJSON[proxychain.Rust])
	id, refusal := r.open(origin{from: r.from, id: env.ID, init: init}, to)
	if refusal != nil {
		r.from.write(errorFrame(env.ID, refusal))
		return
	}
	r.write(to, m.appendTo(r.buf[:0], strconv.AppendInt(nil, id, 10)))
}

// write writes frame, built in r.buf, to the peer to, and keeps the buffer
// for the next frame unless it has grown past the read buffer's size: one
// huge frame does not pin its copy for the rest of the chain.
func (r *router) write(to *peer, frame []byte) {
	to.write(frame)
	r.buf = frame[:0]
	if cap(frame) > readSize {
		r.buf = nil
	}
}

// over reports a chain that has ended.
func (r *router) over() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended != nil
}

// open takes the next id of the conductor's on to for the request o, or
// says why the request is refused.
func (r *router) open(o origin, to *peer) (int64, *wire.RPCError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.ended != nil:
		return 0, r.ended
	case len(to.pending) >= jsonrpc.MaxAwaited:
		return 0, &wire.RPCError{Code: jsonrpc.CodeOverloaded,
			Message: fmt.Sprintf("Server overloaded: %s has %d requests unanswered; retry later", to.name, jsonrpc.MaxAwaited)}
	}
	to.next++
	o.id = append(wire.Raw(nil), o.id...)
	to.pending[to.next] = o
	r.from.forwarded[jsonrpc.IDKey(o.id)] = route{to: to, id: to.next}
	return to.next, nil
}

// respond returns a response to the peer whose request it answers, under
// that peer's id, with the result or error unchanged.
func (r *router) respond(env *jsonrpc.Envelope) {
	id, ok := conductorID(env.ID)
	var o origin
	if ok {
		r.mu.Lock()
		if o, ok = r.from.pending[id]; ok {
			delete(r.from.pending, id)
			key := jsonrpc.IDKey(o.id)
			if o.from.forwarded[key] == (route{to: r.from, id: id}) {
				delete(o.from.forwarded, key)
			}
		}
		r.mu.Unlock()
	}
	if !ok {
		r.dropped.Log(r.log, slog.LevelWarn, "conductor: response to no request of the conductor's dropped", "from", r.from.name, "id", string(env.ID))
		return
	}
	if o.init && env.Error != nil {
		r.log.Warn("conductor: "+r.from.name+" refused proxy/initialize: each component but the last must run as a Proxy Chains component "+
			"(a scaffolded proxy or examples/proxy with -component), and only the last may be the agent", "error", string(env.Error))
	}
	r.write(o.from, appendResponse(r.buf[:0], o.id, env.Result, env.Error))
}

// cancel handles a peer's $/cancel_request for a request the conductor
// forwarded: the conductor cancels its own request, with its own id, on
// the connection it sent it on. The peer's id never travels further.
func (r *router) cancel(params wire.Raw) {
	id, ok := jsonrpc.CancelledID(params)
	if !ok {
		r.dropped.Log(r.log, slog.LevelWarn, "conductor: "+methodCancelRequest+" without a requestId dropped", "from", r.from.name)
		return
	}
	r.mu.Lock()
	rt, ok := r.from.forwarded[jsonrpc.IDKey(id)]
	r.mu.Unlock()
	if ok {
		r.write(rt.to, appendCancel(r.buf[:0], rt.id))
	}
}

// end ends the chain with e: every request of the editor's still waiting
// is answered with e, and so is every later one. The answers are written
// on a goroutine of their own, as the editor may not be reading; the
// channel returned is closed once they are written (at once when the
// chain had already ended).
func (c *chain) end(e *wire.RPCError) <-chan struct{} {
	written := make(chan struct{})
	editor, first := c.peers[0], c.peers[1]
	c.mu.Lock()
	if c.ended != nil {
		c.mu.Unlock()
		close(written)
		return written
	}
	c.ended = e
	// By the first component's pending requests, not the editor's
	// forwarded ids: two requests in flight may share an id.
	var ids []wire.Raw
	for id, o := range first.pending {
		if o.from == editor {
			ids = append(ids, o.id)
			delete(first.pending, id)
		}
	}
	clear(editor.forwarded)
	c.mu.Unlock()
	go func() {
		defer close(written)
		for _, id := range ids {
			editor.write(errorFrame(id, e))
		}
	}()
	return written
}
