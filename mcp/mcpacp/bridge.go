package mcpacp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxBridgeRequest bounds one request body the bridge reads.
const MaxBridgeRequest = 16 << 20

// Bridge re-exports servers declared with type "acp" as loopback MCP
// endpoints (Streamable HTTP, revision 2026-07-28), for MCP clients that
// only take URLs: each request POSTed to a server's endpoint is sent on
// through the Caller as an mcp/message request, and its notifications and
// answer come back as the response's event stream. Each endpoint listens on
// 127.0.0.1 on a port of its own, requires its own bearer token, and refuses
// requests whose Host is not a loopback name or whose Origin is another's
// (acphttp.HostOriginAllowed), as DNS-rebinding and cross-site pages send.
type Bridge struct {
	c         *Caller
	mu        sync.Mutex
	endpoints map[string]*endpoint
	closed    bool
}

// Endpoint is where a bridged server answers.
type Endpoint struct {
	// URL is the loopback address to POST MCP messages to.
	URL string
	// Token is the bearer token each request must carry
	// ("Authorization: Bearer TOKEN").
	Token string
}

type endpoint struct {
	Endpoint
	// forward answers one request, sending its notifications to notify.
	forward  func(ctx context.Context, req *jsonrpc.Request, notify NotifyFunc) (*Outcome, error)
	srv      *http.Server
	mu       sync.Mutex
	inflight map[any]context.CancelFunc
}

// NewBridge returns a Bridge that forwards through c.
func NewBridge(c *Caller) *Bridge {
	return &Bridge{c: c, endpoints: map[string]*endpoint{}}
}

// Endpoint returns serverID's endpoint, started on first use.
func (b *Bridge) Endpoint(serverID string) (Endpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return Endpoint{}, errors.New("mcpacp: bridge closed")
	}
	if e := b.endpoints[serverID]; e != nil {
		return e.Endpoint, nil
	}
	e, err := listen(func(ctx context.Context, req *jsonrpc.Request, notify NotifyFunc) (*Outcome, error) {
		return b.c.Request(ctx, serverID, "", req.Method, req.Params, func(method string, params json.RawMessage) {
			notify(ctx, method, params)
		})
	})
	if err != nil {
		return Endpoint{}, err
	}
	b.endpoints[serverID] = e
	return e.Endpoint, nil
}

// listen starts a loopback endpoint that answers with forward.
func listen(forward func(context.Context, *jsonrpc.Request, NotifyFunc) (*Outcome, error)) (*endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &endpoint{forward: forward, inflight: map[any]context.CancelFunc{}}
	e.URL = fmt.Sprintf("http://%s/mcp", ln.Addr())
	e.Token = rand.Text()
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: acphttp.DefaultReadHeaderTimeout}
	go e.srv.Serve(ln)
	return e, nil
}

// Close stops every endpoint, cancelling the requests they carry.
func (b *Bridge) Close() error {
	b.mu.Lock()
	b.closed = true
	eps := b.endpoints
	b.endpoints = nil
	b.mu.Unlock()
	var errs []error
	for _, e := range eps {
		errs = append(errs, e.srv.Close())
	}
	return errors.Join(errs...)
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !acphttp.HostOriginAllowed(r, nil, nil) {
		http.Error(w, "Forbidden", http.StatusForbidden)
		return
	}
	want := []byte("Bearer " + e.Token)
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		// No standalone stream and no session to delete: every message
		// belongs to a request.
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBridgeRequest))
	if err != nil {
		http.Error(w, "Request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		http.Error(w, "Invalid JSON-RPC message", http.StatusBadRequest)
		return
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		if ok && req.Method == "notifications/cancelled" {
			e.cancel(req.Params)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	e.answer(w, r, req)
}

// answer forwards req and streams its notifications and answer as
// server-sent events.
func (e *endpoint) answer(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	e.mu.Lock()
	e.inflight[req.ID.Raw()] = cancel
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.inflight, req.ID.Raw())
		e.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	// A notification may be on its way when forward returns (the client
	// went away): done stops writes once the handler is over.
	var mu sync.Mutex
	done := false
	defer func() {
		mu.Lock()
		done = true
		mu.Unlock()
	}()
	send := func(m jsonrpc.Message) {
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	out, err := e.forward(ctx, req, func(_ context.Context, method string, params json.RawMessage) error {
		send(&jsonrpc.Request{Method: method, Params: params})
		return nil
	})
	if ctx.Err() != nil {
		return // the client went away or cancelled: nobody reads an answer
	}
	res := &jsonrpc.Response{ID: req.ID}
	switch {
	case err != nil:
		res.Error = outerError(err)
	case out.Error != nil:
		res.Error = &jsonrpc.Error{Code: out.Error.Code, Message: out.Error.Message, Data: out.Error.Data}
	default:
		res.Result = out.Result
	}
	send(res)
}

func (e *endpoint) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	e.mu.Lock()
	cancel := e.inflight[id.Raw()]
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// HTTPEndpoint offers r's server at a loopback MCP endpoint too, for an
// agent that takes MCP servers over HTTP but not over ACP: requests POSTed
// there follow the binding's rules as mcp/message requests do (MaxActive,
// the inner _meta, unregistration), and are refused as the Bridge's are
// (token, Host, Origin). The endpoint stops when r is closed.
func (r *Registration) HTTPEndpoint() (Endpoint, error) {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	if r.http != nil {
		return r.http.Endpoint, nil
	}
	if r.ctx.Err() != nil {
		return Endpoint{}, errors.New("mcpacp: registration closed")
	}
	e, err := listen(func(ctx context.Context, req *jsonrpc.Request, notify NotifyFunc) (*Outcome, error) {
		id := fmt.Sprintf("http:%v", req.ID.Raw())
		return r.p.serve(ctx, &Envelope{ServerID: r.ServerID, RequestID: id, Method: req.Method, Params: req.Params}, notify)
	})
	if err != nil {
		return Endpoint{}, err
	}
	r.http = e
	context.AfterFunc(r.ctx, func() { e.srv.Close() })
	return e.Endpoint, nil
}
