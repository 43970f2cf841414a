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
	e, _, ok := readEnvelope(raw)
	return e, ok
}

// readEnvelope is envelopeOf, reading in the same scan what sessionIn and
// sessionAndKind read of the params, so a frame's params are scanned once.
func readEnvelope(raw []byte) (envelope, paramsRead, bool) {
	var e envelope
	var p paramsRead
	var d wire.Decoder
	d.Reset(raw, wire.Strict)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return e, p, false
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return e, p, false
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
		if to == &e.Params {
			p = paramsRead{}
			if !p.read(&d, raw) {
				return e, p, false
			}
		} else if d.Skip() != nil {
			return e, p, false
		}
		if to != nil {
			*to = raw[start:d.Offset():d.Offset()]
		}
	}
	return e, p, d.Finish() == nil
}

// paramsRead is what lookup(params, "sessionId", "update") and, in an
// update object, lookup(update, "sessionUpdate") find, read in one scan.
type paramsRead struct {
	object bool // params is an object: the rest is set
	// bad marks a name lookup would refuse (its duplicate, or a name equal
	// to it when case is ignored): sessionId, update.
	bad             [2]bool
	session, update []byte
	// kindOK: update is an object lookup reads; kind its sessionUpdate.
	kindOK bool
	kind   []byte
}

// read scans the params value at d, which must be well-formed: false
// when it is not.
func (p *paramsRead) read(d *wire.Decoder, raw []byte) bool {
	if d.Peek() != wire.KindObject {
		return d.Skip() == nil
	}
	p.object = true
	var vals [2][]byte
	ok := members(d, raw, []string{"sessionId", "update"}, vals[:], p.bad[:], func(i int) bool {
		if i != 1 || d.Peek() != wire.KindObject {
			return d.Skip() == nil
		}
		var k [1][]byte
		var bad [1]bool
		ok := members(d, raw, []string{"sessionUpdate"}, k[:], bad[:], func(int) bool { return d.Skip() == nil })
		p.kindOK, p.kind = !bad[0], k[0]
		return ok
	})
	p.session, p.update = vals[0], vals[1]
	return ok
}

// members reads the object at d as lookup does, each value through value
// (which consumes it, given the index of its name or -1), noting in bad
// the names lookup would refuse; false for malformed JSON.
func members(d *wire.Decoder, raw []byte, names []string, vals [][]byte, bad []bool, value func(i int) bool) bool {
	if d.BeginObject() != nil {
		return false
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return false
		}
		if !more {
			return true
		}
		at := -1
		for i, name := range names {
			exact := string(key) == name
			if (exact && vals[i] != nil) || (!exact && strings.EqualFold(string(key), name)) {
				bad[i] = true
			}
			if exact {
				at = i
			}
		}
		d.Peek()
		start := d.Offset()
		if !value(at) {
			return false
		}
		if at >= 0 {
			vals[at] = raw[start:d.Offset()]
		}
	}
}

// sessionAndKind is sessionAndKind(params), from what read found.
func (p *paramsRead) sessionAndKind(params json.RawMessage) (session, kind string) {
	if !p.object || p.bad[0] || p.bad[1] {
		return sessionAndKind(params)
	}
	session = sessionValue(p.session)
	if p.update == nil {
		return session, ""
	}
	if p.kindOK {
		if p.kind == nil {
			return session, ""
		}
		if k, ok := stringValue(p.kind); ok {
			return session, k
		}
	}
	return session, updateKindJSON(params)
}

// sessionIn is sessionIn(params), from what read found.
func (p *paramsRead) sessionIn(params json.RawMessage) string {
	if !p.object || p.bad[0] {
		return sessionIn(params)
	}
	return sessionValue(p.session)
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
