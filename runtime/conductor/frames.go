package conductor

import (
	"strconv"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/acpgen/acpgen/runtime/wire"
)

// The methods the conductor acts on besides the Proxy Chains methods (in
// either dialect, runtime/proxychain): the request it turns into
// proxy/initialize, and per-hop cancellation.
const (
	methodInitialize    = "initialize"
	methodCancelRequest = jsonrpc.CancelRequestMethod
)

// kind is what a valid message is.
type kind uint8

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
)

// classify judges an envelope as a jsonrpc.Conn does; reason, when not
// empty, is why the message is refused (-32600).
func classify(e *jsonrpc.Envelope) (k kind, reason string) {
	switch {
	case !e.V2:
		return 0, `"jsonrpc" must be "2.0"`
	case !e.IDValid():
		return 0, "id must be a string, a number or null"
	case e.IsRequest(), e.IsNotification():
		return classifyCall(e)
	case !e.IsResponse():
		return 0, "a message needs a method or an id"
	case (e.Result == nil) == (e.Error == nil):
		return 0, "a response carries exactly one of result and error"
	}
	return kindResponse, ""
}

func classifyCall(e *jsonrpc.Envelope) (kind, string) {
	switch {
	case !e.MethodIsString():
		return 0, "method must be a string"
	case e.Result != nil || e.Error != nil:
		return 0, "a request carries no result or error"
	case !paramsValid(e.Params):
		return 0, "params must be an object or an array"
	case e.IsNotification():
		return kindNotification, ""
	case len(e.ID) > jsonrpc.MaxIDLength:
		return 0, "id longer than " + strconv.Itoa(jsonrpc.MaxIDLength) + " bytes"
	}
	return kindRequest, ""
}

// paramsValid reports params JSON-RPC allows: absent, null (as ACP's
// schema reads it), an object or an array.
func paramsValid(p wire.Raw) bool {
	switch p.Kind() {
	case wire.KindObject, wire.KindArray, wire.KindNull:
		return true
	}
	return p == nil
}

// outbound is a request or notification the conductor writes: a message it
// forwards, plain or wrapped in a proxy/successor envelope (named in the
// dialect names).
type outbound struct {
	method wire.Raw // a JSON string, as read
	params wire.Raw // nil when absent
	wrap   bool
	names  proxychain.Dialect
}

// The Proxy Chains method names as JSON strings, by dialect.
var (
	initializeJSON = [2]wire.Raw{
		proxychain.Schema: wire.Raw(`"` + proxychain.SchemaInitialize + `"`),
		proxychain.Rust:   wire.Raw(`"` + proxychain.RustInitialize + `"`),
	}
	successorJSON = [2]string{
		proxychain.Schema: `"` + proxychain.SchemaSuccessor + `"`,
		proxychain.Rust:   `"` + proxychain.RustSuccessor + `"`,
	}
)

// appendTo appends m as a frame with id (nil for a notification). A
// wrapped message's envelope carries no _meta: that is hop-local.
func (m outbound) appendTo(b, id []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	if m.wrap {
		b = append(append(append(b, `,"method":`...), successorJSON[m.names]...), `,"params":{"method":`...)
		b = appendParams(append(b, m.method...), m.params)
		return append(b, "}}\n"...)
	}
	b = appendParams(append(append(b, `,"method":`...), m.method...), m.params)
	return append(b, "}\n"...)
}

// appendParams appends a params member, when there is one.
func appendParams(b []byte, params wire.Raw) []byte {
	if params == nil {
		return b
	}
	return append(append(b, `,"params":`...), params...)
}

// appendResponse appends the response frame with id and the result or
// error exactly as the answering peer sent it.
func appendResponse(b []byte, id, result, rpcErr wire.Raw) []byte {
	b = append(append(b, `{"jsonrpc":"2.0","id":`...), id...)
	if rpcErr != nil {
		b = append(append(b, `,"error":`...), rpcErr...)
	} else {
		b = append(append(b, `,"result":`...), result...)
	}
	return append(b, "}\n"...)
}

// appendCancel appends the $/cancel_request notification for the
// conductor's own request id on a connection.
func appendCancel(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"`+methodCancelRequest+`","params":{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, "}}\n"...)
}

// errorFrame is a JSON-RPC error response; a nil id is written as null.
func errorFrame(id wire.Raw, e *wire.RPCError) []byte {
	b, _ := jsonrpc.AppendError(nil, id, e)
	return b
}

// unwrap reads a proxy/successor envelope's params: the wrapped message's
// method (its JSON string and name) and params. The envelope's _meta is
// never read, so never copied. reason, when not empty, says why the
// envelope is refused.
func unwrap(params wire.Raw) (m outbound, name, reason string) {
	if params.Kind() != wire.KindObject {
		return m, "", "params must be an object with the wrapped method"
	}
	// The params hold what a message's method and params members hold;
	// the envelope peek reads exactly those (and skips _meta).
	e, err := jsonrpc.PeekEnvelope(params)
	switch {
	case err != nil:
		return m, "", err.Error()
	case e.Method == nil || !e.MethodIsString():
		return m, "", "method must be a string: the wrapped message's method"
	case !paramsValid(e.Params):
		return m, "", "params must be an object or an array (or null, or absent)"
	case proxychain.Reserved(e.Name):
		return m, "", "a Proxy Chains method (" + e.Name + ") cannot be wrapped: the conductor sends proxy/initialize itself (wrap initialize)"
	case e.Name == methodCancelRequest:
		return m, "", "$/cancel_request is never forwarded: cancel your own proxy/successor request on this connection"
	}
	return outbound{method: e.Method, params: e.Params}, e.Name, ""
}

// conductorID reads a response id as one of the conductor's own (a
// positive integer); ok is false for any other id.
func conductorID(id wire.Raw) (int64, bool) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return n, err == nil && n > 0
}
