package mcpacp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Request is one inner MCP request, as a Handler receives it: the envelope,
// with the inner _meta already checked for revision ProtocolVersion.
type Request struct {
	ServerID  string
	RequestID string
	Method    string
	// Params are the inner params, _meta included; nil when absent or null.
	Params json.RawMessage
	// ClientCapabilities and ClientInfo are the caller's, from params._meta
	// (ClientInfo nil when absent).
	ClientCapabilities json.RawMessage
	ClientInfo         json.RawMessage
	// Meta is the envelope's (outer) _meta.
	Meta json.RawMessage
}

// NotifyFunc sends an MCP notification scoped to the request being handled.
// Called after the request completed, it sends nothing and returns nil.
type NotifyFunc func(ctx context.Context, method string, params json.RawMessage) error

// Handler answers inner MCP requests for a registered server. It returns the
// MCP outcome (an inner error is an Outcome with Error set); an error it
// returns is a binding failure, answered -33002 (-32800 once ctx is done).
// ServerHandler makes one from an *mcp.Server.
type Handler interface {
	ServeMCP(ctx context.Context, req *Request, notify NotifyFunc) (*Outcome, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request, notify NotifyFunc) (*Outcome, error)

// ServeMCP calls f.
func (f HandlerFunc) ServeMCP(ctx context.Context, req *Request, notify NotifyFunc) (*Outcome, error) {
	return f(ctx, req, notify)
}

// Provider serves MCP servers to the agent of one ACP connection: make one
// per connection, Bind it to the connection's ClientConn, Register servers,
// and answer each mcp/message request with Serve (acp1 and acp2 adapt it to
// the typed handler method).
type Provider struct {
	mu      sync.Mutex
	peer    Peer
	servers map[string]*Registration
	used    map[string]bool
}

// NewProvider returns a Provider with no server registered.
func NewProvider() *Provider {
	return &Provider{servers: map[string]*Registration{}, used: map[string]bool{}}
}

// Bind sets the connection request-scoped notifications are sent on.
func (p *Provider) Bind(peer Peer) {
	p.mu.Lock()
	p.peer = peer
	p.mu.Unlock()
}

// ServerOptions configures a registration.
type ServerOptions struct {
	// ServerID is the opaque id agents address the server by; empty picks a
	// random one. An id is registered at most once per Provider (connection),
	// even after its registration is closed.
	ServerID string
	// MaxActive bounds the requests running at once (DefaultMaxActive when
	// zero); requests over it are refused -33000.
	MaxActive int
}

// Registration is a server registered on a Provider.
type Registration struct {
	Name     string
	ServerID string

	p         *Provider
	h         Handler
	maxActive int
	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	active    map[string]struct{}
	wg        sync.WaitGroup
	http      *endpoint // HTTPEndpoint's, once started
}

// Register registers h under name. The server answers as soon as Register
// returns: declare it to the agent only afterwards.
func (p *Provider) Register(name string, h Handler, o *ServerOptions) (*Registration, error) {
	var opts ServerOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxActive < 0 {
		return nil, errors.New("mcpacp: MaxActive must not be negative")
	}
	if opts.MaxActive == 0 {
		opts.MaxActive = DefaultMaxActive
	}
	if opts.ServerID == "" {
		opts.ServerID = name + ":" + rand.Text()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used[opts.ServerID] {
		return nil, fmt.Errorf("mcpacp: server id %q was registered on this connection already", opts.ServerID)
	}
	p.used[opts.ServerID] = true
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registration{Name: name, ServerID: opts.ServerID, p: p, h: h, maxActive: opts.MaxActive,
		ctx: ctx, cancel: cancel, active: map[string]struct{}{}}
	p.servers[r.ServerID] = r
	return r, nil
}

// Close unregisters the server: later requests are refused -33001, active
// ones are cancelled (answered -32800), and Close returns once their
// handlers have returned.
func (r *Registration) Close() error {
	r.p.mu.Lock()
	if r.p.servers[r.ServerID] == r {
		delete(r.p.servers, r.ServerID)
	}
	r.p.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	return nil
}

// Serve answers one mcp/message request: the inner outcome, or a
// *wire.RPCError for a binding failure.
func (p *Provider) Serve(ctx context.Context, env *Envelope) (*Outcome, error) {
	return p.serve(ctx, env, nil)
}

// serve answers env; the request's notifications go to send, or as
// mcp/message notifications on the bound connection when send is nil.
func (p *Provider) serve(ctx context.Context, env *Envelope, send NotifyFunc) (*Outcome, error) {
	if env.ServerID == "" || env.RequestID == "" || env.Method == "" {
		return nil, bindingError(CodeInvalidParams, "Invalid params: mcp/message needs serverId, requestId and method", nil)
	}
	if !isAbsent(env.Params) && !isObject(env.Params) {
		return nil, bindingError(CodeInvalidParams, "Invalid params: mcp/message params must be an object", nil)
	}
	r, peer, err := p.admit(env)
	if err != nil {
		return nil, err
	}
	defer r.release(env.RequestID)

	req, inner := checkMeta(env)
	if inner != nil {
		return &Outcome{Error: inner}, nil
	}
	// The request ends when the peer cancels it or the server is unregistered.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()

	if send == nil {
		send = func(ctx context.Context, method string, params json.RawMessage) error {
			if peer == nil {
				return nil
			}
			b, err := json.Marshal(Envelope{ServerID: env.ServerID, RequestID: env.RequestID, Method: method, Params: params})
			if err != nil {
				return err
			}
			return peer.SendNotification(ctx, Method, wire.Raw(b))
		}
	}
	n := &scope{send: send}
	out, err := r.h.ServeMCP(ctx, req, n.notify)
	n.finish() // no notification after the answer
	switch {
	case ctx.Err() != nil:
		return nil, bindingError(CodeCancelled, "Request cancelled", nil)
	case err != nil:
		return nil, bindingError(CodeBackendFailed, "MCP server handler failed", map[string]any{"details": err.Error()})
	case out == nil:
		return nil, bindingError(CodeBackendFailed, "MCP server handler produced no outcome", nil)
	}
	return out, nil
}

// admit finds the registration of env's server and records the request as
// active, or refuses it.
func (p *Provider) admit(env *Envelope) (*Registration, Peer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.servers[env.ServerID]
	if r == nil {
		return nil, nil, bindingError(CodeServerUnavailable, "MCP server registration unavailable", map[string]any{"serverId": env.ServerID})
	}
	if _, dup := r.active[env.RequestID]; dup {
		return nil, nil, bindingError(CodeInvalidParams, "duplicate active MCP request ID", map[string]any{"serverId": env.ServerID, "requestId": env.RequestID})
	}
	if len(r.active) >= r.maxActive {
		return nil, nil, bindingError(CodeResourceLimit, "MCP-over-ACP active request limit exceeded", map[string]any{"serverId": env.ServerID})
	}
	r.active[env.RequestID] = struct{}{}
	r.wg.Add(1)
	return r, p.peer, nil
}

func (r *Registration) release(requestID string) {
	r.p.mu.Lock()
	delete(r.active, requestID)
	r.p.mu.Unlock()
	r.wg.Done()
}

// checkMeta reads the inner _meta the binding requires; a request without
// it or of another revision gets an inner error, as MCP answers it.
func checkMeta(env *Envelope) (*Request, *Error) {
	req := &Request{ServerID: env.ServerID, RequestID: env.RequestID, Method: env.Method, Meta: env.Meta}
	if !isAbsent(env.Params) {
		req.Params = env.Params
	}
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if req.Params != nil {
		_ = json.Unmarshal(req.Params, &params) // an invalid _meta is a missing one
	}
	var version string
	if err := json.Unmarshal(params.Meta[MetaProtocolVersion], &version); err != nil || version == "" {
		return nil, &Error{Code: int64(CodeInvalidParams), Message: "Invalid params: missing " + MetaProtocolVersion + " in params._meta"}
	}
	if version != ProtocolVersion {
		data, _ := json.Marshal(map[string]any{"supported": []string{ProtocolVersion}, "requested": version})
		return nil, &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
	}
	caps := params.Meta[MetaClientCapabilities]
	if !isObject(caps) {
		return nil, &Error{Code: int64(CodeInvalidParams), Message: "Invalid params: missing " + MetaClientCapabilities + " in params._meta"}
	}
	req.ClientCapabilities = caps
	if info := params.Meta[MetaClientInfo]; !isAbsent(info) {
		req.ClientInfo = info
	}
	return req, nil
}

// scope sends the notifications of one request until it is answered.
type scope struct {
	mu   sync.Mutex
	done bool
	send NotifyFunc
}

func (s *scope) notify(ctx context.Context, method string, params json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock() // held while sending: finish waits for a send under way
	if s.done {
		return nil
	}
	return s.send(ctx, method, params)
}

func (s *scope) finish() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
}
