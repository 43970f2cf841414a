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

// members returns the members of the JSON object raw, the last of a
// duplicate name winning, as encoding/json reads it into a map. The values
// alias raw: what outlives the frame is copied where it is kept
// (keepRaw).
func members(raw []byte) (map[string]json.RawMessage, bool) {
	var dec wire.Decoder
	dec.Reset(raw, wire.Strict)
	d := &dec
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return nil, false
		}
		if !ok {
			break
		}
		k := string(key)
		d.Peek()
		start := d.Offset()
		if d.Skip() != nil {
			return nil, false
		}
		out[k] = raw[start:d.Offset():d.Offset()]
	}
	return out, d.Finish() == nil
}

// member finds the member name of the object raw (well-formed JSON) and
// its value: found=false when there is none; ok=false when encoding/json
// could read it otherwise (raw is not an object, or a member's name equals
// name only when case is ignored, or name occurs twice).
func member(raw []byte, name string) (val []byte, found, ok bool) {
	var dec wire.Decoder
	dec.Reset(raw, wire.Strict)
	d := &dec
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return nil, false, false
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, false, false
		}
		if !more {
			return val, found, true
		}
		exact := string(key) == name
		if (exact && found) || (!exact && strings.EqualFold(string(key), name)) {
			return nil, false, false
		}
		d.Peek()
		start := d.Offset()
		if d.Skip() != nil {
			return nil, false, false
		}
		if exact {
			val, found = raw[start:d.Offset()], true
		}
	}
}

// sessionIn is the sessionId member of params or a result, "" when none.
func sessionIn(raw json.RawMessage) string {
	if v, found, ok := member(raw, "sessionId"); ok {
		if !found || wire.Raw(v).Kind() != wire.KindString {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	return sessionInJSON(raw)
}

// updateKind is a session/update's sessionUpdate discriminator.
func updateKind(params json.RawMessage) string {
	u, found, ok := member(params, "update")
	if ok && !found {
		return ""
	}
	if ok && wire.Raw(u).Kind() == wire.KindObject {
		k, found, ok := member(u, "sessionUpdate")
		switch {
		case ok && !found:
			return ""
		case ok && wire.Raw(k).Kind() == wire.KindString:
			var s string
			if json.Unmarshal(k, &s) == nil {
				return s
			}
		}
	}
	return updateKindJSON(params)
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
