package jsonrpc

import (
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
	result  wire.Raw
	rpcErr  *wire.RPCError // for an error response
}

// frameError is why a frame is rejected.
type frameError struct {
	code   wire.ErrorCode
	reason string
}

func parseError(err error) *frameError {
	return &frameError{code: wire.CodeParseError, reason: err.Error()}
}

func invalidRequest(reason string) *frameError {
	return &frameError{code: wire.CodeInvalidRequest, reason: reason}
}

// rpc builds the reply, with the reason under data.details like the
// TypeScript SDK.
func (e *frameError) rpc() *wire.RPCError {
	msg := "Invalid request"
	if e.code == wire.CodeParseError {
		msg = "Parse error"
	}
	data := wire.AppendString([]byte(`{"details":`), e.reason)
	return &wire.RPCError{Code: e.code, Message: msg, Data: wire.Raw(append(data, '}'))}
}

// parse validates frame as one JSON-RPC 2.0 message and classifies it. On
// error, m.replyID is the id to answer with and m.kind/m.callID say whether
// a pending call is owed an answer.
func parse(d *wire.Decoder, frame []byte, m *message) *frameError {
	if f := beginObject(d, frame); f != nil {
		return f
	}
	var s seen
	if f := s.readMembers(d, frame, m); f != nil {
		return f
	}
	if s.hasMethod {
		return s.request(m)
	}
	return s.response(m)
}

// beginObject starts decoding frame, which must be one JSON object.
func beginObject(d *wire.Decoder, frame []byte) *frameError {
	d.Reset(frame, wire.Strict)
	switch d.Peek() {
	case wire.KindObject:
	case wire.KindArray:
		if !wire.Valid(frame) {
			return parseError(errOf(frame))
		}
		return invalidRequest("batch requests are not supported")
	default:
		if !wire.Valid(frame) {
			return parseError(errOf(frame))
		}
		return invalidRequest("a message must be a JSON object")
	}
	if err := d.BeginObject(); err != nil {
		return parseError(err)
	}
	return nil
}

// seen is which JSON-RPC members a frame carried and whether each had a
// value of the right kind.
type seen struct {
	version, hasID, idOK, hasMethod, methodOK bool
	hasParams, paramsOK, hasResult, hasError  bool
	errRaw                                    wire.Raw
}

// readMembers reads every member of the frame's object into s and m. It
// walks every member even after a problem: a syntax error anywhere makes the
// frame a parse error, which takes precedence.
func (s *seen) readMembers(d *wire.Decoder, frame []byte, m *message) *frameError {
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return parseError(err)
		}
		if !more {
			break
		}
		read, err := s.member(d, frame, key, m)
		if err != nil {
			return parseError(err)
		}
		if read {
			continue
		}
		// Unknown members and values of the wrong kind: validate and skip.
		if err := d.Skip(); err != nil {
			return parseError(err)
		}
	}
	if err := d.Finish(); err != nil {
		return parseError(err)
	}
	return nil
}

// member reads the value of member key when it is a JSON-RPC member of the
// right kind; read is false when the value is left for the caller to skip.
func (s *seen) member(d *wire.Decoder, frame, key []byte, m *message) (read bool, err error) {
	var raw wire.Raw
	var kind wire.Kind
	switch string(key) {
	case "jsonrpc":
		s.version = false
		if d.Peek() == wire.KindString {
			v, err := d.ReadStringBytes()
			s.version = err == nil && string(v) == "2.0"
			return true, err
		}
	case "method":
		s.hasMethod, s.methodOK = true, false
		if d.Peek() == wire.KindString {
			m.method, err = d.ReadString()
			s.methodOK = err == nil
			return true, err
		}
	case "id":
		if raw, kind, err = rawValue(d, frame); err != nil {
			return true, err
		}
		s.hasID = true
		s.idOK = kind == wire.KindString || kind == wire.KindNumber || kind == wire.KindNull
		m.id = raw
		return true, nil
	case "params":
		if raw, kind, err = rawValue(d, frame); err != nil {
			return true, err
		}
		s.hasParams = true
		s.paramsOK = kind == wire.KindObject || kind == wire.KindArray || kind == wire.KindNull
		m.params = nil
		if kind != wire.KindNull {
			m.params = raw
		}
		return true, nil
	case "result":
		m.result, _, err = rawValue(d, frame)
		s.hasResult = err == nil
		return true, err
	case "error":
		s.errRaw, _, err = rawValue(d, frame)
		s.hasError = err == nil
		return true, err
	}
	return false, nil
}

// request checks a frame with a method: a request when it has an id, else a
// notification.
func (s *seen) request(m *message) *frameError {
	if s.hasID && s.idOK {
		m.replyID = m.id
	}
	switch {
	case !s.version:
		return invalidRequest(`"jsonrpc" must be "2.0"`)
	case !s.methodOK:
		return invalidRequest("method must be a string")
	case s.hasID && !s.idOK:
		return invalidRequest("id must be a string, a number or null")
	case s.hasResult || s.hasError:
		return invalidRequest("a request cannot carry result or error")
	case s.hasParams && !s.paramsOK:
		return invalidRequest("params must be an object or an array")
	}
	m.kind = kindNotification
	if s.hasID {
		m.kind = kindRequest
	}
	return nil
}

// response checks a frame without a method. Its id is never echoed in an
// error reply: the peer would take that reply for the answer to its own
// request with that id.
func (s *seen) response(m *message) *frameError {
	if !s.hasID && !s.hasResult && !s.hasError {
		return invalidRequest("method is missing")
	}
	m.kind = kindResponse
	if s.hasID && s.idOK {
		m.callID = callIDOf(m.id)
	}
	switch {
	case !s.hasID:
		return invalidRequest("a response needs an id")
	case !s.idOK:
		return invalidRequest("id must be a string, a number or null")
	case !s.version:
		return invalidRequest(`"jsonrpc" must be "2.0"`)
	case s.hasResult == s.hasError:
		return invalidRequest("a response must carry exactly one of result and error")
	case s.hasError:
		e, reason := parseErrorObject(s.errRaw)
		if e == nil {
			return invalidRequest(reason)
		}
		m.rpcErr, m.result = e, nil
	}
	return nil
}

// rawValue returns the next value's bytes, which alias frame, and its kind.
func rawValue(d *wire.Decoder, frame []byte) (wire.Raw, wire.Kind, error) {
	kind := d.Peek() // also skips whitespace, so Offset is the value's start
	start := d.Offset()
	if err := d.Skip(); err != nil {
		return nil, kind, err
	}
	return wire.Raw(frame[start:d.Offset()]), kind, nil
}

// errOf returns the syntax error of invalid JSON.
func errOf(b []byte) error {
	var d wire.Decoder
	d.Reset(b, wire.Strict)
	if err := d.Skip(); err != nil {
		return err
	}
	return d.Finish()
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

// requestIDParam reads {"requestId": id} of $/cancel_request.
func requestIDParam(params wire.Raw) (wire.Raw, bool) {
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

// idKey maps an id to a key that equal ids share: a string id by its
// unescaped value ("a" and "\u0061" are the same id), a number by its text.
func idKey(raw wire.Raw) string {
	switch raw.Kind() {
	case wire.KindString:
		var d wire.Decoder
		d.Reset(raw, wire.Strict)
		if s, err := d.ReadStringBytes(); err == nil {
			return "s" + string(s)
		}
	case wire.KindNumber:
		return "n" + string(raw)
	}
	return "z"
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
