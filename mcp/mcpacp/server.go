package mcpacp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerHandler serves each request through s, the official SDK's server:
// every request gets a server session of its own, over an in-process
// connection that carries that one request, its notifications and its
// answer, so whatever the server sends while handling it (progress,
// logging) is scoped to it. The request's _meta selects the SDK's
// 2026-07-28 handling, which needs no initialize.
func ServerHandler(s *mcp.Server) Handler {
	return serverHandler{s}
}

type serverHandler struct{ s *mcp.Server }

func (h serverHandler) ServeMCP(ctx context.Context, req *Request, notify NotifyFunc) (*Outcome, error) {
	id, err := jsonrpc.MakeID(req.RequestID)
	if err != nil {
		return nil, err
	}
	c := newOneRequestConn(ctx, id, notify)
	c.push(&jsonrpc.Request{ID: id, Method: req.Method, Params: req.Params})
	ss, err := h.s.Connect(ctx, oneRequestTransport{c}, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	select {
	case res := <-c.answer:
		if res.Error != nil {
			var we *jsonrpc.Error
			if errors.As(res.Error, &we) {
				return &Outcome{Error: &Error{Code: we.Code, Message: we.Message, Data: we.Data}}, nil
			}
			return &Outcome{Error: &Error{Code: -32603, Message: res.Error.Error()}}, nil
		}
		return &Outcome{Result: res.Result}, nil
	case <-ctx.Done():
		// MCP's own cancellation, so the tool handler's ctx ends too.
		params, _ := json.Marshal(&mcp.CancelledParams{RequestID: id.Raw(), Reason: "cancelled over ACP"})
		c.push(&jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		return nil, ctx.Err()
	}
}

type oneRequestTransport struct{ c *oneRequestConn }

func (t oneRequestTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// oneRequestConn is the server side of one request: Read yields the request
// (then a cancellation, if any); Write sends notifications on through
// notify, in order, and hands the answer over.
type oneRequestConn struct {
	ctx    context.Context
	id     jsonrpc.ID
	notify NotifyFunc
	in     chan jsonrpc.Message
	answer chan *jsonrpc.Response
	once   sync.Once
	closed chan struct{}
}

func newOneRequestConn(ctx context.Context, id jsonrpc.ID, notify NotifyFunc) *oneRequestConn {
	return &oneRequestConn{ctx: ctx, id: id, notify: notify, in: make(chan jsonrpc.Message, 4),
		answer: make(chan *jsonrpc.Response, 1), closed: make(chan struct{})}
}

func (c *oneRequestConn) push(m jsonrpc.Message) {
	select {
	case c.in <- m:
	case <-c.closed:
	}
}

func (c *oneRequestConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *oneRequestConn) Write(ctx context.Context, m jsonrpc.Message) error {
	switch m := m.(type) {
	case *jsonrpc.Response:
		if m.ID == c.id {
			select {
			case c.answer <- m:
			default:
			}
		}
		return nil
	case *jsonrpc.Request:
		if m.IsCall() {
			// A request to the client has no channel in the binding (the
			// 2026-07-28 revision asks for input through results instead).
			c.push(&jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: m.Method + " is not available over mcp/message"}})
			return nil
		}
		return c.notify(c.ctx, m.Method, m.Params)
	}
	return nil
}

func (c *oneRequestConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *oneRequestConn) SessionID() string { return "" }
