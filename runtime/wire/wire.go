// Package wire is the runtime acpgen-generated code decodes and encodes
// JSON with: generated codecs for the hot types, static tables it
// interprets for the others. Reflection reads a table's struct layout
// once; decoding and encoding then go by field offsets.
//
// Decoding walks a complete input buffer with a [Decoder]; encoding appends
// to a []byte with the Append* helpers. The decoder fully validates the input
// as RFC 8259 JSON (including UTF-8 inside strings) and never panics.
package wire

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Raw is one complete JSON value kept as bytes, so it re-encodes unchanged.
type Raw []byte

// MarshalJSON returns r, or "null" when r is empty.
func (r Raw) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON validates that b is exactly one JSON value and stores a copy.
func (r *Raw) UnmarshalJSON(b []byte) error {
	var d Decoder
	d.Reset(b, Strict)
	if err := d.Skip(); err != nil {
		return err
	}
	if err := d.Finish(); err != nil {
		return err
	}
	*r = append(Raw(nil), b...)
	return nil
}

// RawOf encodes v with encoding/json.
func RawOf(v any) (Raw, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Raw(b), nil
}

// Kind reports the kind of the value from its first non-whitespace byte.
func (r Raw) Kind() Kind {
	i := skipSpace(r, 0)
	if i >= len(r) {
		return KindInvalid
	}
	return kindOf[r[i]]
}

// Field is one object member that the generated types do not model.
type Field struct {
	Name  string
	Value Raw
}

// Fields keeps unmodelled members in input order.
type Fields []Field

// Get returns the value of the last member called name, matching the
// "later duplicates win" rule of the decoder.
func (f Fields) Get(name string) (Raw, bool) {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i].Name == name {
			return f[i].Value, true
		}
	}
	return nil, false
}

// Set replaces the first member called name, or appends a new one.
func (f *Fields) Set(name string, v Raw) {
	for i := range *f {
		if (*f)[i].Name == name {
			(*f)[i].Value = v
			return
		}
	}
	*f = append(*f, Field{Name: name, Value: v})
}

// AppendMembers appends `"name":value` for each field, comma separated, with
// a leading comma when needComma. It reports whether any member has been
// written so far, for the caller's next needComma.
func (f Fields) AppendMembers(b []byte, needComma bool) ([]byte, bool) {
	for _, fl := range f {
		if needComma {
			b = append(b, ',')
		}
		b = AppendString(b, fl.Name)
		b = append(b, ':')
		b = AppendRaw(b, fl.Value)
		needComma = true
	}
	return b, needComma
}

// Mode selects how forgiving generated decoders are.
type Mode uint8

const (
	// Lenient honours the schema's x-deserialize-* leniency.
	Lenient Mode = iota
	// Strict accepts only what the schema describes.
	Strict
)

// Kind is the JSON type of a value.
type Kind uint8

// Kinds of JSON values.
const (
	KindInvalid Kind = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindObject
	KindArray
)

var kindNames = [...]string{
	KindInvalid: "invalid",
	KindNull:    "null",
	KindBool:    "boolean",
	KindNumber:  "number",
	KindString:  "string",
	KindObject:  "object",
	KindArray:   "array",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// kindOf maps the first byte of a value to its kind.
var kindOf = func() (t [256]Kind) {
	t['n'] = KindNull
	t['t'] = KindBool
	t['f'] = KindBool
	t['"'] = KindString
	t['{'] = KindObject
	t['['] = KindArray
	t['-'] = KindNumber
	for c := '0'; c <= '9'; c++ {
		t[c] = KindNumber
	}
	return t
}()

// Error is a decoding error located in the input.
type Error struct {
	Pointer string // RFC 6901 pointer of the offending value, "" for the root
	Offset  int    // byte offset where it was detected, -1 if unknown
	Msg     string
	Syntax  bool // malformed JSON, never recoverable by lenient fallbacks

	err error // wrapped cause when built from a foreign error
}

func (e *Error) Error() string {
	var sb strings.Builder
	if e.Pointer == "" {
		sb.WriteString("(root)")
	} else {
		sb.WriteString(e.Pointer)
	}
	sb.WriteString(": ")
	sb.WriteString(e.Msg)
	if e.Offset >= 0 {
		sb.WriteString(" (offset ")
		sb.WriteString(strconv.Itoa(e.Offset))
		sb.WriteByte(')')
	}
	return sb.String()
}

// Unwrap returns the foreign error this Error was built from, if any.
func (e *Error) Unwrap() error { return e.err }

// AtKey prefixes the pointer of err with the object member key.
func AtKey(err error, key string) error {
	if err == nil {
		return nil
	}
	return prefix(err, "/"+jsonpointer.Escape(key))
}

// AtIndex prefixes the pointer of err with the array index i.
func AtIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return prefix(err, "/"+strconv.Itoa(i))
}

// prefix updates the *Error in place: errors are built fresh per decode and
// only travel up the call stack, so nobody else observes the mutation.
func prefix(err error, p string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Pointer = p + e.Pointer
		return err
	}
	return &Error{Pointer: p, Offset: -1, Msg: err.Error(), err: err}
}

// IsSyntax reports whether err is (or wraps) a syntax error.
func IsSyntax(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Syntax
}

// Decodable is implemented by generated types.
type Decodable interface {
	DecodeJSON(d *Decoder) error
}

// Appender is implemented by generated types.
type Appender interface {
	AppendJSON(b []byte) []byte
}

var decoderPool = sync.Pool{New: func() any { return new(Decoder) }}

// maxPooledScratch bounds the scratch memory a pooled Decoder keeps, so one
// huge message does not pin memory forever.
const maxPooledScratch = 64 << 10

// Decode decodes data into v, requiring that nothing but whitespace follows.
func Decode(data []byte, v Decodable, mode Mode) error {
	d := acquireDecoder(data, mode)
	return releaseDecoder(d, v.DecodeJSON(d))
}

// acquireDecoder is a pooled Decoder reading data.
func acquireDecoder(data []byte, mode Mode) *Decoder {
	d := decoderPool.Get().(*Decoder)
	d.Reset(data, mode)
	return d
}

// releaseDecoder finishes decoding with d, whose value decoded with err,
// and returns d to the pool: the error of the whole decoding.
func releaseDecoder(d *Decoder, err error) error {
	if err == nil {
		err = d.Finish()
	}
	d.data = nil
	if cap(d.buf) > maxPooledScratch {
		d.buf = nil
	}
	if cap(d.keyBuf) > maxPooledScratch {
		d.keyBuf = nil
	}
	decoderPool.Put(d)
	return err
}

// Encode returns the JSON encoding of v.
func Encode(v Appender) []byte {
	return v.AppendJSON(make([]byte, 0, 256))
}

// Valid reports whether data is exactly one valid JSON value (with
// surrounding whitespace), using the decoder's rules.
func Valid(data []byte) bool {
	var d Decoder
	d.Reset(data, Strict)
	return d.Skip() == nil && d.Finish() == nil
}
