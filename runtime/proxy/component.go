package proxy

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/acpgen/acpgen/runtime/wire"
)

const (
	methodInitialize    = "initialize"
	methodCancelRequest = jsonrpc.CancelRequestMethod
)

// ComponentOptions configure a Proxy Chains component.
type ComponentOptions struct {
	// Names is the dialect the proxy wraps its successor's messages in
	// until the conductor has used one: its proxy/initialize (or
	// _proxy/initialize) sets the dialect, and so does each successor
	// message it sends. Zero is the schema's names.
	Names proxychain.Dialect
}

// Component turns conn, a proxy's one connection to a Proxy Chains
// conductor, into the predecessor and successor links Run takes:
//
//   - proxy/initialize reaches the predecessor link as initialize (same id
//     and params), so an interceptor on initialize sees it, and the
//     proxy forwards initialize to its successor before it answers;
//   - the Rust SDK's names (_proxy/initialize, _proxy/successor) are read
//     as the schema's, and the proxy wraps in the dialect the conductor
//     last used (ComponentWith chooses the one used before that);
//   - a proxy/successor request or notification from the conductor is the
//     successor's message it wraps, its envelope's _meta dropped
//     (hop-local); the answer to it goes back as the answer to the
//     proxy/successor request, unchanged;
//   - every other message is the predecessor's, and what the proxy sends
//     its predecessor goes to the conductor as is;
//   - what the proxy sends its successor goes out wrapped in
//     proxy/successor, without envelope _meta; the answer is the
//     successor's;
//   - $/cancel_request is per hop, never wrapped: one from the conductor
//     goes to the link whose request it names, and the proxy's cancel of
//     a request it wrapped names that request;
//   - a batch is refused with one -32600 (id null): Proxy Chains runs on
//     ACP v1, which has none, and one array could not carry the answers
//     of both links.
func Component(conn Link) (predecessor, successor Link) {
	return ComponentWith(conn, ComponentOptions{})
}

// ComponentWith is Component with options.
func ComponentWith(conn Link, o ComponentOptions) (predecessor, successor Link) {
	c := &component{conn: conn, sent: map[string]bool{}, got: map[string]bool{}, closed: make(chan struct{})}
	c.names.Store(uint32(o.Names))
	for s := range c.in {
		c.in[s] = make(chan read)
	}
	return &vlink{c, 0}, &vlink{c, 1}
}

type component struct {
	conn   Link
	wmu    sync.Mutex // the two links write to one connection
	mu     sync.Mutex
	sent   map[string]bool // ids of requests sent to the successor, wrapped
	got    map[string]bool // ids of proxy/successor requests received, unanswered
	names  atomic.Uint32   // the proxychain.Dialect to wrap in
	in     [2]chan read    // what the demultiplexer hands each link
	start  sync.Once
	closed chan struct{}
	once   sync.Once
}

type read struct {
	frame []byte
	err   error
}

// vlink is one of the two links over the conductor connection.
type vlink struct {
	c *component
	s side
}

func (v *vlink) Read() ([]byte, error) {
	v.c.start.Do(func() { go v.c.demux() })
	select {
	case r := <-v.c.in[v.s]:
		return r.frame, r.err
	case <-v.c.closed:
		return nil, io.EOF
	}
}

func (v *vlink) Write(msg []byte) error {
	if v.s == successor {
		msg = v.c.wrap(msg)
	}
	v.c.wmu.Lock()
	defer v.c.wmu.Unlock()
	return v.c.conn.Write(msg)
}

// Close closes the conductor connection: the two links share it.
func (v *vlink) Close() error {
	var err error
	v.c.once.Do(func() {
		close(v.c.closed)
		err = v.c.conn.Close()
	})
	return err
}

// demux reads the conductor connection and hands each message to its
// link; the connection's end goes to the predecessor link, whose end ends
// the chain.
func (c *component) demux() {
	for {
		frame, err := c.conn.Read()
		s := predecessor
		if err == nil {
			frame, s = c.route(frame)
		}
		if frame == nil && err == nil {
			continue
		}
		select {
		case c.in[s] <- read{frame, err}:
		case <-c.closed:
			return
		}
		if err != nil && !errors.Is(err, ErrFrameTooBig) {
			return
		}
	}
}

// route says which link a message from the conductor is for, unwrapping
// or renaming it; a nil frame was answered here.
func (c *component) route(frame []byte) ([]byte, side) {
	env, err := jsonrpc.PeekEnvelope(frame)
	if err != nil && isBatch(frame) {
		c.answer(nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: a Proxy Chains connection carries no batches"})
		return nil, predecessor
	}
	if err != nil {
		return frame, predecessor
	}
	m, dialect := proxychain.Of(env.Name)
	switch {
	case m == proxychain.Successor && env.Method != nil:
		c.names.Store(uint32(dialect))
		return c.unwrap(frame, env), successor
	case m == proxychain.Initialize && env.ID != nil:
		c.names.Store(uint32(dialect))
		return appendMessage(nil, env.ID, methodInitialize, env.Params), predecessor
	case env.Name == methodCancelRequest:
		if id, ok := jsonrpc.CancelledID(env.Params); ok && c.has(c.got, jsonrpc.IDKey(id), false) {
			return frame, successor
		}
	case env.Method == nil && env.ID != nil:
		if c.has(c.sent, jsonrpc.IDKey(env.ID), true) {
			return frame, successor
		}
	}
	return frame, predecessor
}

// answer writes an error response to the conductor.
func (c *component) answer(id wire.Raw, e *wire.RPCError) {
	b, _ := jsonrpc.AppendError(nil, id, e)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.Write(b[:len(b)-1])
}

// add records key in set; an id JSON-RPC does not allow (key "") is
// never recorded, so nothing is routed by it.
func (c *component) add(set map[string]bool, key string) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set[key] = true
}

// has reports whether set holds key, deleting it when del is set.
func (c *component) has(set map[string]bool, key string, del bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := set[key]
	if ok && del {
		delete(set, key)
	}
	return ok
}

// unwrap returns the message a proxy/successor envelope carries, with the
// envelope's id; one whose params are not an envelope is answered -32602
// (nil returned).
func (c *component) unwrap(frame []byte, env jsonrpc.Envelope) []byte {
	method, params, ok := envelope(env.Params)
	if !ok {
		if env.ID != nil {
			c.answer(env.ID, &wire.RPCError{Code: wire.CodeInvalidParams, Message: "Invalid params: " + env.Name + " needs a method"})
		}
		return nil
	}
	if env.ID != nil {
		c.add(c.got, jsonrpc.IDKey(env.ID))
	}
	return appendMessage(nil, env.ID, method, params)
}

// envelope reads proxy/successor params: the wrapped method and params
// (nil when absent or null).
func envelope(p wire.Raw) (method string, params wire.Raw, ok bool) {
	d := wire.NewDecoder(p, wire.Lenient)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return "", nil, false
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return "", nil, false
		}
		if !more {
			return method, params, ok
		}
		switch string(key) {
		case "method":
			method, err = d.ReadString()
			ok = err == nil
		case "params":
			params, err = d.ReadRaw()
			if params.Kind() == wire.KindNull {
				params = nil
			}
		default:
			err = d.Skip()
		}
		if err != nil {
			return "", nil, false
		}
	}
}

// wrap returns a message for the successor as the conductor takes it:
// requests and notifications inside proxy/successor, answers and
// $/cancel_request as they are.
func (c *component) wrap(msg []byte) []byte {
	env, err := jsonrpc.PeekEnvelope(msg)
	switch {
	case err != nil:
		return msg
	case env.Method == nil:
		if env.ID != nil {
			c.has(c.got, jsonrpc.IDKey(env.ID), true)
		}
		return msg
	case env.Name == methodCancelRequest:
		return msg
	}
	if env.ID != nil {
		c.add(c.sent, jsonrpc.IDKey(env.ID))
	}
	b := wire.AppendString(append([]byte(nil), `{"method":`...), env.Name)
	if env.Params != nil && env.Params.Kind() != wire.KindNull {
		b = append(append(b, `,"params":`...), env.Params...)
	}
	names := proxychain.Dialect(c.names.Load())
	return appendMessage(nil, env.ID, names.Name(proxychain.Successor), append(b, '}'))
}
