package jsonrpc

import (
	"bytes"
	"fmt"

	"github.com/acpgen/acpgen/runtime/wire"
)

type msgKind uint8

const (
	kindInvalid msgKind = iota
	kindRequest
	kindNotification
	kindResponse
)

// message is one classified inbound frame. Raw members alias the frame.
type message struct {
	kind    msgKind
	id      wire.Raw // the id exactly as received; nil when absent
	replyID wire.Raw // the id to echo in an error reply; nil means null
	callID  int64    // for a response: the outbound call id it names, 0 if none
	method  string
	params  wire.Raw // nil when absent or null
	decoded any      // params decoded by the Dispatcher, or nil
	result  wire.Raw
	rpcErr  *wire.RPCError // for an error response
}

// parse validates frame as one JSON-RPC 2.0 message and classifies it. On
// error, m.replyID is the id to answer with and m.kind/m.callID say whether
// a pending call is owed an answer.
func parse(d *wire.Decoder, frame []byte, m *message, pre Dispatcher, names *names) *FrameError {
	e := Envelope{pre: pre, names: names}
	if f := readMembers(d, frame, &e); f != nil {
		return f
	}
	m.id, m.method, m.result = e.ID, e.Name, e.Result
	if e.decodedFor == e.Name {
		m.decoded = e.decoded
	}
	if e.Params.Kind() != wire.KindNull {
		m.params = e.Params
	}
	if e.Method != nil {
		return request(&e, m)
	}
	return response(&e, m)
}

// parseEntry is parse for a frame not begun: a batch's entry, whose params
// are not decoded in the pass.
func parseEntry(d *wire.Decoder, frame []byte, m *message) *FrameError {
	if f := beginObject(d, frame, wire.Strict); f != nil {
		return f
	}
	return parse(d, frame, m, nil, nil)
}

// request checks a frame with a method: a request when it has an id, else a
// notification.
func request(e *Envelope, m *message) *FrameError {
	m.replyID = e.ReplyID()
	switch {
	case !e.V2:
		return invalidRequest(`"jsonrpc" must be "2.0"`)
	case !e.MethodIsString():
		return invalidRequest("method must be a string")
	case !e.IDValid():
		return invalidRequest("id must be a string, a number or null")
	case len(e.ID) > MaxIDLength:
		return invalidRequest(fmt.Sprintf("id longer than %d bytes", MaxIDLength))
	case e.Result != nil || e.Error != nil:
		return invalidRequest("a request cannot carry result or error")
	case e.Params != nil && !validParams(e.Params.Kind()):
		return invalidRequest("params must be an object or an array")
	}
	m.kind = kindNotification
	if e.IsRequest() {
		m.kind = kindRequest
	}
	return nil
}

func validParams(k wire.Kind) bool {
	return k == wire.KindObject || k == wire.KindArray || k == wire.KindNull
}

// response checks a frame without a method. Its id is never echoed in an
// error reply: the peer would take that reply for the answer to its own
// request with that id.
func response(e *Envelope, m *message) *FrameError {
	hasID, hasResult, hasError := e.ID != nil, e.Result != nil, e.Error != nil
	if !hasID && !hasResult && !hasError {
		return invalidRequest("method is missing")
	}
	m.kind = kindResponse
	if hasID && e.IDValid() {
		m.callID = callIDOf(m.id)
	}
	switch {
	case !hasID:
		return invalidRequest("a response needs an id")
	case !e.IDValid():
		return invalidRequest("id must be a string, a number or null")
	case !e.V2:
		return invalidRequest(`"jsonrpc" must be "2.0"`)
	case hasResult == hasError:
		return invalidRequest("a response must carry exactly one of result and error")
	case hasError:
		rpcErr, reason := parseErrorObject(e.Error)
		if rpcErr == nil {
			return invalidRequest(reason)
		}
		m.rpcErr, m.result = rpcErr, nil
	}
	return nil
}

// parseErrorObject decodes a JSON-RPC error object; data is kept as raw JSON.
func parseErrorObject(raw wire.Raw) (*wire.RPCError, string) {
	var d wire.Decoder
	d.Reset(raw, wire.Strict)
	if d.Peek() != wire.KindObject {
		return nil, "error must be an object"
	}
	_ = d.BeginObject() // raw was validated with the whole frame
	e := &wire.RPCError{}
	var hasCode, hasMessage bool
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, err.Error()
		}
		if !more {
			break
		}
		switch string(key) {
		case "code":
			v, err := d.ReadInt64()
			if err != nil {
				return nil, "error.code must be an integer"
			}
			e.Code, hasCode = wire.ErrorCode(v), true
			continue
		case "message":
			s, err := d.ReadString()
			if err != nil {
				return nil, "error.message must be a string"
			}
			e.Message, hasMessage = s, true
			continue
		case "data":
			v, kind, err := rawValue(&d, raw)
			if err != nil {
				return nil, err.Error()
			}
			e.Data = nil
			if kind != wire.KindNull {
				e.Data = v
			}
			continue
		}
		if err := d.Skip(); err != nil {
			return nil, err.Error()
		}
	}
	switch {
	case !hasCode:
		return nil, "error.code is missing"
	case !hasMessage:
		return nil, "error.message is missing"
	}
	return e, ""
}

// CancelledID reads the requestId member of $/cancel_request's params:
// the id as written, when it is a string, a number or null. The relays
// (runtime/proxy, runtime/conductor) read it too.
func CancelledID(params wire.Raw) (wire.Raw, bool) {
	var d wire.Decoder
	d.Reset(params, wire.Strict)
	if d.Peek() != wire.KindObject {
		return nil, false
	}
	_ = d.BeginObject()
	var id wire.Raw
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		if string(key) == "requestId" {
			raw, kind, err := rawValue(&d, params)
			if err != nil || (kind != wire.KindString && kind != wire.KindNumber && kind != wire.KindNull) {
				return nil, false
			}
			id = raw
			continue
		}
		if err := d.Skip(); err != nil {
			return nil, false
		}
	}
	return id, id != nil
}

// IDKey maps a JSON-RPC id to a key equal ids share: a string by its
// unescaped value ("a" and "\u0061" are one id), a number by its text, null
// "z"; "" for what JSON-RPC does not allow as an id (an object, an array, a
// boolean), which matches nothing. The connection, the proxy, the conductor
// and inspect all key requests by it, so they agree on which ids are equal.
func IDKey(raw wire.Raw) string {
	switch raw.Kind() {
	case wire.KindString:
		var d wire.Decoder
		d.Reset(raw, wire.Strict)
		if s, err := d.ReadStringBytes(); err == nil {
			return "s" + string(s)
		}
	case wire.KindNumber:
		return "n" + string(raw)
	case wire.KindNull:
		return "z"
	}
	return ""
}

// sameID reports whether a and b, valid ids, are one id as IDKey keys them,
// without allocating unless a string holds an escape.
func sameID(a, b wire.Raw) bool {
	if string(a) == string(b) {
		return true
	}
	if a.Kind() != wire.KindString || b.Kind() != wire.KindString ||
		(bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0) {
		return false
	}
	return IDKey(a) == IDKey(b)
}

// callIDOf returns the outbound call id a response id names: our ids are
// positive integers, so anything else names no call (0).
func callIDOf(raw wire.Raw) int64 {
	if len(raw) == 0 || len(raw) > 18 {
		return 0
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// SessionID returns the top-level "sessionId" string of params, an ACP
// session-scoped message's session, and whether params has one. It is the
// one reading of a session from raw params, for routing and turn tracking
// before a message is decoded.
func SessionID(params wire.Raw) (string, bool) {
	b, ok := SessionIDBytes(params)
	return string(b), ok
}

// SessionIDBytes is SessionID without making a string: the bytes may alias
// params, for a caller that keeps the sessions it knows as strings.
func SessionIDBytes(params wire.Raw) ([]byte, bool) {
	if b, ok := plainSessionID(params); ok {
		return b, true
	}
	return decodedSessionID(params)
}

// decodedSessionID is SessionID's reading by the decoder.
func decodedSessionID(params wire.Raw) ([]byte, bool) {
	var d wire.Decoder
	d.Reset(params, wire.Lenient)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return nil, false
	}
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return nil, false
		}
		if string(key) == "sessionId" {
			if d.Peek() != wire.KindString {
				return nil, false
			}
			b, err := d.ReadStringBytes() // d's own scratch at worst: d ends here
			return b, err == nil
		}
		if d.Skip() != nil {
			return nil, false
		}
	}
}

// plainSessionID reads params of the usual shape, whose first member is
// "sessionId" with a string of printable ASCII without escapes, as
// SessionID's decoder reads them, without the decoder's per-byte work
// (once per prompt, on the reading goroutine). Any other params report
// false, for the decoder to read.
func plainSessionID(params wire.Raw) ([]byte, bool) {
	const head = `{"sessionId":"`
	if !bytes.HasPrefix(params, []byte(head)) {
		return nil, false
	}
	v := params[len(head):]
	end := bytes.IndexByte(v, '"')
	if end < 0 {
		return nil, false
	}
	for _, c := range v[:end] {
		if !plainByte[c] {
			return nil, false
		}
	}
	return v[:end], true
}

// The members a sender writes in this order and form, without whitespace,
// make the frames fastParse reads.
const (
	fastHead   = `{"jsonrpc":"2.0",`
	fastID     = `"id":`
	fastMethod = `"method":"`
	fastParams = `","params":{`
)

// fastParse reads a frame of the usual shape, `{"jsonrpc":"2.0","id":ID,
// "method":"NAME","params":{...}}` (the id a plain integer or a string
// without escapes, or no id: a notification; a plain ASCII method name; no
// whitespace before the params' end), with pre decoding the params. It
// reports false, having set nothing in m, for any other frame, params pre
// does not decode, and frames long enough to reach wire.MaxDepth: parse
// reads those, with the same result as here for the frames fastParse
// reads.
func fastParse(d *wire.Decoder, frame []byte, m *message, pre Dispatcher, mode wire.Mode, names *names) bool {
	if pre == nil || len(frame) >= wire.MaxDepth-2 || !bytes.HasPrefix(frame, []byte(fastHead)) {
		return false
	}
	i := len(fastHead)
	var id wire.Raw
	if bytes.HasPrefix(frame[i:], []byte(fastID)) {
		i += len(fastID)
		j := plainID(frame, i)
		if j < 0 || j >= len(frame) || frame[j] != ',' || j-i > MaxIDLength {
			return false
		}
		id, i = wire.Raw(frame[i:j]), j+1
	}
	if !bytes.HasPrefix(frame[i:], []byte(fastMethod)) {
		return false
	}
	i += len(fastMethod)
	j := i + bytes.IndexByte(frame[i:], '"')
	if j < i || !bytes.HasPrefix(frame[j:], []byte(fastParams)) {
		return false
	}
	method, plain := names.plainOf(frame[i:j])
	if !plain {
		return false
	}
	start := j + len(fastParams) - 1 // the params' '{'
	d.Reset(frame[start:], mode)
	v := pre.DecodeParams(method, d)
	end := start + d.Offset()
	d.Reset(nil, wire.Strict)
	if v == nil || end >= len(frame) || frame[end] != '}' || !blank(frame[end+1:]) {
		return false
	}
	m.kind = kindNotification
	if id != nil {
		m.kind, m.id, m.replyID = kindRequest, id, id
	}
	m.method, m.params, m.decoded = method, wire.Raw(frame[start:end]), v
	return true
}

// plainID returns the end of the id at frame[i:] when it is a JSON integer
// without sign or exponent, or a string of printable ASCII without escapes;
// else -1.
func plainID(frame []byte, i int) int {
	switch {
	case i >= len(frame):
		return -1
	case frame[i] == '"':
		for j := i + 1; j < len(frame); j++ {
			switch c := frame[j]; {
			case c == '"':
				return j + 1
			case c < 0x20 || c >= 0x7f || c == '\\':
				return -1
			}
		}
		return -1
	case frame[i] == '0':
		return i + 1
	}
	j := i
	for j < len(frame) && frame[j] >= '0' && frame[j] <= '9' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
