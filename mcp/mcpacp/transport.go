package mcpacp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect opens an MCP client session of client to the server declared as
// serverID, at revision ProtocolVersion: the SDK's first request is
// server/discover, sent as an mcp/message like every later one. Agent code
// then calls session.CallTool and the rest as on any MCP server.
func (c *Caller) Connect(ctx context.Context, client *mcp.Client, serverID string) (*mcp.ClientSession, error) {
	return client.Connect(ctx, c.Transport(serverID), &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
}

// Transport returns an MCP transport to serverID for the official SDK's
// Client.Connect: each request it carries is an mcp/message request of its
// own, with a request id unique on the connection; the notifications of a
// request come back as the SDK's notifications; the SDK's
// notifications/cancelled cancels the mcp/message request ($/cancel_request).
// Other notifications from the client, and requests from the server, have no
// channel in the binding and are dropped.
func (c *Caller) Transport(serverID string) mcp.Transport {
	return callerTransport{c: c, serverID: serverID}
}

type callerTransport struct {
	c        *Caller
	serverID string
}

func (t callerTransport) Connect(context.Context) (mcp.Connection, error) {
	ctx, cancel := context.WithCancel(context.Background())
	return &callerConn{c: t.c, serverID: t.serverID, ctx: ctx, cancel: cancel,
		inflight: map[any]context.CancelFunc{}, ready: make(chan struct{}, 1)}, nil
}

// callerConn is the SDK client's connection: Write turns requests into
// mcp/message calls, whose notifications and answers Read yields in order.
type callerConn struct {
	c        *Caller
	serverID string
	ctx      context.Context // ends at Close
	cancel   context.CancelFunc

	mu       sync.Mutex
	queue    []jsonrpc.Message
	ready    chan struct{} // signalled when queue grows
	inflight map[any]context.CancelFunc
	wg       sync.WaitGroup
}

func (cc *callerConn) put(m jsonrpc.Message) {
	cc.mu.Lock()
	cc.queue = append(cc.queue, m)
	cc.mu.Unlock()
	select {
	case cc.ready <- struct{}{}:
	default:
	}
}

func (cc *callerConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		cc.mu.Lock()
		if len(cc.queue) > 0 {
			m := cc.queue[0]
			cc.queue = cc.queue[1:]
			cc.mu.Unlock()
			return m, nil
		}
		cc.mu.Unlock()
		select {
		case <-cc.ready:
		case <-cc.ctx.Done():
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (cc *callerConn) Write(_ context.Context, m jsonrpc.Message) error {
	if cc.ctx.Err() != nil {
		return mcp.ErrConnectionClosed
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return nil // an answer to a server request: none can arrive
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			cc.cancelCall(req.Params)
		}
		return nil
	}
	ctx, cancel := context.WithCancel(cc.ctx)
	cc.mu.Lock()
	cc.inflight[req.ID.Raw()] = cancel
	cc.mu.Unlock()
	cc.wg.Add(1)
	go cc.call(ctx, cancel, req)
	return nil
}

// call runs one request as an mcp/message call and queues its answer.
func (cc *callerConn) call(ctx context.Context, cancel context.CancelFunc, req *jsonrpc.Request) {
	defer cc.wg.Done()
	defer cancel()
	defer func() {
		cc.mu.Lock()
		delete(cc.inflight, req.ID.Raw())
		cc.mu.Unlock()
	}()
	requestID := cc.c.newRequestID()
	out, err := cc.c.Request(ctx, cc.serverID, requestID, req.Method, req.Params, func(method string, params json.RawMessage) {
		cc.put(&jsonrpc.Request{Method: method, Params: params})
	})
	if ctx.Err() != nil {
		return // cancelled: the SDK retired the call already
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
	cc.put(res)
}

// outerError turns a binding failure into the SDK's error for the call: its
// code is the outer one, its message says it is the binding's.
func outerError(err error) *jsonrpc.Error {
	var rpc *wire.RPCError
	if errors.As(err, &rpc) {
		e := &jsonrpc.Error{Code: int64(rpc.Code), Message: "mcp/message: " + rpc.Message}
		if rpc.Data != nil {
			e.Data, _ = json.Marshal(rpc.Data)
		}
		return e
	}
	return &jsonrpc.Error{Code: int64(CodeBackendFailed), Message: fmt.Sprintf("mcp/message: %v", err)}
}

func (cc *callerConn) cancelCall(params json.RawMessage) {
	var p mcp.CancelledParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	cc.mu.Lock()
	cancel := cc.inflight[id.Raw()]
	cc.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Close cancels the requests in flight and ends Read.
func (cc *callerConn) Close() error {
	cc.cancel()
	cc.wg.Wait()
	return nil
}

func (cc *callerConn) SessionID() string { return "" }
