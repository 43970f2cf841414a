package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`"\`, `"\"\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f\""},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`}, // no HTML escaping
		{"/", `"/"`},
		{"é世😀", `"é世😀"`},
		{"a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"a\xffb", `"a\ufffdb"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // encoded surrogate: three bad bytes
		{"\xe4\xb8", `"\ufffd\ufffd"`},           // truncated sequence
		{"\ufffd", "\"\ufffd\""},                 // a real U+FFFD stays literal
	}
	for _, tt := range tests {
		if got := string(AppendString([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got[1:], tt.want)
		}
		if got := string(AppendStringBytes(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendStringBytes(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := string(AppendStringBytes(nil, nil)); got != `""` {
		t.Errorf("AppendStringBytes(nil) = %s", got)
	}
}

func TestAppendStringRoundTrip(t *testing.T) {
	inputs := []string{"", "abc", "\x00\x1f\"\\/", "é世😀\u2028\u2029", "<>&", "\xff\xfe", "a\xc3(b"}
	for c := 0; c < 256; c++ {
		inputs = append(inputs, string(rune(c)), string([]byte{byte(c)}))
	}
	for r := rune(0); r < 0x11000; r += 7 {
		inputs = append(inputs, "x"+string(r)+"y")
	}
	for _, s := range inputs {
		enc := AppendString(nil, s)
		if !json.Valid(enc) || !Valid(enc) {
			t.Fatalf("AppendString(%q) = %s is not valid JSON", s, enc)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if !utf8.ValidString(s) {
			// Each invalid byte becomes its own U+FFFD, as in encoding/json.
			want = string(bytes.Runes([]byte(s)))
		}
		var std string
		if err := json.Unmarshal(enc, &std); err != nil || std != want {
			t.Fatalf("AppendString(%q) = %s decodes to %q, %v; want %q", s, enc, std, err, want)
		}
		d := NewDecoder(enc, Strict)
		if got, err := d.ReadString(); err != nil || got != want {
			t.Fatalf("ReadString(AppendString(%q)) = %q, %v", s, got, err)
		}
		// Same bytes as encoding/json, once its HTML escaping is undone.
		stdEnc, _ := json.Marshal(s)
		stdEnc = bytes.ReplaceAll(stdEnc, []byte(`\u003c`), []byte("<"))
		stdEnc = bytes.ReplaceAll(stdEnc, []byte(`\u003e`), []byte(">"))
		stdEnc = bytes.ReplaceAll(stdEnc, []byte(`\u0026`), []byte("&"))
		if !bytes.Equal(enc, stdEnc) {
			t.Fatalf("AppendString(%q) = %s, encoding/json = %s", s, enc, stdEnc)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	floats := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 123.456, -123.456, 1e20, 1e21, 1.5e21, 1e-6, 1e-7, 1.2345e-7,
		9.999999999999999e20, 123456789, 1e100, -1e-100, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 2.2250738585072014e-308, math.MaxInt64, 0.000001, 0.0000001,
		float64(1 << 53), 3.141592653589793, 5e-324, 1.7976931348623157e308,
	}
	for _, f := range floats {
		got := string(AppendFloat(nil, f))
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("AppendFloat(%v) = %s, encoding/json = %s", f, got, want)
		}
		var back float64
		if err := json.Unmarshal([]byte(got), &back); err != nil || math.Float64bits(back) != math.Float64bits(f) {
			t.Errorf("AppendFloat(%v) = %s round-trips to %v, %v", f, got, back, err)
		}
		d := NewDecoder([]byte(got), Strict)
		if v, err := d.ReadFloat64(); err != nil || math.Float64bits(v) != math.Float64bits(f) {
			t.Errorf("ReadFloat64(%s) = %v, %v; want %v", got, v, err, f)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(AppendFloat([]byte("["), f)); got != "[null" {
			t.Errorf("AppendFloat(%v) = %s", f, got)
		}
	}
}

func TestAppendScalars(t *testing.T) {
	var b []byte
	b = AppendBool(b, true)
	b = append(b, ',')
	b = AppendBool(b, false)
	b = append(b, ',')
	b = AppendInt(b, math.MinInt64)
	b = append(b, ',')
	b = AppendUint(b, math.MaxUint64)
	b = append(b, ',')
	b = AppendRaw(b, nil)
	b = append(b, ',')
	b = AppendRaw(b, Raw(`{"a":1}`))
	want := `true,false,-9223372036854775808,18446744073709551615,null,{"a":1}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
