// Package mcpacp carries MCP over an ACP connection (the unstable schema's
// mcp/message): a Provider serves MCP servers on the client (editor) side,
// a Caller reaches them from the agent side, and both plug into the official
// Go MCP SDK (an *mcp.Server behind the Provider, an *mcp.ClientSession over
// the Caller's Transport).
//
// For MCP clients that only take URLs, a Bridge re-exports the servers an
// agent was offered as loopback Streamable HTTP endpoints; for agents that
// take MCP over HTTP but not over ACP, Registration.HTTPEndpoint offers a
// registration the same way on the client side.
//
// The package speaks JSON only: it works with any generated ACP connection
// (v1 or v2 unstable) through the Peer interface, which their AgentConn and
// ClientConn implement. The packages acp1 and acp2 below it adapt the typed
// handler methods and the session declarations of each version.
//
// The inner MCP revision is 2026-07-28 (ProtocolVersion): every request
// carries its protocol version, client capabilities and client info in
// params._meta, and there is no initialize round trip. See docs/mcp.md.
package mcpacp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Method is the ACP method that carries MCP requests (agent to client) and
// request-scoped MCP notifications (client to agent).
const Method = "mcp/message"

// ProtocolVersion is the only inner MCP revision the binding accepts.
const ProtocolVersion = "2026-07-28"

// The inner params._meta keys that carry what initialize carried in earlier
// MCP revisions.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// Outer (ACP) error codes of binding failures. An inner MCP error is never
// one of these: it travels in a successful answer's error member.
const (
	// CodeInvalidParams: a malformed envelope, or a duplicate active
	// (serverId, requestId).
	CodeInvalidParams wire.ErrorCode = -32602
	// CodeCancelled: the request was cancelled ($/cancel_request, or its
	// server was unregistered).
	CodeCancelled wire.ErrorCode = -32800
	// CodeResourceLimit: the server has MaxActive requests active already.
	CodeResourceLimit wire.ErrorCode = -33000
	// CodeServerUnavailable: no server is registered under the serverId.
	CodeServerUnavailable wire.ErrorCode = -33001
	// CodeBackendFailed: the server failed without an MCP outcome.
	CodeBackendFailed wire.ErrorCode = -33002
)

// CodeUnsupportedProtocolVersion is the inner MCP error for a request whose
// _meta names another revision; its data lists the supported ones.
const CodeUnsupportedProtocolVersion = -32022

// DefaultMaxActive bounds the requests one registered server runs at once.
const DefaultMaxActive = 64

// Peer is the ACP connection end mcp/message frames go out on. The
// generated AgentConn and ClientConn of every version implement it.
type Peer interface {
	Send(ctx context.Context, method string, params wire.Raw) (wire.Raw, error)
	SendNotification(ctx context.Context, method string, params wire.Raw) error
}

// Envelope is the params of mcp/message, request or notification.
type Envelope struct {
	ServerID  string          `json:"serverId"`
	RequestID string          `json:"requestId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// Error is an inner MCP error object.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Outcome is the answer to an mcp/message request: the inner MCP outcome,
// exactly one of Result (any JSON value, null included) or Error.
type Outcome struct {
	Result json.RawMessage
	Error  *Error
	Meta   json.RawMessage
}

// MarshalJSON writes {"result": ...} or {"error": ...}; a nil Result is null.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type carrier struct {
		Result *json.RawMessage `json:"result,omitempty"`
		Error  *Error           `json:"error,omitempty"`
		Meta   json.RawMessage  `json:"_meta,omitempty"`
	}
	c := carrier{Error: o.Error, Meta: o.Meta}
	if o.Error == nil {
		r := o.Result
		if len(r) == 0 {
			r = json.RawMessage("null")
		}
		c.Result = &r
	}
	return json.Marshal(c)
}

// UnmarshalJSON reads a carrier; it fails unless exactly one of result and
// error is present and a present error has a code and a message.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r, hasResult := m["result"]
	e, hasError := m["error"]
	if hasResult == hasError {
		return errors.New("mcp/message answer: want exactly one of result and error")
	}
	*o = Outcome{Meta: m["_meta"]}
	if hasResult {
		o.Result = r
		return nil
	}
	var fields struct {
		Code    *int64          `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(e, &fields); err != nil || fields.Code == nil || fields.Message == nil {
		return errors.New("mcp/message answer: error needs an integer code and a message")
	}
	o.Error = &Error{Code: *fields.Code, Message: *fields.Message, Data: fields.Data}
	return nil
}

// bindingError is an outer error of the binding.
func bindingError(code wire.ErrorCode, msg string, data any) *wire.RPCError {
	return &wire.RPCError{Code: code, Message: msg, Data: data}
}

// isObject reports whether b is a JSON object.
func isObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// isAbsent reports whether b is absent or null.
func isAbsent(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || bytes.Equal(b, []byte("null"))
}
