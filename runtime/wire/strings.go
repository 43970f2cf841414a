package wire

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// strPlain marks bytes that need no attention inside a string: printable
// ASCII other than '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// swarSpecial reports whether any of the 8 bytes in x is '"', '\\', a
// control character or non-ASCII. The classic "has zero/less-than byte"
// tricks may flag false positives only above a true one, which is harmless
// because the caller then inspects bytes one at a time.
func swarSpecial(x uint64) bool {
	q := x ^ (swarOnes * '"')
	s := x ^ (swarOnes * '\\')
	lt := x - swarOnes*0x20
	return (((q-swarOnes)&^q)|((s-swarOnes)&^s)|(lt&^x)|x)&swarHigh != 0
}

// scanString validates a string whose opening quote is just before i. It
// returns the position after the closing quote and whether the string
// contains escapes (so needs unescaping).
func scanString(data []byte, i int) (end int, esc bool, err error) {
	for {
		for i+8 <= len(data) && !swarSpecial(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for i < len(data) && strPlain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, esc, syntaxError(i, "unexpected end of input in string")
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(data) {
				return i, esc, syntaxError(i, "unexpected end of input in string escape")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 {
					return i, esc, syntaxError(i, "unexpected end of input in string escape")
				}
				if _, ok := hex4(data[i+2 : i+6]); !ok {
					return i, esc, syntaxError(i, "invalid \\u escape in string")
				}
				i += 6
			default:
				return i, esc, syntaxError(i, "invalid escape "+quoteChar(data[i+1])+" in string")
			}
		case c < 0x20:
			return i, esc, syntaxError(i, fmt.Sprintf("invalid control character U+%04X in string", c))
		default: // non-ASCII
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, esc, syntaxError(i, "invalid UTF-8 in string")
			}
			i += n
		}
	}
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unescape appends the decoded form of a string body already validated by
// scanString. It still bounds-checks everything so a broken invariant can
// never panic. Lone surrogates become U+FFFD, as in encoding/json.
func unescape(dst, s []byte) []byte {
	for len(s) > 0 {
		j := 0
		for j < len(s) && s[j] != '\\' {
			j++
		}
		dst = append(dst, s[:j]...)
		s = s[j:]
		if len(s) < 2 {
			break
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if len(s) < 4 {
				return append(dst, string(utf8.RuneError)...)
			}
			r, _ := hex4(s)
			s = s[4:]
			if 0xD800 <= r && r < 0xE000 {
				// Combine a high surrogate with an immediately following
				// low one; anything else is a lone surrogate.
				lo := rune(-1)
				if r < 0xDC00 && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					if v, ok := hex4(s[2:6]); ok && 0xDC00 <= v && v < 0xE000 {
						lo = v
					}
				}
				if lo < 0 {
					r = utf8.RuneError
				} else {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					s = s[6:]
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
	return dst
}
