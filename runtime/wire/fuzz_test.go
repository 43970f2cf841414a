package wire

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are shared by the fuzz targets; testdata/fuzz holds more.
var fuzzSeeds = []string{
	``, ` `, `null`, `true`, `false`, `0`, `-0.5e+10`, `01`, `1.`, `"`, `""`, `"\u00e9\ud83d\ude00"`,
	`"\ud800"`, "\"\xff\"", "\"\t\"", `[]`, `{}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[[[[]]]]`,
	`{"a":[1,{"b":null}],"c":"d"}`, acpMessage,
}

func FuzzSkip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDecoder(in, Strict)
		err := d.Skip()
		if err == nil {
			err = d.Finish()
		}
		ours, std := err == nil, json.Valid(in)
		if utf8.Valid(in) {
			if ours != std {
				t.Fatalf("Skip+Finish(%q) = %v, json.Valid = %v", in, err, std)
			}
		} else if ours && !std {
			// We reject invalid UTF-8 in strings, encoding/json does not;
			// the reverse must never happen.
			t.Fatalf("Skip+Finish accepts %q, json.Valid rejects it", in)
		}
		if err != nil && !IsSyntax(err) {
			t.Fatalf("Skip(%q): non-syntax error %v", in, err)
		}
		// The structural API must agree with Skip and never panic.
		d = NewDecoder(in, Lenient)
		_, cerr := collect(d)
		if cerr == nil {
			cerr = d.Finish()
		}
		if (cerr == nil) != ours {
			t.Fatalf("collect(%q) = %v, Skip+Finish = %v", in, cerr, err)
		}
		// ScanKey must not panic or move the decoder, and must agree on
		// validity for objects.
		d = NewDecoder(in, Strict)
		_, _, _, serr := d.ScanKey("a")
		if d.Offset() != 0 || d.Depth() != 0 {
			t.Fatalf("ScanKey moved the decoder on %q", in)
		}
		if ours && serr != nil {
			t.Fatalf("ScanKey(%q) failed on valid input: %v", in, serr)
		}
		// Scalar readers must not panic on anything.
		for _, read := range []func(d *Decoder) error{
			func(d *Decoder) error { _, err := d.ReadInt64(); return err },
			func(d *Decoder) error { _, err := d.ReadInt32(); return err },
			func(d *Decoder) error { _, err := d.ReadUint16(); return err },
			func(d *Decoder) error { _, err := d.ReadUint64(); return err },
			func(d *Decoder) error { _, err := d.ReadFloat64(); return err },
			func(d *Decoder) error { _, err := d.ReadBool(); return err },
			func(d *Decoder) error { return d.ReadNull() },
			func(d *Decoder) error { _, err := d.ReadRaw(); return err },
		} {
			read(NewDecoder(in, Strict))
		}
	})
}

func FuzzReadString(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDecoder(in, Strict)
		got, err := d.ReadString()
		if err == nil {
			err = d.Finish()
		}
		var std string
		stdErr := json.Unmarshal(in, &std)
		if err == nil {
			if stdErr != nil {
				t.Fatalf("ReadString accepts %q, encoding/json: %v", in, stdErr)
			}
			if got != std {
				t.Fatalf("ReadString(%q) = %q, encoding/json = %q", in, got, std)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("ReadString(%q) returned invalid UTF-8", in)
			}
			// Re-encoding and decoding again is the identity.
			enc := AppendString(nil, got)
			d2 := NewDecoder(enc, Strict)
			if again, err := d2.ReadString(); err != nil || again != got {
				t.Fatalf("round trip of %q via %s = %q, %v", got, enc, again, err)
			}
		} else if stdErr == nil && utf8.Valid(in) && NewDecoder(in, Strict).Peek() == KindString {
			// (encoding/json also accepts null, leaving the string alone.)
			t.Fatalf("ReadString rejects %q (%v), encoding/json gives %q", in, err, std)
		}
		// Encoding arbitrary bytes always yields valid JSON.
		enc := AppendStringBytes(nil, in)
		if !Valid(enc) || !json.Valid(enc) {
			t.Fatalf("AppendStringBytes(%q) = %q is invalid", in, enc)
		}
	})
}
