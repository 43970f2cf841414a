package inspect

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/acpgen/acpgen/runtime/wire"
)

// The checker reads every frame's envelope and a few members of its params.
// encoding/json reads a frame twice per call (a validity scan, then the
// decode), which costs more than judging the frame; these readers use the
// runtime's scanner instead, and read exactly what encoding/json would: on
// any input they do not read alike (malformed JSON, a member name that
// matches only case-insensitively, a duplicate) they report ok=false and the
// caller reads it with encoding/json.

// envelopeOf reads the JSON-RPC members of the JSON object raw, the last
// of a duplicate name winning, as encoding/json reads it into a map. The
// values alias raw: what outlives the frame is copied where it is kept
// (keepRaw).
func envelopeOf(raw []byte) (envelope, bool) {
	var e envelope
	var d wire.Decoder
	d.Reset(raw, wire.Strict)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return e, false
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return e, false
		}
		if !ok {
			break
		}
		var to *json.RawMessage
		switch string(key) {
		case "jsonrpc":
			to = &e.JSONRPC
		case "id":
			to = &e.ID
		case "method":
			to = &e.Method
		case "params":
			to = &e.Params
		case "result":
			to = &e.Result
		case "error":
			to = &e.Error
		}
		d.Peek()
		start := d.Offset()
		if d.Skip() != nil {
			return e, false
		}
		if to != nil {
			*to = raw[start:d.Offset():d.Offset()]
		}
	}
	return e, d.Finish() == nil
}

// envelopeJSON reads the JSON-RPC members with encoding/json.
func envelopeJSON(raw []byte) (envelope, error) {
	var ms map[string]json.RawMessage
	err := json.Unmarshal(raw, &ms)
	return envelope{JSONRPC: ms["jsonrpc"], ID: ms["id"], Method: ms["method"],
		Params: ms["params"], Result: ms["result"], Error: ms["error"]}, err
}

// lookup finds the members names of the object raw (well-formed JSON) in
// one scan: vals[i] is names[i]'s value, nil when there is none; ok=false
// when encoding/json could read it otherwise (raw is not an object, or a
// member's name equals one of names only when case is ignored, or a name
// occurs twice).
func lookup(raw []byte, names ...string) (vals [][]byte, ok bool) {
	var d wire.Decoder
	d.Reset(raw, wire.Strict)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return nil, false
	}
	vals = make([][]byte, len(names))
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, false
		}
		if !more {
			return vals, true
		}
		at := -1
		for i, name := range names {
			exact := string(key) == name
			if (exact && vals[i] != nil) || (!exact && strings.EqualFold(string(key), name)) {
				return nil, false
			}
			if exact {
				at = i
			}
		}
		d.Peek()
		start := d.Offset()
		if d.Skip() != nil {
			return nil, false
		}
		if at >= 0 {
			vals[at] = raw[start:d.Offset()]
		}
	}
}

// sessionIn is the sessionId member of params or a result, "" when none.
func sessionIn(raw json.RawMessage) string {
	if vals, ok := lookup(raw, "sessionId"); ok {
		return sessionValue(vals[0])
	}
	return sessionInJSON(raw)
}

// sessionValue is a sessionId member's value as a session, "" for none.
func sessionValue(v []byte) string {
	if s, ok := stringValue(v); ok && v != nil {
		return s
	}
	return ""
}

// updateKind is a session/update's sessionUpdate discriminator.
func updateKind(params json.RawMessage) string {
	_, kind := sessionAndKind(params)
	return kind
}

// sessionAndKind reads a session/update's session and update kind in one
// scan of its params.
func sessionAndKind(params json.RawMessage) (session, kind string) {
	vals, ok := lookup(params, "sessionId", "update")
	if !ok {
		return sessionInJSON(params), updateKindJSON(params)
	}
	session = sessionValue(vals[0])
	u := vals[1]
	if u == nil {
		return session, ""
	}
	if wire.Raw(u).Kind() == wire.KindObject {
		if ks, ok := lookup(u, "sessionUpdate"); ok {
			if ks[0] == nil {
				return session, ""
			}
			if k, ok := stringValue(ks[0]); ok {
				return session, k
			}
		}
	}
	return session, updateKindJSON(params)
}

// keepRaw copies a value read from a frame that the checker keeps or
// returns: the caller may reuse the frame's buffer.
func keepRaw(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

// stringValue reads a JSON string as encoding/json does; false for another
// value. A string of printable, valid UTF-8 without escapes is its bytes.
func stringValue(raw json.RawMessage) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		body := raw[1 : n-1]
		plain := utf8.Valid(body)
		for _, c := range body {
			if c < 0x20 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(body), true
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}
