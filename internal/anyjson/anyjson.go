// Package anyjson decodes a JSON document into the values encoding/json
// gives an any (map[string]any, []any, float64, string, bool, nil) with the
// runtime's scanner, several times faster. Where its reading could differ
// from encoding/json's (a string that is not valid UTF-8 after unescaping, a
// number beyond float64, malformed input) it falls back to encoding/json,
// so the result is always encoding/json's.
package anyjson

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Unmarshal decodes data as json.Unmarshal into an any does.
func Unmarshal(data []byte) (any, error) {
	var dec wire.Decoder
	dec.Reset(data, wire.Strict)
	d := &dec
	if v, ok := value(d); ok && d.Finish() == nil {
		return v, nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}

// value reads one value; ok=false when encoding/json must read the input.
func value(d *wire.Decoder) (any, bool) {
	switch d.Peek() {
	case wire.KindObject:
		if d.BeginObject() != nil {
			return nil, false
		}
		m := map[string]any{}
		for {
			k, more, err := d.NextKey()
			if err != nil || !utf8.Valid(k) {
				return nil, false
			}
			if !more {
				return m, true
			}
			key := string(k)
			v, ok := value(d)
			if !ok {
				return nil, false
			}
			m[key] = v
		}
	case wire.KindArray:
		if d.BeginArray() != nil {
			return nil, false
		}
		a := []any{}
		for {
			more, err := d.NextItem()
			if err != nil {
				return nil, false
			}
			if !more {
				return a, true
			}
			v, ok := value(d)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
	case wire.KindString:
		b, err := d.ReadStringBytes()
		if err != nil || !utf8.Valid(b) {
			return nil, false
		}
		return string(b), true
	case wire.KindNumber:
		b, err := d.ReadNumberRaw()
		if err != nil {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(b), 64)
		return f, err == nil
	case wire.KindBool:
		b, err := d.ReadBool()
		return b, err == nil
	case wire.KindNull:
		return nil, d.ReadNull() == nil
	}
	return nil, false
}
