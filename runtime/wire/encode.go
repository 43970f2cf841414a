package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Unlike encoding/json it does not
// HTML-escape (the output is not embedded in HTML); invalid UTF-8 becomes
// \ufffd and U+2028/U+2029 are escaped so the output is also valid
// JavaScript.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	// Read only: the bytes of s, for loading 8 at a time.
	bs := unsafe.Slice(unsafe.StringData(s), len(s))
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && !swarSpecial(binary.LittleEndian.Uint64(bs[i:])) {
			i += 8 // eight plain bytes
			continue
		}
		c := s[i]
		if strPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			b = appendEscapedByte(b, c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xF])
			i += n
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStringBytes is AppendString for a byte slice.
func AppendStringBytes(b []byte, s []byte) []byte {
	// AppendString only reads s during the call, so viewing the bytes as a
	// string without copying is safe.
	return AppendString(b, unsafe.String(unsafe.SliceData(s), len(s)))
}

// appendEscapedByte escapes an ASCII byte that strPlain rejects.
func appendEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// AppendInt appends v in decimal.
func AppendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendUint appends v in decimal.
func AppendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// AppendFloat appends the shortest representation of v that round-trips,
// formatted like encoding/json (ES6 number-to-string). JSON has no NaN or
// infinities, so those become null rather than failing.
func AppendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// Turn e-07 into e-7, as ES6 does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendRaw appends r unchanged, or null when it is empty.
func AppendRaw(b []byte, r Raw) []byte {
	if len(r) == 0 {
		return append(b, "null"...)
	}
	return append(b, r...)
}
