package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestPeek(t *testing.T) {
	tests := []struct {
		in   string
		want Kind
	}{
		{"", KindInvalid},
		{"   ", KindInvalid},
		{" null", KindNull},
		{"\t\r\ntrue", KindBool},
		{"false", KindBool},
		{"-1", KindNumber},
		{"0", KindNumber},
		{`"x"`, KindString},
		{"{}", KindObject},
		{"[]", KindArray},
		{"+1", KindInvalid},
		{".5", KindInvalid},
		{"\v1", KindInvalid}, // vertical tab is not JSON whitespace
		{"\u00a01", KindInvalid},
		{"x", KindInvalid},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in), Strict)
		if got := d.Peek(); got != tt.want {
			t.Errorf("Peek(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got := d.Peek(); got != tt.want {
			t.Errorf("second Peek(%q) = %v, want %v (Peek must not consume)", tt.in, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{KindInvalid: "invalid", KindNull: "null", KindBool: "boolean",
		KindNumber: "number", KindString: "string", KindObject: "object", KindArray: "array", 99: "invalid"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), s)
		}
	}
}

func TestLiterals(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    bool
		wantErr string // "" = ok, "syntax", "type"
	}{
		{"true", true, ""},
		{" false ", false, ""},
		{"tru", false, "syntax"},
		{"True", false, "syntax"},
		{"fals", false, "syntax"},
		{"null", false, "type"},
		{"1", false, "type"},
		{`"true"`, false, "type"},
		{"", false, "syntax"},
		{"nul", false, "syntax"},
	} {
		d := NewDecoder([]byte(tt.in), Strict)
		got, err := d.ReadBool()
		checkErrKind(t, "ReadBool("+tt.in+")", err, tt.wantErr)
		if err == nil {
			if got != tt.want {
				t.Errorf("ReadBool(%q) = %v", tt.in, got)
			}
			if err := d.Finish(); err != nil {
				t.Errorf("ReadBool(%q): Finish: %v", tt.in, err)
			}
		}
	}
	for _, tt := range []struct {
		in      string
		wantErr string
	}{
		{"null", ""}, {" null\n", ""}, {"nul", "syntax"}, {"nulL", "syntax"}, {"0", "type"}, {"{}", "type"}, {"", "syntax"},
	} {
		d := NewDecoder([]byte(tt.in), Strict)
		err := d.ReadNull()
		checkErrKind(t, "ReadNull("+tt.in+")", err, tt.wantErr)
		if err == nil {
			if err := d.Finish(); err != nil {
				t.Errorf("ReadNull(%q): Finish: %v", tt.in, err)
			}
		}
	}
	// Literals must be followed by a delimiter: the trailing data is caught
	// by whatever reads next.
	d := NewDecoder([]byte("truex"), Strict)
	if _, err := d.ReadBool(); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); !IsSyntax(err) {
		t.Errorf("truex: Finish = %v, want syntax error", err)
	}
}

func TestTryNull(t *testing.T) {
	d := NewDecoder([]byte(` null , "x"`), Strict)
	if !d.TryNull() {
		t.Fatal("TryNull on null = false")
	}
	if d.Offset() != 5 {
		t.Errorf("offset after TryNull = %d, want 5", d.Offset())
	}
	d = NewDecoder([]byte(`"null"`), Strict)
	if d.TryNull() {
		t.Fatal(`TryNull on "null" = true`)
	}
	if s, err := d.ReadString(); err != nil || s != "null" {
		t.Errorf("ReadString after failed TryNull = %q, %v", s, err)
	}
	d = NewDecoder([]byte(`nul`), Strict)
	if d.TryNull() {
		t.Fatal("TryNull on nul = true")
	}
}

// checkErrKind checks err against "" (no error), "syntax" or "type"
// (any non-syntax error).
func checkErrKind(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch want {
	case "":
		if err != nil {
			t.Errorf("%s: unexpected error %v", what, err)
		}
	case "syntax":
		if err == nil || !IsSyntax(err) {
			t.Errorf("%s: error = %v, want syntax error", what, err)
		}
	default:
		if err == nil || IsSyntax(err) {
			t.Errorf("%s: error = %v, want non-syntax error", what, err)
		}
	}
}

func TestReadString(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  string // "" ok, "syntax", "type"
	}{
		{`""`, "", ""},
		{`"abc"`, "abc", ""},
		{` "a b" `, "a b", ""},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", ""},
		{`"\u0041\u00e9\u4e2D"`, "Aé中", ""},
		{`"\ud83d\ude00"`, "😀", ""},
		{`"\uD83D\uDE00x"`, "😀x", ""},
		{`"\ud83d"`, "\ufffd", ""},              // lone high surrogate
		{`"\ude00"`, "\ufffd", ""},              // lone low surrogate
		{`"\ud83dx"`, "\ufffdx", ""},            // high not followed by escape
		{`"\ud83d\u0041"`, "\ufffdA", ""},       // high followed by non-surrogate
		{`"\ud83d\ud83d\ude00"`, "\ufffd😀", ""}, // high, then a valid pair
		{`"\ude00\ud83d"`, "\ufffd\ufffd", ""},
		{`"\ud83d\n"`, "\ufffd\n", ""},
		{`"héllo, 世界 😀"`, "héllo, 世界 😀", ""},
		{`"a long string that takes the eight byte fast path at least twice"`, "a long string that takes the eight byte fast path at least twice", ""},
		{"\"\u007f\"", "\u007f", ""}, // DEL is not a control character in JSON
		{`"\u0000"`, "\x00", ""},
		{`"abc`, "", "syntax"},
		{`"`, "", "syntax"},
		{`"\`, "", "syntax"},
		{`"\"`, "", "syntax"},
		{`"\x"`, "", "syntax"},
		{`"\'"`, "", "syntax"},
		{`"\U0041"`, "", "syntax"},
		{`"\u004"`, "", "syntax"},
		{`"\u004g"`, "", "syntax"},
		{`"\u12`, "", "syntax"},
		{"\"a\nb\"", "", "syntax"},
		{"\"a\tb\"", "", "syntax"},
		{"\"\x00\"", "", "syntax"},
		{"\"\x1f\"", "", "syntax"},
		{"\"\xff\"", "", "syntax"},
		{"\"\xc3\"", "", "syntax"},             // truncated sequence
		{"\"\xc0\xaf\"", "", "syntax"},         // overlong
		{"\"\xed\xa0\x80\"", "", "syntax"},     // UTF-8 encoded surrogate
		{"\"\xf4\x90\x80\x80\"", "", "syntax"}, // above U+10FFFF
		{"\"12345678\xff\"", "", "syntax"},     // found after the fast path
		{`'a'`, "", "syntax"},
		{`1`, "", "type"},
		{`null`, "", "type"},
		{`{}`, "", "type"},
		{``, "", "syntax"},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in), Strict)
		got, err := d.ReadString()
		checkErrKind(t, fmt.Sprintf("ReadString(%q)", tt.in), err, tt.err)
		if err != nil {
			continue
		}
		if got != tt.want {
			t.Errorf("ReadString(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := d.Finish(); err != nil {
			t.Errorf("ReadString(%q): Finish: %v", tt.in, err)
		}
		// encoding/json must agree on every string we accept.
		var std string
		if err := json.Unmarshal([]byte(tt.in), &std); err != nil || std != got {
			t.Errorf("ReadString(%q) = %q; encoding/json gives %q, %v", tt.in, got, std, err)
		}
		// ReadStringBytes must agree too.
		d = NewDecoder([]byte(tt.in), Strict)
		b, err := d.ReadStringBytes()
		if err != nil || string(b) != tt.want {
			t.Errorf("ReadStringBytes(%q) = %q, %v", tt.in, b, err)
		}
	}
}

func TestReadStringBytesAliases(t *testing.T) {
	in := []byte(`"plain"`)
	d := NewDecoder(in, Strict)
	b, err := d.ReadStringBytes()
	if err != nil {
		t.Fatal(err)
	}
	if &b[0] != &in[1] {
		t.Error("ReadStringBytes copied a string without escapes")
	}
}

func TestTypeErrorDoesNotConsume(t *testing.T) {
	d := NewDecoder([]byte(`  123`), Strict)
	_, err := d.ReadString()
	var e *Error
	if !errors.As(err, &e) || e.Syntax || e.Msg != "expected string, found number" || e.Offset != 2 {
		t.Fatalf("ReadString on number: %#v", err)
	}
	if n, err := d.ReadInt64(); err != nil || n != 123 {
		t.Fatalf("ReadInt64 after type error = %d, %v", n, err)
	}
}

func TestIntegers(t *testing.T) {
	type res struct {
		v   any
		err string // "" ok, else substring of the message; "syntax" = syntax error
	}
	tests := []struct {
		in                      string
		i64, i32, u16, u32, u64 res
	}{
		{"0", res{int64(0), ""}, res{int32(0), ""}, res{uint16(0), ""}, res{uint32(0), ""}, res{uint64(0), ""}},
		{"-0", res{int64(0), ""}, res{int32(0), ""}, res{uint16(0), ""}, res{uint32(0), ""}, res{uint64(0), ""}},
		{"42", res{int64(42), ""}, res{int32(42), ""}, res{uint16(42), ""}, res{uint32(42), ""}, res{uint64(42), ""}},
		{"-1", res{int64(-1), ""}, res{int32(-1), ""}, res{nil, "-1 is out of range for uint16"}, res{nil, "-1 is out of range for uint32"}, res{nil, "-1 is out of range for uint64"}},
		{"1.0", res{int64(1), ""}, res{int32(1), ""}, res{uint16(1), ""}, res{uint32(1), ""}, res{uint64(1), ""}},
		{"1e3", res{int64(1000), ""}, res{int32(1000), ""}, res{uint16(1000), ""}, res{uint32(1000), ""}, res{uint64(1000), ""}},
		{"10.50e1", res{int64(105), ""}, res{int32(105), ""}, res{uint16(105), ""}, res{uint32(105), ""}, res{uint64(105), ""}},
		{"1250E-2", res{nil, "expected integer, found 1250E-2"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}},
		{"1200E-2", res{int64(12), ""}, res{int32(12), ""}, res{uint16(12), ""}, res{uint32(12), ""}, res{uint64(12), ""}},
		{"0.0e99999999999999999999", res{int64(0), ""}, res{int32(0), ""}, res{uint16(0), ""}, res{uint32(0), ""}, res{uint64(0), ""}},
		{"-0.0", res{int64(0), ""}, res{int32(0), ""}, res{uint16(0), ""}, res{uint32(0), ""}, res{uint64(0), ""}},
		{"1.5", res{nil, "expected integer, found 1.5"}, res{nil, "expected integer, found 1.5"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}},
		{"1e-1", res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}},
		{"1.0000000000000000000001", res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}},
		{"65535", res{int64(65535), ""}, res{int32(65535), ""}, res{uint16(65535), ""}, res{uint32(65535), ""}, res{uint64(65535), ""}},
		{"65536", res{int64(65536), ""}, res{int32(65536), ""}, res{nil, "65536 is out of range for uint16"}, res{uint32(65536), ""}, res{uint64(65536), ""}},
		{"2147483647", res{int64(math.MaxInt32), ""}, res{int32(math.MaxInt32), ""}, res{nil, "out of range for uint16"}, res{uint32(math.MaxInt32), ""}, res{uint64(math.MaxInt32), ""}},
		{"2147483648", res{int64(1 << 31), ""}, res{nil, "2147483648 is out of range for int32"}, res{nil, "out of range"}, res{uint32(1 << 31), ""}, res{uint64(1 << 31), ""}},
		{"-2147483648", res{int64(math.MinInt32), ""}, res{int32(math.MinInt32), ""}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}},
		{"-2147483649", res{int64(math.MinInt32 - 1), ""}, res{nil, "-2147483649 is out of range for int32"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}},
		{"4294967295", res{int64(math.MaxUint32), ""}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint32(math.MaxUint32), ""}, res{uint64(math.MaxUint32), ""}},
		{"4294967296", res{int64(1 << 32), ""}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "4294967296 is out of range for uint32"}, res{uint64(1 << 32), ""}},
		{"9223372036854775807", res{int64(math.MaxInt64), ""}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint64(math.MaxInt64), ""}},
		{"9223372036854775808", res{nil, "9223372036854775808 is out of range for int64"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint64(1 << 63), ""}},
		{"-9223372036854775808", res{int64(math.MinInt64), ""}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}},
		{"-9223372036854775809", res{nil, "out of range for int64"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}},
		{"18446744073709551615", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint64(math.MaxUint64), ""}},
		{"18446744073709551616", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "18446744073709551616 is out of range for uint64"}},
		{"1844674407370955161.5e1", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint64(math.MaxUint64), ""}},
		{"99999999999999999999999", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range for uint64"}},
		{"1e20", res{nil, "1e20 is out of range for int64"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "1e20 is out of range for uint64"}},
		{"1e19", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{uint64(1e19), ""}},
		{"1e999999999999999999999", res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}, res{nil, "out of range"}},
		{"1e-999999999999999999999", res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}, res{nil, "expected integer"}},
		{"000000000000000000001", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"01", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"-", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"1.", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"1e", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"1e+", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"+1", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{".1", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{"-a", res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}, res{nil, "syntax"}},
		{`"1"`, res{nil, "expected integer, found string"}, res{nil, "expected integer, found string"}, res{nil, "expected integer, found string"}, res{nil, "expected integer, found string"}, res{nil, "expected integer, found string"}},
		{`true`, res{nil, "expected integer, found boolean"}, res{nil, "found boolean"}, res{nil, "found boolean"}, res{nil, "found boolean"}, res{nil, "found boolean"}},
	}
	for _, tt := range tests {
		readers := []struct {
			name string
			want res
			read func(d *Decoder) (any, error)
		}{
			{"ReadInt64", tt.i64, func(d *Decoder) (any, error) { return d.ReadInt64() }},
			{"ReadInt32", tt.i32, func(d *Decoder) (any, error) { return d.ReadInt32() }},
			{"ReadUint16", tt.u16, func(d *Decoder) (any, error) { return d.ReadUint16() }},
			{"ReadUint32", tt.u32, func(d *Decoder) (any, error) { return d.ReadUint32() }},
			{"ReadUint64", tt.u64, func(d *Decoder) (any, error) { return d.ReadUint64() }},
		}
		for _, r := range readers {
			d := NewDecoder([]byte(tt.in), Strict)
			got, err := r.read(d)
			what := fmt.Sprintf("%s(%s)", r.name, tt.in)
			switch {
			case r.want.err == "":
				if err != nil {
					t.Errorf("%s: %v", what, err)
				} else if got != r.want.v {
					t.Errorf("%s = %v (%T), want %v (%T)", what, got, got, r.want.v, r.want.v)
				} else if err := d.Finish(); err != nil {
					t.Errorf("%s: Finish: %v", what, err)
				}
			case r.want.err == "syntax":
				if !IsSyntax(err) {
					t.Errorf("%s: error = %v, want syntax error", what, err)
				}
			default:
				if err == nil || IsSyntax(err) || !strings.Contains(err.Error(), r.want.err) {
					t.Errorf("%s: error = %v, want non-syntax error containing %q", what, err, r.want.err)
				} else if d.Offset() != 0 {
					t.Errorf("%s: failed read consumed input (offset %d)", what, d.Offset())
				}
			}
		}
	}
}

func TestIntegersFollowedByStructure(t *testing.T) {
	d := NewDecoder([]byte(`[1,-2 , 3e0]`), Strict)
	if err := d.BeginArray(); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for {
		ok, err := d.NextItem()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		v, err := d.ReadInt64()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if fmt.Sprint(got) != "[1 -2 3]" {
		t.Errorf("got %v", got)
	}
	if err := d.Finish(); err != nil {
		t.Error(err)
	}
}

func TestReadFloat64(t *testing.T) {
	tests := []struct {
		in  string
		err string
	}{
		{"0", ""}, {"-0", ""}, {"1", ""}, {"-1.5", ""}, {"0.1", ""}, {"123.456", ""},
		{"1e10", ""}, {"1E+10", ""}, {"1e-10", ""}, {"2.2250738585072014e-308", ""},
		{"4.9e-324", ""}, {"1e-400", ""}, {"1.7976931348623157e308", ""},
		{"123456789012345", ""}, {"1234567890123456789", ""}, {"0.000000000000000000000001", ""},
		{"9007199254740993", ""}, {"3.141592653589793238462643383279", ""},
		{"1e309", "out of range for float64"}, {"-1e400", "out of range for float64"},
		{"01", "syntax"}, {"1.", "syntax"}, {".1", "syntax"}, {"-", "syntax"}, {"1e", "syntax"}, {"+1", "syntax"},
		{`"1"`, "expected number, found string"}, {"null", "expected number, found null"},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in), Strict)
		got, err := d.ReadFloat64()
		switch tt.err {
		case "":
			var want float64
			if jerr := json.Unmarshal([]byte(tt.in), &want); jerr != nil {
				t.Fatalf("encoding/json rejects %s: %v", tt.in, jerr)
			}
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("ReadFloat64(%s) = %v, %v; want %v", tt.in, got, err, want)
			}
		case "syntax":
			if !IsSyntax(err) {
				t.Errorf("ReadFloat64(%s): error = %v, want syntax error", tt.in, err)
			}
		default:
			if err == nil || IsSyntax(err) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ReadFloat64(%s): error = %v, want %q", tt.in, err, tt.err)
			}
		}
	}
}

func TestReadNumberRaw(t *testing.T) {
	d := NewDecoder([]byte(` -12.5e+3 `), Strict)
	b, err := d.ReadNumberRaw()
	if err != nil || string(b) != "-12.5e+3" {
		t.Fatalf("ReadNumberRaw = %q, %v", b, err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	d = NewDecoder([]byte(`"1"`), Strict)
	if _, err := d.ReadNumberRaw(); err == nil || IsSyntax(err) {
		t.Errorf("ReadNumberRaw on string: %v", err)
	}
	d = NewDecoder([]byte(`1.e5`), Strict)
	if _, err := d.ReadNumberRaw(); !IsSyntax(err) {
		t.Errorf("ReadNumberRaw(1.e5): %v", err)
	}
}

// collect decodes any JSON document into a canonical string using only the
// Decoder's structural API, to exercise BeginObject/NextKey/NextItem.
func collect(d *Decoder) (string, error) {
	switch d.Peek() {
	case KindObject:
		if err := d.BeginObject(); err != nil {
			return "", err
		}
		var parts []string
		for {
			k, ok, err := d.NextKey()
			if err != nil {
				return "", err
			}
			if !ok {
				break
			}
			key := string(k)
			v, err := collect(d)
			if err != nil {
				return "", AtKey(err, key)
			}
			parts = append(parts, fmt.Sprintf("%q:%s", key, v))
		}
		return "{" + strings.Join(parts, ",") + "}", nil
	case KindArray:
		if err := d.BeginArray(); err != nil {
			return "", err
		}
		var parts []string
		for i := 0; ; i++ {
			ok, err := d.NextItem()
			if err != nil {
				return "", err
			}
			if !ok {
				break
			}
			v, err := collect(d)
			if err != nil {
				return "", AtIndex(err, i)
			}
			parts = append(parts, v)
		}
		return "[" + strings.Join(parts, ",") + "]", nil
	case KindString:
		s, err := d.ReadString()
		return fmt.Sprintf("%q", s), err
	case KindNumber:
		b, err := d.ReadNumberRaw()
		return string(b), err
	case KindBool:
		b, err := d.ReadBool()
		return fmt.Sprint(b), err
	case KindNull:
		return "null", d.ReadNull()
	}
	// Let Skip produce the syntax error.
	return "", d.Skip()
}

func TestStructure(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = syntax error expected
	}{
		{`{}`, `{}`},
		{` { } `, `{}`},
		{`[]`, `[]`},
		{"[ \t\r\n]", `[]`},
		{`{"a":1}`, `{"a":1}`},
		{" {\n  \"a\" : 1 ,\r\n\t\"b\":[ true , null ,\"x\"] } ", `{"a":1,"b":[true,null,"x"]}`},
		{`[[],[[]],{}]`, `[[],[[]],{}]`},
		{`{"a":{"b":{"c":[1,{"d":[]}]}}}`, `{"a":{"b":{"c":[1,{"d":[]}]}}}`},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`}, // duplicates are reported in order
		{`{"\u0061\n":1}`, `{"a\n":1}`},
		{`{"a":{},"b":[]}`, `{"a":{},"b":[]}`},
		{`{"a":1,}`, ``},
		{`[1,]`, ``},
		{`[1,,2]`, ``},
		{`[,1]`, ``},
		{`{,"a":1}`, ``},
		{`{"a" 1}`, ``},
		{`{"a":}`, ``},
		{`{"a"}`, ``},
		{`{a:1}`, ``},
		{`{'a':1}`, ``},
		{`{1:1}`, ``},
		{`{"a":1 "b":2}`, ``},
		{`[1 2]`, ``},
		{`[1}`, ``},
		{`{"a":1]`, ``},
		{`[`, ``},
		{`{`, ``},
		{`{"a":1`, ``},
		{`{"a"`, ``},
		{`[1`, ``},
		{`[1,`, ``},
		{`]`, ``},
		{`}`, ``},
		{``, ``},
		{`[1]]`, ``},
		{`{}{}`, ``},
		{"[1]\x00", ``},
		{"\ufeff[]", ``}, // BOM is not whitespace
		{"[\v]", ``},
		{`[tru]`, ``},
		{`[nulls]`, ``},
		{`[1true]`, ``},
		{`["a""b"]`, ``},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in), Strict)
		got, err := collect(d)
		if err == nil {
			err = d.Finish()
		}
		if tt.want == "" {
			if !IsSyntax(err) {
				t.Errorf("collect(%q) = %q, %v; want syntax error", tt.in, got, err)
			}
		} else if err != nil || got != tt.want {
			t.Errorf("collect(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		// Skip must agree with the structural API.
		d = NewDecoder([]byte(tt.in), Strict)
		err = d.Skip()
		if err == nil {
			err = d.Finish()
		}
		if (err == nil) != (tt.want != "") {
			t.Errorf("Skip(%q): %v", tt.in, err)
		}
		if err != nil && !IsSyntax(err) {
			t.Errorf("Skip(%q): non-syntax error %v", tt.in, err)
		}
	}
}

func TestErrorPointerFromStructure(t *testing.T) {
	d := NewDecoder([]byte(`{"params":{"a/b":[0,{"x~":tru}]}}`), Strict)
	_, err := collect(d)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	if e.Pointer != "/params/a~1b/1/x~0" || !e.Syntax || e.Offset != 26 {
		t.Errorf("got %+v", e)
	}
	want := "/params/a~1b/1/x~0: invalid literal (offset 26)"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestNextKeyEscapedKeySurvivesValue(t *testing.T) {
	d := NewDecoder([]byte(`{"k\u0065y":"v\u0061lue"}`), Strict)
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	k, ok, err := d.NextKey()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	v, err := d.ReadStringBytes()
	if err != nil {
		t.Fatal(err)
	}
	if string(k) != "key" || string(v) != "value" {
		t.Errorf("key %q value %q", k, v)
	}
}

func TestDepth(t *testing.T) {
	// nest builds n levels of open/close around a 0.
	nest := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n) + "0" + strings.Repeat(close, n))
	}
	for _, tc := range []struct {
		name        string
		open, close string
		perLevel    int
	}{{"arrays", "[", "]", 1}, {"objects", `{"a":`, "}", 1}, {"mixed", `[{"a":`, "}]", 2}} {
		ok := nest(MaxDepth/tc.perLevel, tc.open, tc.close)
		if !Valid(ok) {
			t.Errorf("%s: depth %d rejected", tc.name, MaxDepth)
		}
		if !json.Valid(ok) {
			t.Errorf("%s: encoding/json rejects depth %d", tc.name, MaxDepth)
		}
		// One level deeper, and far deeper, must fail cleanly.
		for _, depth := range []int{MaxDepth + 1, MaxDepth + 2, 100 * MaxDepth} {
			bad := nest(depth/tc.perLevel, tc.open, tc.close)
			if depth%tc.perLevel != 0 {
				bad = append([]byte("["), append(bad, ']')...)
			}
			d := NewDecoder(bad, Strict)
			err := d.Skip()
			if !IsSyntax(err) || !strings.Contains(err.Error(), "nesting depth") {
				t.Errorf("%s depth %d: Skip = %v", tc.name, depth, err)
			}
			if json.Valid(bad) {
				t.Errorf("%s depth %d: encoding/json accepts", tc.name, depth)
			}
		}
	}
	// The structural API counts depth too, and Skip adds to it.
	d := NewDecoder(nest(MaxDepth+1, "[", "]"), Strict)
	var err error
	for i := 0; i <= MaxDepth && err == nil; i++ {
		err = d.BeginArray()
		if err == nil {
			_, err = d.NextItem()
		}
	}
	if !IsSyntax(err) || d.Depth() != MaxDepth {
		t.Errorf("BeginArray past MaxDepth: %v at depth %d", err, d.Depth())
	}
	d = NewDecoder(nest(MaxDepth+1, "[", "]"), Strict)
	for i := 0; i < 10; i++ {
		if err := d.BeginArray(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Skip(); !IsSyntax(err) {
		t.Errorf("Skip under depth 10 of a %d-deep value: %v", MaxDepth-9, err)
	}
	// A deep collect must not overflow the stack either (it recurses, but
	// the limit stops it).
	d = NewDecoder(nest(100*MaxDepth, "[", "]"), Strict)
	if _, err := collect(d); !IsSyntax(err) {
		t.Errorf("collect of deep input: %v", err)
	}
}

func TestMarkRewind(t *testing.T) {
	d := NewDecoder([]byte(`{"a":[1,{"b":2}],"c":3}`), Strict)
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.NextKey(); err != nil {
		t.Fatal(err)
	}
	m := d.Mark()
	off, depth := d.Offset(), d.Depth()
	// Go two levels deeper, then rewind.
	if err := d.BeginArray(); err != nil {
		t.Fatal(err)
	}
	d.NextItem()
	d.ReadInt64()
	d.NextItem()
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	if d.Depth() != 3 {
		t.Fatalf("depth = %d", d.Depth())
	}
	d.Rewind(m)
	if d.Offset() != off || d.Depth() != depth {
		t.Fatalf("after Rewind: offset %d depth %d, want %d %d", d.Offset(), d.Depth(), off, depth)
	}
	// The rewound decoder continues as if nothing happened.
	if err := d.Skip(); err != nil {
		t.Fatal(err)
	}
	k, ok, err := d.NextKey()
	if err != nil || !ok || string(k) != "c" {
		t.Fatalf("NextKey = %q %v %v", k, ok, err)
	}
	if v, err := d.ReadInt64(); err != nil || v != 3 {
		t.Fatal(v, err)
	}
	if _, ok, err := d.NextKey(); ok || err != nil {
		t.Fatal(ok, err)
	}
	if d.Depth() != 0 {
		t.Errorf("final depth %d", d.Depth())
	}
	if err := d.Finish(); err != nil {
		t.Error(err)
	}
	// Rewinding to a mark taken right after BeginObject restarts members.
	d = NewDecoder([]byte(`{"x":1}`), Strict)
	d.BeginObject()
	m = d.Mark()
	d.NextKey()
	d.ReadInt64()
	d.Rewind(m)
	if k, ok, err := d.NextKey(); err != nil || !ok || string(k) != "x" {
		t.Fatalf("NextKey after rewind = %q %v %v", k, ok, err)
	}
}

func TestReadRaw(t *testing.T) {
	in := []byte(` {"a": [1, "x", null]} , 2`)
	d := NewDecoder(in, Strict)
	r, err := d.ReadRaw()
	if err != nil || string(r) != `{"a": [1, "x", null]}` {
		t.Fatalf("ReadRaw = %q, %v", r, err)
	}
	in[2] = 'X'
	if r[0] != '{' {
		t.Error("ReadRaw aliases the input")
	}
	if r.Kind() != KindObject {
		t.Errorf("Kind = %v", r.Kind())
	}
	if _, err := NewDecoder([]byte(`[1,]`), Strict).ReadRaw(); !IsSyntax(err) {
		t.Errorf("ReadRaw of invalid value: %v", err)
	}
}

func TestScanKey(t *testing.T) {
	tests := []struct {
		name, in, key string
		kind          Kind
		val           string
		found         bool
		syntax        bool
	}{
		{"first", `{"type":"text","x":1}`, "type", KindString, "text", true, false},
		{"not first", `{"x":1,"y":{"a":[1,2]},"type":"image"}`, "type", KindString, "image", true, false},
		{"nested same name ignored", `{"a":{"type":"inner"},"b":[{"type":"arr"}],"type":"outer"}`, "type", KindString, "outer", true, false},
		{"nested only", `{"a":{"type":"inner"}}`, "type", KindInvalid, "", false, false},
		{"escaped key", `{"t\u0079pe":"x\ny"}`, "type", KindString, "x\ny", true, false},
		{"escaped value", `{"type":"\u0074ext"}`, "type", KindString, "text", true, false},
		{"later duplicate wins", `{"type":"a","b":"\u0062","type":"c"}`, "type", KindString, "c", true, false},
		{"duplicate with escapes", `{"type":"\u0061","b":"\u0062"}`, "type", KindString, "a", true, false},
		{"number", `{"id": 12.5e1 }`, "id", KindNumber, "12.5e1", true, false},
		{"object value", `{"v":{"a":[]} }`, "v", KindObject, `{"a":[]}`, true, false},
		{"null value", `{"v":null}`, "v", KindNull, "null", true, false},
		{"bool value", `{"v":false}`, "v", KindBool, "false", true, false},
		{"missing", `{"a":1}`, "type", KindInvalid, "", false, false},
		{"empty", `{}`, "type", KindInvalid, "", false, false},
		{"not an object", `["type","x"]`, "type", KindInvalid, "", false, false},
		{"string", `"type"`, "type", KindInvalid, "", false, false},
		{"end of input", ``, "type", KindInvalid, "", false, false},
		{"invalid after key", `{"type":"a","b":tru}`, "type", KindInvalid, "", false, true},
		{"unterminated", `{"type":"a"`, "type", KindInvalid, "", false, true},
		{"trailing comma", `{"type":"a",}`, "type", KindInvalid, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "  " + tt.in
			d := NewDecoder([]byte(in), Strict)
			kind, val, found, err := d.ScanKey(tt.key)
			if tt.syntax {
				if !IsSyntax(err) {
					t.Errorf("err = %v, want syntax error", err)
				}
			} else if err != nil {
				t.Errorf("err = %v", err)
			}
			if kind != tt.kind || string(val) != tt.val || found != tt.found {
				t.Errorf("ScanKey = %v %q %v, want %v %q %v", kind, val, found, tt.kind, tt.val, tt.found)
			}
			if d.Offset() != 0 || d.Depth() != 0 {
				t.Errorf("ScanKey moved the decoder: offset %d depth %d", d.Offset(), d.Depth())
			}
			// The decoder still reads the whole value from the start.
			if !tt.syntax && tt.in != "" {
				if err := d.Skip(); err != nil {
					t.Errorf("Skip after ScanKey: %v", err)
				} else if err := d.Finish(); err != nil {
					t.Errorf("Finish after ScanKey: %v", err)
				}
			}
		})
	}
	// ScanKey inside an object being decoded leaves its state alone.
	d := NewDecoder([]byte(`{"p":{"kind":"b","v":2},"q":1}`), Strict)
	d.BeginObject()
	d.NextKey()
	kind, val, found, err := d.ScanKey("kind")
	if err != nil || !found || kind != KindString || string(val) != "b" || d.Depth() != 1 {
		t.Fatalf("nested ScanKey = %v %q %v %v depth %d", kind, val, found, err, d.Depth())
	}
	if got, err := collect(d); err != nil || got != `{"kind":"b","v":2}` {
		t.Fatalf("collect after ScanKey = %q %v", got, err)
	}
	if k, ok, err := d.NextKey(); err != nil || !ok || string(k) != "q" {
		t.Fatalf("NextKey = %q %v %v", k, ok, err)
	}
}

func TestFinish(t *testing.T) {
	d := NewDecoder([]byte("1 \t\r\n"), Strict)
	d.ReadInt64()
	if err := d.Finish(); err != nil {
		t.Error(err)
	}
	d = NewDecoder([]byte("1 2"), Strict)
	d.ReadInt64()
	err := d.Finish()
	var e *Error
	if !errors.As(err, &e) || !e.Syntax || e.Msg != "unexpected data after top-level value" || e.Offset != 2 {
		t.Errorf("Finish = %#v", err)
	}
}

func TestErrors(t *testing.T) {
	d := NewDecoder([]byte(`  "x"`), Lenient)
	d.Peek()
	e := d.TypeError("string", KindNumber)
	if e.Error() != "(root): expected string, found number (offset 2)" {
		t.Errorf("TypeError: %q", e.Error())
	}
	d2 := NewDecoder([]byte(" \xff"), Strict)
	if e := d2.TypeError("string", d2.Peek()); !e.Syntax || e.Msg != `expected string, found invalid character '\xff'` {
		t.Errorf("TypeError on a stray byte: %+v", e)
	}
	d2 = NewDecoder([]byte(" "), Strict)
	if e := d2.TypeError("string", d2.Peek()); !e.Syntax || e.Msg != "expected string, found end of input" {
		t.Errorf("TypeError at end of input: %+v", e)
	}
	for _, tc := range []struct{ in, msg string }{
		{"x", `invalid character 'x' looking for beginning of value`},
		{"'", `invalid character '\'' looking for beginning of value`},
		{"\x01", `invalid character '\x01' looking for beginning of value`},
		{"[1 2]", `invalid character '2' after array element, expected ',' or ']'`},
		{`{"a":1,}`, `invalid character '}' looking for beginning of object key string`},
		{`"\q"`, `invalid escape 'q' in string`},
		{"\"\n\"", `invalid control character U+000A in string`},
	} {
		err := NewDecoder([]byte(tc.in), Strict).Skip()
		if !errors.As(err, &e) || e.Msg != tc.msg {
			t.Errorf("Skip(%q) = %v, want message %q", tc.in, err, tc.msg)
		}
	}
	e = d.Errorf("bad %s", "thing")
	if e.Msg != "bad thing" || e.Offset != 2 || e.Syntax {
		t.Errorf("Errorf: %+v", e)
	}
	e.Pointer = "/params/cwd"
	e.Offset = 17
	e.Msg = "expected string, found number"
	if e.Error() != "/params/cwd: expected string, found number (offset 17)" {
		t.Errorf("Error() = %q", e.Error())
	}
	e.Offset = -1
	if e.Error() != "/params/cwd: expected string, found number" {
		t.Errorf("Error() without offset = %q", e.Error())
	}

	if AtKey(nil, "a") != nil || AtIndex(nil, 1) != nil {
		t.Error("nil error not kept nil")
	}
	err := AtKey(AtIndex(d.TypeError("x", KindNull), 1), "a")
	if !errors.As(err, &e) || e.Pointer != "/a/1" {
		t.Errorf("pointer = %v", err)
	}
	err = AtKey(AtKey(d.Errorf("x"), "b/c~d"), "")
	if !errors.As(err, &e) || e.Pointer != "//b~1c~0d" {
		t.Errorf("escaped pointer = %q", e.Pointer)
	}
	base := errors.New("custom failure")
	err = AtIndex(AtKey(base, "k"), 3)
	if !errors.As(err, &e) || e.Pointer != "/3/k" || e.Offset != -1 || e.Msg != "custom failure" || e.Syntax {
		t.Errorf("wrapped foreign error = %+v", e)
	}
	if !errors.Is(err, base) {
		t.Error("wrapped foreign error does not unwrap")
	}
	if err.Error() != "/3/k: custom failure" {
		t.Errorf("Error() = %q", err.Error())
	}
	// An *Error wrapped by fmt.Errorf keeps its wrapper and gets the prefix.
	inner := d.Errorf("inner")
	err = AtKey(fmt.Errorf("ctx: %w", inner), "z")
	if inner.Pointer != "/z" || !strings.HasPrefix(err.Error(), "ctx: ") {
		t.Errorf("wrapped *Error: %v / %q", err, inner.Pointer)
	}
	if IsSyntax(nil) || IsSyntax(base) || !IsSyntax(NewDecoder(nil, Strict).Skip()) {
		t.Error("IsSyntax")
	}
}

func TestModes(t *testing.T) {
	d := NewDecoder(nil, Lenient)
	if !d.Lenient() || d.Mode() != Lenient {
		t.Error("Lenient")
	}
	d.Reset([]byte("1"), Strict)
	if d.Lenient() || d.Mode() != Strict || d.Offset() != 0 {
		t.Error("Strict")
	}
}

type point struct {
	X, Y  int64
	Extra Fields
}

func (p *point) DecodeJSON(d *Decoder) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		k, ok, err := d.NextKey()
		if err != nil || !ok {
			return err
		}
		switch string(k) {
		case "x":
			p.X, err = d.ReadInt64()
		case "y":
			p.Y, err = d.ReadInt64()
		default:
			name := string(k)
			var r Raw
			if r, err = d.ReadRaw(); err == nil {
				p.Extra = append(p.Extra, Field{name, r})
			}
			err = AtKey(err, name)
			if err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return AtKey(err, string(k))
		}
	}
}

func (p *point) AppendJSON(b []byte) []byte {
	b = append(b, `{"x":`...)
	b = AppendInt(b, p.X)
	b = append(b, `,"y":`...)
	b = AppendInt(b, p.Y)
	b, _ = p.Extra.AppendMembers(b, true)
	return append(b, '}')
}

func TestDecodeEncode(t *testing.T) {
	var p point
	if err := Decode([]byte(` {"y":2,"z":[1, 2],"x":1} `), &p, Strict); err != nil {
		t.Fatal(err)
	}
	if p.X != 1 || p.Y != 2 || len(p.Extra) != 1 {
		t.Fatalf("%+v", p)
	}
	if got := string(Encode(&p)); got != `{"x":1,"y":2,"z":[1, 2]}` {
		t.Errorf("Encode = %s", got)
	}
	err := Decode([]byte(`{"x":1} x`), &p, Strict)
	if !IsSyntax(err) || !strings.Contains(err.Error(), "unexpected data after top-level value") {
		t.Errorf("trailing data: %v", err)
	}
	err = Decode([]byte(`{"x":"1"}`), &p, Strict)
	if err == nil || err.Error() != "/x: expected integer, found string (offset 5)" {
		t.Errorf("type error: %v", err)
	}
}

func TestRaw(t *testing.T) {
	var r Raw
	if b, _ := r.MarshalJSON(); string(b) != "null" {
		t.Errorf("empty MarshalJSON = %s", b)
	}
	if r.Kind() != KindInvalid || Raw("  ").Kind() != KindInvalid || Raw(" [1]").Kind() != KindArray {
		t.Error("Kind")
	}
	in := []byte(`{"a":1}`)
	if err := r.UnmarshalJSON(in); err != nil || string(r) != `{"a":1}` {
		t.Fatalf("UnmarshalJSON = %q %v", r, err)
	}
	in[1] = 'X'
	if string(r) != `{"a":1}` {
		t.Error("UnmarshalJSON did not copy")
	}
	if err := r.UnmarshalJSON([]byte(`{"a":1}x`)); err == nil {
		t.Error("UnmarshalJSON accepted trailing data")
	}
	if err := r.UnmarshalJSON([]byte(`[1,]`)); err == nil {
		t.Error("UnmarshalJSON accepted invalid JSON")
	}
	// Raw works inside encoding/json both ways.
	var s struct {
		V Raw `json:"v"`
		W Raw `json:"w"`
	}
	if err := json.Unmarshal([]byte(`{"v": [1, {"b":true}]}`), &s); err != nil {
		t.Fatal(err)
	}
	if string(s.V) != `[1, {"b":true}]` {
		t.Errorf("V = %s", s.V)
	}
	out, err := json.Marshal(s)
	if err != nil || string(out) != `{"v":[1,{"b":true}],"w":null}` {
		t.Errorf("Marshal = %s %v", out, err)
	}
	r, err = RawOf(map[string]int{"a": 1})
	if err != nil || string(r) != `{"a":1}` {
		t.Errorf("RawOf = %s %v", r, err)
	}
	if _, err := RawOf(func() {}); err == nil {
		t.Error("RawOf(func) succeeded")
	}
}

func TestFields(t *testing.T) {
	var f Fields
	if _, ok := f.Get("a"); ok {
		t.Error("Get on empty")
	}
	f.Set("a", Raw("1"))
	f.Set("b", Raw(`"x"`))
	f = append(f, Field{"a", Raw("2")})
	if v, ok := f.Get("a"); !ok || string(v) != "2" {
		t.Errorf("Get(a) = %s %v, want last occurrence", v, ok)
	}
	f.Set("a", Raw("3"))
	if string(f[0].Value) != "3" || string(f[2].Value) != "2" || len(f) != 3 {
		t.Errorf("Set replaced the wrong member: %v", f)
	}
	b, more := f.AppendMembers([]byte("{"), false)
	if string(b) != `{"a":3,"b":"x","a":2` || !more {
		t.Errorf("AppendMembers = %s %v", b, more)
	}
	b, more = Fields{{"e\"", nil}}.AppendMembers([]byte(`{"z":0`), true)
	if string(b) != `{"z":0,"e\"":null` || !more {
		t.Errorf("AppendMembers with comma = %s %v", b, more)
	}
	b, more = Fields(nil).AppendMembers([]byte("{"), false)
	if string(b) != "{" || more {
		t.Errorf("empty AppendMembers = %s %v", b, more)
	}
	if _, more = Fields(nil).AppendMembers(nil, true); !more {
		t.Error("empty AppendMembers lost needComma")
	}
}

var stringSink string

func TestZeroAllocs(t *testing.T) {
	msg := []byte(acpMessage)
	d := NewDecoder(msg, Strict)
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset(msg, Strict)
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Skip allocates %v times", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		d.Reset(msg, Strict)
		walkKeys(d)
	})
	if allocs != 0 {
		t.Errorf("NextKey walk allocates %v times", allocs)
	}
	nums := []byte(`[1, -22, 3.5e2, 18446744073709551615, 1.25, true, null, "\u0041bc"]`)
	allocs = testing.AllocsPerRun(100, func() {
		d.Reset(nums, Strict)
		d.BeginArray()
		d.NextItem()
		d.ReadInt64()
		d.NextItem()
		d.ReadInt32()
		d.NextItem()
		d.ReadUint16()
		d.NextItem()
		d.ReadUint64()
		d.NextItem()
		d.ReadFloat64()
		d.NextItem()
		d.ReadBool()
		d.NextItem()
		d.ReadNull()
		d.NextItem()
		d.ReadStringBytes()
		d.NextItem()
		d.ScanKey("x")
	})
	if allocs != 0 {
		t.Errorf("scalar reads allocate %v times", allocs)
	}
	str := []byte(`"esc\u0061ped"`)
	allocs = testing.AllocsPerRun(100, func() {
		d.Reset(str, Strict)
		stringSink, _ = d.ReadString()
	})
	if allocs != 1 {
		t.Errorf("ReadString of an escaped string allocates %v times, want 1", allocs)
	}
}

// Peek skips whitespace without consuming a token; the first-member logic
// of NextKey/NextItem must look past it.
func TestPeekBeforeFirstMember(t *testing.T) {
	d := NewDecoder([]byte("{ \n \"a\" : [ \t 1 , 2 ] , \"b\":{ } }"), Strict)
	d.Peek()
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	d.Peek()
	if k, ok, err := d.NextKey(); err != nil || !ok || string(k) != "a" {
		t.Fatalf("NextKey = %q %v %v", k, ok, err)
	}
	d.Peek()
	if err := d.BeginArray(); err != nil {
		t.Fatal(err)
	}
	d.Peek()
	if ok, err := d.NextItem(); err != nil || !ok {
		t.Fatalf("NextItem = %v %v", ok, err)
	}
	if got, err := collect(d); err != nil || got != "1" {
		t.Fatal(got, err)
	}
	d.Peek()
	if ok, err := d.NextItem(); err != nil || !ok {
		t.Fatalf("second NextItem = %v %v", ok, err)
	}
	d.Peek()
	if got, err := collect(d); err != nil || got != "2" {
		t.Fatal(got, err)
	}
	d.Peek()
	if ok, err := d.NextItem(); err != nil || ok {
		t.Fatalf("closing NextItem = %v %v", ok, err)
	}
	d.Peek()
	if k, ok, err := d.NextKey(); err != nil || !ok || string(k) != "b" {
		t.Fatalf("NextKey = %q %v %v", k, ok, err)
	}
	d.BeginObject()
	d.Peek()
	if _, ok, err := d.NextKey(); err != nil || ok {
		t.Fatalf("empty object NextKey = %v %v", ok, err)
	}
	if _, ok, err := d.NextKey(); err != nil || ok || d.Depth() != 0 {
		t.Fatalf("closing NextKey = %v %v", ok, err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	// Misuse: closing brackets without a matching Begin are errors.
	if _, _, err := NewDecoder([]byte("}"), Strict).NextKey(); !IsSyntax(err) {
		t.Errorf("NextKey on } at depth 0: %v", err)
	}
	if _, err := NewDecoder([]byte("]"), Strict).NextItem(); !IsSyntax(err) {
		t.Errorf("NextItem on ] at depth 0: %v", err)
	}
	// BeginObject/BeginArray on the wrong kind are type errors, not consuming.
	d = NewDecoder([]byte(`[1]`), Strict)
	if err := d.BeginObject(); err == nil || IsSyntax(err) || d.Depth() != 0 {
		t.Errorf("BeginObject on array: %v", err)
	}
	if err := d.BeginArray(); err != nil {
		t.Errorf("BeginArray after failed BeginObject: %v", err)
	}
}
