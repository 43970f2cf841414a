package wire

import (
	"strings"
)

// GateViolation is a gated method, member or variant used without the
// capability that allows it.
type GateViolation struct {
	Method     string `json:"method"`
	Pointer    string `json:"pointer"`           // JSON pointer in the params or result; "" for the method itself
	Variant    string `json:"variant,omitempty"` // the gated variant or enum value, if any
	Capability string `json:"capability"`        // capability path in the initialize messages: dotted, or a JSON pointer when a member name holds a dot
	// Required marks the inverse rule: the capability was advertised, so the
	// member at Pointer must be present, and it is not.
	Required bool `json:"required,omitempty"`
}

// GateError lists gate violations. A gate failure is an error, never a
// silent strip: a peer must not drop what it does not support.
type GateError struct {
	Violations []GateViolation
}

func (e *GateError) Error() string {
	var b strings.Builder
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Method)
		if v.Pointer != "" {
			b.WriteString(" " + v.Pointer)
		}
		if v.Variant != "" {
			b.WriteString(" (" + v.Variant + ")")
		}
		if v.Required {
			b.WriteString(" is required once " + v.Capability + " is advertised")
		} else {
			b.WriteString(" needs " + v.Capability)
		}
	}
	return b.String()
}

// ErrorCode is a JSON-RPC 2.0 error code. The generated packages define
// ACP's codes, with a constructor for each.
type ErrorCode int

// RPCError is a JSON-RPC 2.0 error object.
type RPCError struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	Data    any       `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

// JSON-RPC error codes used by the runtime.
const (
	CodeParseError     ErrorCode = -32700
	CodeInvalidRequest ErrorCode = -32600
	CodeMethodNotFound ErrorCode = -32601
	CodeInvalidParams  ErrorCode = -32602
	CodeInternalError  ErrorCode = -32603
	CodeCancelled      ErrorCode = -32800
)

// RPCError converts validation failures to invalid params whose data lists
// every violation.
func (e *ValidationError) RPCError() *RPCError {
	return &RPCError{Code: CodeInvalidParams, Message: "Invalid params: " + e.Error(), Data: map[string]any{"violations": e.Violations}}
}

// RPCError converts gate failures to invalid params naming each capability
// path; a gated method itself is method not found.
func (e *GateError) RPCError() *RPCError {
	code := CodeInvalidParams
	if len(e.Violations) == 1 && e.Violations[0].Pointer == "" && e.Violations[0].Variant == "" {
		code = CodeMethodNotFound
	}
	return &RPCError{Code: code, Message: e.Error(), Data: map[string]any{"gates": e.Violations}}
}
