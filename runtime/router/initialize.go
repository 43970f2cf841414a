package router

import (
	"bytes"
	"encoding/json"
	"strconv"

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
	switch {
	case !wire.Valid(frame):
		return 0, nil, errorFrame(nil, codeParse, "Parse error", nil)
	case frame[0] == '[':
		return 0, nil, errorFrame(nil, codeInvalidReq, "JSON-RPC batches are not supported", nil)
	case frame[0] != '{':
		return 0, nil, errorFrame(nil, codeInvalidReq, "a message must be a JSON object", nil)
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(frame, &msg); err != nil {
		return 0, nil, errorFrame(nil, codeParse, "Parse error", nil)
	}
	id, hasID := msg["id"]
	rawMethod, hasMethod := msg["method"]
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	var method string
	switch {
	case hasMethod && json.Unmarshal(rawMethod, &method) != nil:
		return 0, nil, errorFrame(nil, codeInvalidReq, "method must be a string", nil)
	case hasMethod && !validEnvelope(msg["jsonrpc"], id, hasID):
		// The implementation would refuse it too, but only after the router
		// had bound the connection to it: refused here, initialize may follow.
		return 0, nil, errorFrame(nil, codeInvalidReq, `"jsonrpc" must be "2.0" and id a string, a number or null`, nil)
	case hasMethod && !hasID, !hasMethod && hasID && (hasResult || hasError):
		return 0, nil, nil // nothing awaits a response before initialize
	case !hasMethod:
		return 0, nil, errorFrame(nil, codeInvalidReq, "the first ACP message must be an initialize request", nil)
	case method != "initialize":
		return 0, nil, errorFrame(id, codeInvalidReq, "the first ACP request must be initialize", nil)
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return 0, nil, errorFrame(id, codeInvalidArgs, "initialize params must be an object with a protocolVersion", nil)
	}
	requested, ok := protocolVersion(params["protocolVersion"])
	if !ok {
		return 0, nil, errorFrame(id, codeInvalidArgs, "initialize.protocolVersion must be an integer from 0 to 65535", nil)
	}
	v = rt.selectVersion(requested)
	if v == 0 {
		data := map[string]any{"requested": requested, "supported": rt.supported()}
		return 0, nil, errorFrame(id, codeUnsupported, "Unsupported protocol version", data)
	}
	if v >= 2 && !stringOrIntegerID(id) {
		return 0, nil, errorFrame(nil, codeInvalidReq, "ACP v2 request ids must be strings or integers", nil)
	}
	if requested == v {
		return v, frame, nil
	}
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
	msg["params"], _ = json.Marshal(params)
	out, _ := json.Marshal(msg)
	return v, out, nil
}

// protocolVersion reads an integer protocol version in 0..65535.
func protocolVersion(raw json.RawMessage) (int, bool) {
	n, err := strconv.ParseUint(string(raw), 10, 16)
	return int(n), err == nil
}

// validEnvelope reports a JSON-RPC 2.0 request or notification envelope:
// jsonrpc "2.0" and, when present, an id that is a string, number or null.
func validEnvelope(version, id json.RawMessage, hasID bool) bool {
	var v string
	if json.Unmarshal(version, &v) != nil || v != "2.0" {
		return false
	}
	return !hasID || id[0] == '"' || id[0] == 'n' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')
}

// stringOrIntegerID reports a JSON-RPC id that v2 accepts.
func stringOrIntegerID(id json.RawMessage) bool {
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
