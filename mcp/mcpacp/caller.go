package mcpacp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Caller reaches the MCP servers the client of one ACP connection declared
// with type "acp": make one per connection, Bind it to the connection's
// AgentConn, pass each mcp/message notification the agent receives to
// HandleNotification (acp1 and acp2 adapt the typed handler method), and
// call servers through Connect (an official SDK client session) or Request.
type Caller struct {
	opts   CallerOptions
	mu     sync.Mutex
	peer   Peer
	routes map[[2]string]func(method string, params json.RawMessage)
	nextID uint64
}

// CallerOptions are the defaults Request fills into each request's inner
// _meta where the request has none.
type CallerOptions struct {
	// ClientCapabilities are the MCP client capabilities (default {}).
	ClientCapabilities json.RawMessage
	// ClientInfo is the MCP client's implementation, e.g.
	// {"name":"my-agent","version":"1.0.0"} (default: none).
	ClientInfo json.RawMessage
}

// NewCaller returns a Caller; o may be nil.
func NewCaller(o *CallerOptions) *Caller {
	c := &Caller{routes: map[[2]string]func(string, json.RawMessage){}}
	if o != nil {
		c.opts = *o
	}
	return c
}

// Bind sets the connection requests are sent on.
func (c *Caller) Bind(peer Peer) {
	c.mu.Lock()
	c.peer = peer
	c.mu.Unlock()
}

// HandleNotification delivers an mcp/message notification to the request it
// belongs to, by (serverId, requestId); one for no active request is dropped.
func (c *Caller) HandleNotification(env *Envelope) {
	c.mu.Lock()
	f := c.routes[[2]string{env.ServerID, env.RequestID}]
	c.mu.Unlock()
	if f != nil {
		f(env.Method, env.Params)
	}
}

// newRequestID returns a request id unique on the connection.
func (c *Caller) newRequestID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return fmt.Sprintf("mcp-request:%d", c.nextID)
}

// Request sends one MCP request to serverID and returns its inner outcome;
// requestID empty picks a fresh one. Notifications for it go to onNotify
// (may be nil) until it is answered. When ctx ends, the request is cancelled
// with $/cancel_request and Request returns ctx.Err(). An outer error of the
// binding is returned as a *wire.RPCError.
func (c *Caller) Request(ctx context.Context, serverID, requestID, method string, params json.RawMessage, onNotify func(method string, params json.RawMessage)) (*Outcome, error) {
	if requestID == "" {
		requestID = c.newRequestID()
	}
	params, err := c.withMeta(params)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(Envelope{ServerID: serverID, RequestID: requestID, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	key := [2]string{serverID, requestID}
	c.mu.Lock()
	peer := c.peer
	if _, dup := c.routes[key]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("mcpacp: request %q is already active for server %q", requestID, serverID)
	}
	if onNotify == nil {
		onNotify = func(string, json.RawMessage) {}
	}
	c.routes[key] = onNotify
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.routes, key)
		c.mu.Unlock()
	}()
	if peer == nil {
		return nil, errors.New("mcpacp: Caller not bound to a connection")
	}
	res, err := peer.Send(ctx, Method, wire.Raw(body))
	if err != nil {
		return nil, err
	}
	var out Outcome
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, bindingError(CodeBackendFailed, "Invalid MCP-over-ACP response carrier", map[string]any{"details": err.Error()})
	}
	return &out, nil
}

// withMeta fills the inner _meta keys the binding requires where missing.
func (c *Caller) withMeta(params json.RawMessage) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if !isAbsent(params) {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, fmt.Errorf("mcpacp: params must be a JSON object: %w", err)
		}
	}
	meta := map[string]json.RawMessage{}
	if m := fields["_meta"]; !isAbsent(m) {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("mcpacp: params._meta must be a JSON object: %w", err)
		}
	}
	n := len(meta)
	if _, ok := meta[MetaProtocolVersion]; !ok {
		meta[MetaProtocolVersion] = json.RawMessage(`"` + ProtocolVersion + `"`)
	}
	if _, ok := meta[MetaClientCapabilities]; !ok {
		caps := c.opts.ClientCapabilities
		if caps == nil {
			caps = json.RawMessage(`{}`)
		}
		meta[MetaClientCapabilities] = caps
	}
	if _, ok := meta[MetaClientInfo]; !ok && c.opts.ClientInfo != nil {
		meta[MetaClientInfo] = c.opts.ClientInfo
	}
	if len(meta) == n && !isAbsent(params) {
		return params, nil // complete already: sent as given
	}
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = m
	return json.Marshal(fields)
}
