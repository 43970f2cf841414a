package proxy

import (
	"encoding/json"

	"github.com/acpgen/acpgen/runtime/wire"
)

const head = `{"jsonrpc":"2.0"`

// appendMessage appends a request (id not nil) or a notification; nil
// params are left out.
func appendMessage(b []byte, id wire.Raw, method string, params wire.Raw) []byte {
	b = append(b, head...)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	b = wire.AppendString(append(b, `,"method":`...), method)
	if len(params) > 0 {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

// appendResult appends a success response.
func appendResult(b []byte, id, result wire.Raw) []byte {
	b = append(append(append(b, head...), `,"id":`...), id...)
	if len(result) == 0 {
		result = wire.Raw("null")
	}
	return append(append(append(b, `,"result":`...), result...), '}')
}

// rpcErrorOf decodes a response's error member (already checked to be a
// JSON value); data is kept as raw JSON, so it is passed on unchanged.
func rpcErrorOf(raw wire.Raw) *wire.RPCError {
	var e struct {
		Code    wire.ErrorCode  `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return &wire.RPCError{Code: wire.CodeInternalError, Message: "malformed error response: " + err.Error()}
	}
	re := &wire.RPCError{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		re.Data = wire.Raw(e.Data)
	}
	return re
}
