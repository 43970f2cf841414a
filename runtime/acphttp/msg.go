package acphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// peek is what routing needs to know of a message, read without decoding
// the rest of it.
type peek struct {
	ID      json.RawMessage // a copy: it outlives the message
	Method  *string
	env     jsonrpc.Envelope // the members, classified by jsonrpc's predicates
	session string           // params.sessionId, or result.sessionId of a response
}

// peekMessage reads msg's shape; ok is false unless msg is one JSON-RPC
// envelope whose method, if any, is a string.
func peekMessage(msg []byte) (p peek, ok bool) {
	p, err := peekFrame(msg)
	return p, err == nil
}

// errMethodKind refuses a method that is not a string.
var errMethodKind = errors.New("acphttp: method must be a string")

// peekFrame is peekMessage with the reason msg is refused: a
// *jsonrpc.FrameError, or errMethodKind.
func peekFrame(msg []byte) (peek, error) {
	env, err := jsonrpc.PeekEnvelope(msg)
	if err != nil {
		return peek{}, err
	}
	if env.Method != nil && !env.MethodIsString() {
		return peek{}, errMethodKind
	}
	p := peek{env: env}
	if env.ID != nil {
		p.ID = append(json.RawMessage(nil), env.ID...)
		p.env.ID = wire.Raw(p.ID)
	}
	if env.MethodIsString() {
		p.Method = &env.Name
		p.session, _ = jsonrpc.SessionID(env.Params)
	} else {
		p.session, _ = jsonrpc.SessionID(env.Result)
	}
	return p, nil
}

// errorMessage is a JSON-RPC error response as one message (no line
// terminator); a nil id is written as null.
func errorMessage(id wire.Raw, code wire.ErrorCode, msg string, data any) []byte {
	b, _ := jsonrpc.AppendError(nil, id, &wire.RPCError{Code: code, Message: msg, Data: data})
	return b[:len(b)-1]
}

// isRequest reports a request whose answer can be routed by its id: one
// with id null is answered with id null, which cannot be told from an
// error response to an unreadable message, so it is routed as those are
// (to the connection's stream).
func (p *peek) isRequest() bool      { return p.env.IsRequest() && !p.env.IDIsNull() }
func (p *peek) isNotification() bool { return p.env.IsNotification() }
func (p *peek) isResponse() bool     { return p.env.IsResponse() }
func (p *peek) method() string {
	if p.Method == nil {
		return ""
	}
	return *p.Method
}

// idKey is a request id as a map key (jsonrpc.IDKey: 1 and "1" differ).
func (p *peek) idKey() string { return jsonrpc.IDKey(wire.Raw(bytes.TrimSpace(p.ID))) }

// defaultSessionMethods are the client-to-agent methods whose params
// require a sessionId, in every channel generated from the pinned schema
// (TestDefaultSessionMethods derives them from the schema's IR).
var defaultSessionMethods = []string{
	"session/archive", "session/cancel", "session/close", "session/delete", "session/fork",
	"session/load", "session/prompt", "session/resume", "session/set_config_option",
	"session/set_mode", "session/set_title", "session/status", "session/unarchive",
	"terminal/cancel", "tool_call/cancel",
}

// DefaultSessionMethods returns the methods Options.SessionMethods defaults
// to: the client-to-agent methods whose params require a sessionId, over
// the channels of the pinned schema release (v1 and v2, stable and
// unstable).
func DefaultSessionMethods() []string { return slices.Clone(defaultSessionMethods) }

const (
	methodInitialize   = "initialize"
	methodSessionLoad  = "session/load"
	methodSessionClose = "session/close"
)
