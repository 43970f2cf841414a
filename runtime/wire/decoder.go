package wire

import (
	"fmt"
	"strconv"
)

// MaxDepth is the deepest nesting of objects and arrays the decoder accepts.
// It matches encoding/json, and keeps hostile input from exhausting memory.
const MaxDepth = 10000

// Decoder scans one complete JSON document held in memory.
//
// Read methods skip leading whitespace. When a method returns a non-syntax
// error (wrong kind, out of range) the value is not consumed, so the caller
// may try another reading or Skip it; after a syntax error the position is
// unspecified and callers should stop (or Rewind).
type Decoder struct {
	data   []byte
	pos    int
	depth  int
	mode   Mode
	buf    []byte // unescaped string values
	keyBuf []byte // unescaped keys, separate so a key survives reading its value
}

// NewDecoder returns a Decoder reading data.
func NewDecoder(data []byte, mode Mode) *Decoder {
	d := new(Decoder)
	d.Reset(data, mode)
	return d
}

// Reset makes d read data from the start, keeping its scratch buffers.
func (d *Decoder) Reset(data []byte, mode Mode) {
	d.data = data
	d.pos = 0
	d.depth = 0
	d.mode = mode
}

// Mode returns the decoding mode.
func (d *Decoder) Mode() Mode { return d.mode }

// Lenient reports whether generated code should apply schema leniency.
func (d *Decoder) Lenient() bool { return d.mode == Lenient }

// Mark is a saved decoder position, see Decoder.Mark.
type Mark struct {
	pos, depth int
}

// Mark saves the position and nesting depth, for Rewind.
func (d *Decoder) Mark() Mark { return Mark{d.pos, d.depth} }

// Rewind returns to a position saved by Mark.
func (d *Decoder) Rewind(m Mark) {
	// Clamp so a Mark from before a Reset cannot cause an out-of-range
	// slice later.
	d.pos, d.depth = min(max(m.pos, 0), len(d.data)), m.depth
}

// Offset returns the current byte offset in the input.
func (d *Decoder) Offset() int { return d.pos }

// Depth returns the current nesting depth of objects and arrays.
func (d *Decoder) Depth() int { return d.depth }

// Errorf returns a non-syntax error at the current offset. Out of line: see
// Validator.Push.
//
//go:noinline
func (d *Decoder) Errorf(format string, args ...any) *Error {
	return &Error{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// TypeError returns "expected <want>, found <got>" at the current offset.
// With got == KindInvalid (what Peek reports at the end of input or on a
// stray byte) the input is malformed, so the error is a syntax error that
// lenient fallbacks will not swallow.
func (d *Decoder) TypeError(want string, got Kind) *Error {
	if got == KindInvalid {
		found := "end of input"
		if i := skipSpace(d.data, d.pos); i < len(d.data) {
			found = "invalid character " + quoteChar(d.data[i])
		}
		return &Error{Offset: d.pos, Msg: "expected " + want + ", found " + found, Syntax: true}
	}
	return &Error{Offset: d.pos, Msg: "expected " + want + ", found " + got.String()}
}

func syntaxError(off int, msg string) error {
	return &Error{Offset: off, Msg: msg, Syntax: true}
}

func errEOF(off int) error { return syntaxError(off, "unexpected end of input") }

func errChar(off int, c byte, context string) error {
	return syntaxError(off, "invalid character "+quoteChar(c)+" "+context)
}

func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	if c >= 0x80 {
		s = fmt.Sprintf(`"\x%02x"`, c)
	}
	return "'" + s[1:len(s)-1] + "'"
}

func errDepth(off int) error {
	return syntaxError(off, "exceeded maximum nesting depth of "+strconv.Itoa(MaxDepth))
}

// isSpace is the RFC 8259 whitespace set.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace[data[i]] {
		i++
	}
	return i
}

// ws skips whitespace and returns the new position.
func (d *Decoder) ws() int {
	i := skipSpace(d.data, d.pos)
	d.pos = i
	return i
}

// Peek returns the kind of the next value without consuming it; KindInvalid
// at the end of input or on a byte that cannot start a value.
func (d *Decoder) Peek() Kind {
	i := d.ws()
	if i >= len(d.data) {
		return KindInvalid
	}
	return kindOf[d.data[i]]
}

// unexpected builds the error for a value of the wrong kind at d.pos, keeping
// malformed input a syntax error so lenient fallbacks cannot hide it.
func (d *Decoder) unexpected(want string) error {
	i := d.pos
	if i >= len(d.data) {
		return errEOF(i)
	}
	c := d.data[i]
	k := kindOf[c]
	switch k {
	case KindInvalid:
		return errChar(i, c, "looking for beginning of value")
	case KindNull, KindBool:
		if literalLen(d.data, i) == 0 {
			return syntaxError(i, "invalid literal")
		}
	}
	return d.TypeError(want, k)
}

// literalLen returns the length of the true/false/null literal at i, or 0.
func literalLen(data []byte, i int) int {
	rest := data[i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "null":
		return 4
	case len(rest) >= 4 && string(rest[:4]) == "true":
		return 4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		return 5
	}
	return 0
}

// ReadNull consumes a null.
func (d *Decoder) ReadNull() error {
	i := d.ws()
	if len(d.data)-i >= 4 && string(d.data[i:i+4]) == "null" {
		d.pos = i + 4
		return nil
	}
	return d.unexpected("null")
}

// TryNull consumes a null if it is next and reports whether it did. Out of
// line: see Validator.Push.
//
//go:noinline
func (d *Decoder) TryNull() bool {
	i := d.ws()
	if len(d.data)-i >= 4 && string(d.data[i:i+4]) == "null" {
		d.pos = i + 4
		return true
	}
	return false
}

// ReadBool consumes a boolean.
func (d *Decoder) ReadBool() (bool, error) {
	i := d.ws()
	rest := d.data[i:]
	if len(rest) >= 4 && string(rest[:4]) == "true" {
		d.pos = i + 4
		return true, nil
	}
	if len(rest) >= 5 && string(rest[:5]) == "false" {
		d.pos = i + 5
		return false, nil
	}
	return false, d.unexpected("boolean")
}

// ReadString consumes a string and returns it unescaped. The only
// allocation is the returned string itself.
func (d *Decoder) ReadString() (string, error) {
	b, err := d.ReadStringBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ReadStringBytes consumes a string and returns it unescaped. The result may
// alias the input or a scratch buffer and is valid only until the next call
// on d.
func (d *Decoder) ReadStringBytes() ([]byte, error) {
	i := d.ws()
	if i >= len(d.data) || d.data[i] != '"' {
		return nil, d.unexpected("string")
	}
	end, esc, err := scanString(d.data, i+1)
	if err != nil {
		return nil, err
	}
	d.pos = end
	body := d.data[i+1 : end-1]
	if !esc {
		return body, nil
	}
	d.buf = unescape(d.buf[:0], body)
	return d.buf, nil
}

// ReadRaw returns a validated copy of the next complete value.
func (d *Decoder) ReadRaw() (Raw, error) {
	start := d.ws()
	if err := d.Skip(); err != nil {
		return nil, err
	}
	return append(Raw(nil), d.data[start:d.pos]...), nil
}

// BeginObject consumes the '{' that opens an object.
func (d *Decoder) BeginObject() error {
	i := d.ws()
	if i >= len(d.data) || d.data[i] != '{' {
		return d.unexpected("object")
	}
	if d.depth >= MaxDepth {
		return errDepth(i)
	}
	d.depth++
	d.pos = i + 1
	return nil
}

// BeginArray consumes the '[' that opens an array.
func (d *Decoder) BeginArray() error {
	i := d.ws()
	if i >= len(d.data) || d.data[i] != '[' {
		return d.unexpected("array")
	}
	if d.depth >= MaxDepth {
		return errDepth(i)
	}
	d.depth++
	d.pos = i + 1
	return nil
}

// afterOpen reports whether the last token consumed is the opening bracket
// open, i.e. the container has no members read yet. Looking back keeps
// Mark/Rewind trivially correct: no per-container state to save.
func (d *Decoder) afterOpen(open byte) bool {
	i := d.pos - 1
	for i >= 0 && isSpace[d.data[i]] {
		i--
	}
	return i >= 0 && d.data[i] == open
}

// NextKey advances to the next member of the current object and returns its
// unescaped name, having consumed the ':' after it. At the closing '}' it
// consumes it and returns ok=false. The key may alias the input or a scratch
// buffer and is valid until the next NextKey or ScanKey call.
func (d *Decoder) NextKey() (key []byte, ok bool, err error) {
	data := d.data
	i := skipSpace(data, d.pos)
	if i >= len(data) {
		return nil, false, errEOF(i)
	}
	c := data[i]
	if c == '}' {
		if d.depth <= 0 {
			return nil, false, errChar(i, c, "outside of an object")
		}
		d.pos = i + 1
		d.depth--
		return nil, false, nil
	}
	if !d.afterOpen('{') {
		if c != ',' {
			return nil, false, errChar(i, c, "after object member, expected ',' or '}'")
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return nil, false, errEOF(i)
		}
		c = data[i]
	}
	if c != '"' {
		return nil, false, errChar(i, c, "looking for beginning of object key string")
	}
	end, esc, err := scanString(data, i+1)
	if err != nil {
		return nil, false, err
	}
	key = data[i+1 : end-1]
	if esc {
		d.keyBuf = unescape(d.keyBuf[:0], key)
		key = d.keyBuf
	}
	i = skipSpace(data, end)
	if i >= len(data) {
		return nil, false, errEOF(i)
	}
	if data[i] != ':' {
		return nil, false, errChar(i, data[i], "after object key, expected ':'")
	}
	d.pos = i + 1
	return key, true, nil
}

// NextItem advances to the next element of the current array, consuming the
// ',' before it. At the closing ']' it consumes it and returns false.
func (d *Decoder) NextItem() (ok bool, err error) {
	data := d.data
	i := skipSpace(data, d.pos)
	if i >= len(data) {
		return false, errEOF(i)
	}
	c := data[i]
	if c == ']' {
		if d.depth <= 0 {
			return false, errChar(i, c, "outside of an array")
		}
		d.pos = i + 1
		d.depth--
		return false, nil
	}
	if d.afterOpen('[') {
		d.pos = i
		return true, nil
	}
	if c != ',' {
		return false, errChar(i, c, "after array element, expected ',' or ']'")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return false, errChar(i, ']', "after ',' (trailing comma)")
	}
	d.pos = i
	return true, nil
}

// Finish checks that only whitespace remains.
func (d *Decoder) Finish() error {
	i := d.ws()
	if i < len(d.data) {
		return syntaxError(i, "unexpected data after top-level value")
	}
	return nil
}

// Skip consumes the next complete value, validating it fully. It is
// iterative, so nesting costs a byte per level, not a stack frame.
func (d *Decoder) Skip() error {
	data := d.data
	i := d.pos
	// stack holds the open brackets inside this value; the backing array
	// covers ordinary documents without allocating.
	var small [64]byte
	stack := small[:0]
	var err error
	for {
		// A value is expected at i.
		i = skipSpace(data, i)
		if i >= len(data) {
			return errEOF(i)
		}
		c := data[i]
		switch c {
		case '{', '[':
			if d.depth+len(stack) >= MaxDepth {
				return errDepth(i)
			}
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == closer {
				i++
				break // empty container: a complete value
			}
			stack = append(stack, c)
			if c == '{' {
				if i, err = skipKey(data, i); err != nil {
					return err
				}
			}
			continue
		case '"':
			if i, _, err = scanString(data, i+1); err != nil {
				return err
			}
		case 't', 'f', 'n':
			n := literalLen(data, i)
			if n == 0 {
				return syntaxError(i, "invalid literal")
			}
			i += n
		default:
			if kindOf[c] != KindNumber {
				return errChar(i, c, "looking for beginning of value")
			}
			if i, err = scanNumber(data, i); err != nil {
				return err
			}
		}
		// A value ended at i: close containers until another value is due.
	closing:
		for {
			if len(stack) == 0 {
				d.pos = i
				return nil
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return errEOF(i)
			}
			c := data[i]
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				if top == '{' {
					if i, err = skipKey(data, skipSpace(data, i)); err != nil {
						return err
					}
				} else if j := skipSpace(data, i); j < len(data) && data[j] == ']' {
					return errChar(j, ']', "after ',' (trailing comma)")
				}
				break closing
			case c == '}' && top == '{', c == ']' && top == '[':
				i++
				stack = stack[:len(stack)-1]
			case top == '{':
				return errChar(i, c, "after object member, expected ',' or '}'")
			default:
				return errChar(i, c, "after array element, expected ',' or ']'")
			}
		}
	}
}

// skipKey validates `"key" :` starting at i and returns the position after
// the colon.
func skipKey(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, errEOF(i)
	}
	if data[i] != '"' {
		return i, errChar(i, data[i], "looking for beginning of object key string")
	}
	i, _, err := scanString(data, i+1)
	if err != nil {
		return i, err
	}
	i = skipSpace(data, i)
	if i >= len(data) {
		return i, errEOF(i)
	}
	if data[i] != ':' {
		return i, errChar(i, data[i], "after object key, expected ':'")
	}
	return i + 1, nil
}

// ScanKey looks ahead, without consuming anything, into the object that is
// the next value for its top-level member name. It returns that member's
// kind and value: unescaped bytes for a string, the raw bytes otherwise
// (valid until the next call on d). Later duplicates win. The whole object is
// validated. If the next value is not an object it returns found=false and no
// error.
func (d *Decoder) ScanKey(name string) (kind Kind, val []byte, found bool, err error) {
	m := d.Mark()
	defer d.Rewind(m)
	i := skipSpace(d.data, d.pos)
	if i >= len(d.data) || d.data[i] != '{' {
		return KindInvalid, nil, false, nil
	}
	if err := d.BeginObject(); err != nil {
		return KindInvalid, nil, false, err
	}
	at := -1
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return KindInvalid, nil, false, err
		}
		if !ok {
			break
		}
		if string(key) == name {
			at = d.pos
		}
		if err := d.Skip(); err != nil {
			return KindInvalid, nil, false, err
		}
	}
	if at < 0 {
		return KindInvalid, nil, false, nil
	}
	d.pos = at
	kind = d.Peek()
	if kind == KindString {
		val, err = d.ReadStringBytes()
	} else {
		start := d.pos
		err = d.Skip()
		val = d.data[start:d.pos]
	}
	if err != nil {
		return KindInvalid, nil, false, err
	}
	return kind, val, true, nil
}
