package router

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// route decides what a frame read before initialize does: hand the
// connection to version v with initFrame (the initialize request, rewritten
// when a lower version was selected), send reply, or nothing (ignored).
func (rt *Router) route(frame []byte) (v int, initFrame, reply []byte) {
	// Judged as jsonrpc judges a frame after initialize: not JSON (nesting
	// deeper than wire.MaxDepth included) is a parse error, JSON that is
	// not an object an invalid request.
	frame = bytes.TrimSpace(frame)
	env, err := jsonrpc.PeekEnvelope(frame)
	if err != nil {
		return 0, nil, notMessage(frame, err)
	}
	id := env.ID
	if reply, done := firstMessage(&env); done {
		return 0, nil, reply
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil || params == nil {
		return 0, nil, errorFrame(id, wire.CodeInvalidParams, "initialize params must be an object with a protocolVersion", nil)
	}
	requested, ok := protocolVersion(params["protocolVersion"])
	if !ok {
		return 0, nil, errorFrame(id, wire.CodeInvalidParams, "initialize.protocolVersion must be an integer from 0 to 65535", nil)
	}
	v = rt.selectVersion(requested)
	if v == 0 {
		data := map[string]any{"requested": requested, "supported": rt.supported()}
		return 0, nil, errorFrame(id, codeUnsupported, "Unsupported protocol version", data)
	}
	if v >= 2 && !stringOrIntegerID(id) {
		return 0, nil, errorFrame(nil, wire.CodeInvalidRequest, "ACP v2 request ids must be strings or integers", nil)
	}
	if requested == v {
		return v, frame, nil
	}
	return v, withVersion(frame, params, requested, v), nil
}

// notMessage answers a frame that PeekEnvelope refused.
func notMessage(frame []byte, err error) []byte {
	var fe *jsonrpc.FrameError
	switch {
	case errors.As(err, &fe) && fe.Code == wire.CodeParseError:
		return errorFrame(nil, wire.CodeParseError, "Parse error", nil)
	case frame[0] == '[':
		// The version is chosen from one initialize request: a batch holds
		// other messages, which no implementation chosen yet could answer.
		return errorFrame(nil, wire.CodeInvalidRequest, "a batch cannot come before initialize", nil)
	}
	return errorFrame(nil, wire.CodeInvalidRequest, "a message must be a JSON object", nil)
}

// firstMessage judges a message that is not an initialize request: done
// with reply, or with none (ignored); not done for an initialize request.
func firstMessage(env *jsonrpc.Envelope) (reply []byte, done bool) {
	hasMethod := env.Method != nil
	switch {
	case hasMethod && !env.MethodIsString():
		return errorFrame(nil, wire.CodeInvalidRequest, "method must be a string", nil), true
	case hasMethod && !(env.V2 && env.IDValid()):
		// The implementation would refuse it too, but only after the router
		// had bound the connection to it: refused here, initialize may follow.
		return errorFrame(nil, wire.CodeInvalidRequest, `"jsonrpc" must be "2.0" and id a string, a number or null`, nil), true
	case env.IsNotification(), env.IsResponse() && (env.Result != nil || env.Error != nil):
		return nil, true // nothing awaits a response before initialize
	case !hasMethod:
		return errorFrame(nil, wire.CodeInvalidRequest, "the first ACP message must be an initialize request", nil), true
	case env.Name != "initialize":
		return errorFrame(env.ID, wire.CodeInvalidRequest, "the first ACP request must be initialize", nil), true
	}
	return nil, false
}

// withVersion rewrites the initialize request frame for version v, lower
// than the requested one.
func withVersion(frame []byte, params map[string]json.RawMessage, requested, v int) []byte {
	switch {
	case v == 1 && requested >= 2:
		params = v2ToV1(params)
	case v >= 2 && requested > v && !validInfo(params["info"]):
		// Written for a newer version than the selected one: the required
		// info is substituted rather than refused, as the TypeScript router
		// does.
		params["info"] = json.RawMessage(`{"name":"unknown","version":"unknown"}`)
	}
	params["protocolVersion"] = json.RawMessage(strconv.Itoa(v))
	var msg map[string]json.RawMessage
	_ = json.Unmarshal(frame, &msg) // a JSON object: PeekEnvelope read it
	msg["params"], _ = json.Marshal(params)
	out, _ := json.Marshal(msg)
	return out
}

// protocolVersion reads an integer protocol version in 0..65535.
func protocolVersion(raw json.RawMessage) (int, bool) {
	n, err := strconv.ParseUint(string(raw), 10, 16)
	return int(n), err == nil
}

// stringOrIntegerID reports a JSON-RPC id that v2 accepts.
func stringOrIntegerID(id wire.Raw) bool {
	if len(id) > 0 && id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// v2ToV1 rewrites v2 initialize params for a v1 implementation: the client's
// info becomes clientInfo (kept only when it has a string name and version,
// as v1 requires), and of the capabilities those v1 also has: terminal auth
// (an object in v2, a boolean in v1) and elicitation. Members that do not
// parse are dropped rather than rejected: the client wrote them for a newer
// protocol than the one selected.
func v2ToV1(p map[string]json.RawMessage) map[string]json.RawMessage {
	var caps struct {
		Auth *struct {
			Terminal json.RawMessage `json:"terminal"`
			Meta     json.RawMessage `json:"_meta"`
		} `json:"auth"`
		Elicitation json.RawMessage `json:"elicitation"`
		Meta        json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(p["capabilities"], &caps)
	auth := map[string]any{"terminal": caps.Auth != nil && present(caps.Auth.Terminal)}
	if caps.Auth != nil && present(caps.Auth.Meta) {
		auth["_meta"] = caps.Auth.Meta
	}
	cc := map[string]any{"auth": auth}
	if present(caps.Elicitation) {
		cc["elicitation"] = caps.Elicitation
	}
	if present(caps.Meta) {
		cc["_meta"] = caps.Meta
	}
	out := map[string]json.RawMessage{}
	out["clientCapabilities"], _ = json.Marshal(cc)
	if validInfo(p["info"]) {
		out["clientInfo"] = p["info"]
	}
	if present(p["_meta"]) {
		out["_meta"] = p["_meta"]
	}
	return out
}

// validInfo reports an implementation description with a string name and
// version, as both protocol versions require of one.
func validInfo(raw json.RawMessage) bool {
	var info struct{ Name, Version *string }
	return json.Unmarshal(raw, &info) == nil && info.Name != nil && info.Version != nil
}

// present reports a member that is there and not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}
