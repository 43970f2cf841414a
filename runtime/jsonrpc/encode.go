package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// ErrInvalidJSON is returned by Call and Notify for params that are not one
// valid JSON value; nothing is written, as one bad frame would make the peer
// answer a parse error nobody can correlate.
var ErrInvalidJSON = errors.New("jsonrpc: params are not valid JSON")

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuf() *[]byte {
	p := bufPool.Get().(*[]byte)
	*p = (*p)[:0]
	return p
}

// putBuf returns the (possibly grown) buffer b to the pool, unless one huge
// frame grew it so much that keeping it would pin memory.
func putBuf(p *[]byte, b []byte) {
	if cap(b) > 64<<10 {
		return
	}
	*p = b[:0]
	bufPool.Put(p)
}

const head = `{"jsonrpc":"2.0"`

func appendRequest(b []byte, id int64, method string, params wire.Raw) ([]byte, error) {
	b = append(b, head+`,"id":`...)
	b = strconv.AppendInt(b, id, 10)
	return appendMethodParams(b, method, params)
}

func appendNotification(b []byte, method string, params wire.Raw) ([]byte, error) {
	return appendMethodParams(append(b, head...), method, params)
}

func appendMethodParams(b []byte, method string, params wire.Raw) ([]byte, error) {
	b = append(b, `,"method":`...)
	b = wire.AppendString(b, method)
	if len(params) > 0 {
		var err error
		if b, err = appendJSON(append(b, `,"params":`...), params); err != nil {
			return b, err
		}
	}
	return append(b, "}\n"...), nil
}

func appendCancelParams(b []byte, id int64) wire.Raw {
	b = append(b, `{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '}')
}

// appendResultHead appends a result response frame up to the result.
func appendResultHead(b []byte, id wire.Raw) []byte {
	b = append(b, head+`,"id":`...)
	b = wire.AppendRaw(b, id)
	return append(b, `,"result":`...)
}

// endResult ends the frame appendResultHead began, of length mark, after
// which a Dispatcher appended the result: valid JSON, so only line
// breaks are looked for (pretty-printed raw members), and only where there
// are some is it found not to be JSON (ok false).
func endResult(b []byte, mark int) (_ []byte, ok bool) {
	switch r := b[mark:]; {
	case len(r) == 0:
		b = append(b, "null"...)
	case bytes.IndexByte(r, '\n') >= 0 || bytes.IndexByte(r, '\r') >= 0:
		var c bytes.Buffer
		if json.Compact(&c, r) != nil {
			return b, false
		}
		b = append(b[:mark], c.Bytes()...)
	}
	return append(b, "}\n"...), true
}

func appendResult(b []byte, id wire.Raw, result wire.Raw) ([]byte, error) {
	b = appendResultHead(b, id)
	if len(result) == 0 {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = appendJSON(b, result); err != nil {
			return b, err
		}
	}
	return append(b, "}\n"...), nil
}

// AppendError appends a JSON-RPC error response frame to b, terminated by a
// newline; a nil id is written as null. Data that cannot be encoded is left
// out rather than losing the reply, and err says why.
func AppendError(b []byte, id wire.Raw, e *wire.RPCError) (_ []byte, err error) {
	b = append(b, head+`,"id":`...)
	b = wire.AppendRaw(b, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, `,"message":`...)
	b = wire.AppendString(b, e.Message)
	if e.Data != nil {
		mark := len(b)
		if b, err = appendData(append(b, `,"data":`...), e.Data); err != nil {
			b = b[:mark]
		}
	}
	return append(b, "}}\n"...), err
}

// appendError is AppendError, logging data it had to drop.
func appendError(b []byte, id wire.Raw, e *wire.RPCError, log *slog.Logger) []byte {
	b, err := AppendError(b, id, e)
	if err != nil {
		log.Error("jsonrpc: error data not encodable, dropped", "code", e.Code, "err", err)
	}
	return b
}

func appendData(b []byte, data any) ([]byte, error) {
	switch v := data.(type) {
	case wire.Raw:
		return appendJSON(b, v)
	case json.RawMessage:
		return appendJSON(b, v)
	}
	enc, err := json.Marshal(data)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// appendJSON appends one JSON value after validating it. A value holding a
// line break (pretty-printed JSON) is compacted, as a raw newline would split
// the frame; JSON strings cannot hold raw line breaks, so the check is exact.
func appendJSON(b []byte, v []byte) ([]byte, error) {
	if !wire.Valid(v) {
		return b, ErrInvalidJSON
	}
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return append(b, v...), nil
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, v); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}
