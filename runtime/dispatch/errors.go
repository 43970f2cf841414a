package dispatch

import (
	"errors"
	"log/slog"

	"github.com/acpgen/acpgen/runtime/wire"
)

// MethodNotFound is the error a request for a method this side does not
// handle is answered with (-32601).
func MethodNotFound(method string) error {
	return &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found: " + method}
}

// errNotInitialized answers a request that arrives before initialize.
var errNotInitialized = &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: initialize first"}

// invalidParams converts a decode error to -32602 with the offending
// pointer as data.
func invalidParams(err error) error {
	e := &wire.RPCError{Code: wire.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
	var we *wire.Error
	if errors.As(err, &we) {
		e.Data = map[string]any{"violations": []wire.Violation{{Pointer: we.Pointer, Reason: we.Msg}}}
	}
	return e
}

// local wraps a check this side's own message failed: this side's bug, which
// a handler returning it answers -32603, never -32602.
func local(method, what string, err error) error {
	return &wire.LocalError{Err: err, Method: method, What: what}
}

// refused logs a message this side refused to send and returns the error.
func refused(log *slog.Logger, err error) error {
	log.Warn("message not sent: it fails this side's own checks", "error", err)
	return err
}

// methodGate is the violation of a gated method used without its capability.
func methodGate(method, capability string) *wire.GateError {
	return &wire.GateError{Violations: []wire.GateViolation{{Method: method, Capability: capability}}}
}
