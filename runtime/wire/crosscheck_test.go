package wire

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The decoder is stricter than encoding/json in exactly one way: it rejects
// invalid UTF-8 inside strings, which encoding/json accepts (replacing it
// with U+FFFD). So the cross-checks require exact agreement only for inputs
// that are valid UTF-8, and otherwise only that we never accept what
// encoding/json rejects.

// checkAgainstStd compares Skip+Finish with json.Valid on in.
func checkAgainstStd(t *testing.T, in []byte) {
	t.Helper()
	d := NewDecoder(in, Strict)
	err := d.Skip()
	if err == nil {
		err = d.Finish()
	}
	if err != nil && !IsSyntax(err) {
		t.Fatalf("Skip(%q) returned non-syntax error %v", in, err)
	}
	ours, std := err == nil, json.Valid(in)
	if utf8.Valid(in) {
		if ours != std {
			t.Fatalf("Skip+Finish(%q) = %v, json.Valid = %v", in, err, std)
		}
	} else if ours && !std {
		t.Fatalf("Skip+Finish accepts %q, json.Valid rejects it", in)
	}
	if ours != Valid(in) {
		t.Fatalf("Valid(%q) disagrees with Skip+Finish", in)
	}
}

// checkStringAgainstStd compares ReadString with json.Unmarshal into a
// string.
func checkStringAgainstStd(t *testing.T, in []byte) {
	t.Helper()
	d := NewDecoder(in, Strict)
	got, err := d.ReadString()
	if err == nil {
		err = d.Finish()
	}
	var std string
	stdErr := json.Unmarshal(in, &std)
	ours := err == nil
	switch {
	case ours && stdErr != nil:
		t.Fatalf("ReadString accepts %q (%q), encoding/json: %v", in, got, stdErr)
	case ours && got != std:
		t.Fatalf("ReadString(%q) = %q, encoding/json gives %q", in, got, std)
	case !ours && stdErr == nil && utf8.Valid(in) && NewDecoder(in, Strict).Peek() == KindString:
		t.Fatalf("ReadString rejects %q: %v; encoding/json gives %q", in, err, std)
	}
}

// fragments are the pieces random documents are built from: mostly valid
// tokens plus the usual ways of getting JSON wrong.
var fragments = []string{
	"{", "}", "[", "]", ",", ":", " ", "\t", "\n", "\r", "\v", "\f", "\x00",
	`"a"`, `""`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\x"`, `"\u12"`, `"`, `\`, `\u0041`, `\n`,
	"\"\t\"", "\"\x7f\"", "\"é\"", "\"\xff\"", "\"\xed\xa0\x80\"",
	"0", "1", "-", "-0", "01", "1.", ".5", "1.5", "1e5", "1E+5", "1e-5", "1e", "+1", "e", "E", ".", "12345678901234567890",
	"true", "false", "null", "tru", "nul", "True", "NaN", "Infinity",
	`{"k":1}`, `[1,2]`, `{"a":[{"b":null}]}`, "[]", "{}",
}

func randomDoc(r *rand.Rand) []byte {
	var sb strings.Builder
	n := 1 + r.IntN(12)
	for i := 0; i < n; i++ {
		sb.WriteString(fragments[r.IntN(len(fragments))])
	}
	return []byte(sb.String())
}

// validDoc builds a random valid document, so mutations of it land close to
// the valid/invalid boundary.
func validDoc(r *rand.Rand, depth int) string {
	switch k := r.IntN(8); {
	case k == 0 && depth < 6:
		var parts []string
		for i := r.IntN(4); i > 0; i-- {
			parts = append(parts, validDoc(r, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case k == 1 && depth < 6:
		var parts []string
		for i := r.IntN(4); i > 0; i-- {
			parts = append(parts, " "+validString(r)+" :\t"+validDoc(r, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}\n"
	case k == 2:
		return validString(r)
	case k == 3:
		return []string{"true", "false", "null"}[r.IntN(3)]
	default:
		return []string{"0", "-0", "12", "-3.25", "1e10", "6.02E+23", "1.5e-7", "0.0"}[r.IntN(8)]
	}
}

func validString(r *rand.Rand) string {
	pieces := []string{"a", "key", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u00E9`,
		`\ud83d\ude00`, `\udc00`, `\ud800`, "é", "世", "😀", "\u2028", " "}
	var sb strings.Builder
	sb.WriteByte('"')
	for i := r.IntN(6); i > 0; i-- {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	sb.WriteByte('"')
	return sb.String()
}

func mutate(r *rand.Rand, s []byte) []byte {
	s = append([]byte(nil), s...)
	for i := 1 + r.IntN(2); i > 0; i-- {
		switch {
		case len(s) == 0:
			s = append(s, fragments[r.IntN(len(fragments))]...)
		case r.IntN(3) == 0: // delete a byte
			j := r.IntN(len(s))
			s = append(s[:j], s[j+1:]...)
		case r.IntN(2) == 0: // replace a byte
			const bytes = "{}[],:\"\\ 0-.eE+tfnu\x00\xff"
			s[r.IntN(len(s))] = bytes[r.IntN(len(bytes))]
		default: // insert a fragment
			j := r.IntN(len(s) + 1)
			f := fragments[r.IntN(len(fragments))]
			s = append(s[:j], append([]byte(f), s[j:]...)...)
		}
	}
	return s
}

func TestCrossCheckValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	accepted := 0
	for i := 0; i < n; i++ {
		var in []byte
		switch i % 3 {
		case 0:
			in = randomDoc(r)
		case 1:
			in = []byte(validDoc(r, 0))
		default:
			in = mutate(r, []byte(validDoc(r, 0)))
		}
		checkAgainstStd(t, in)
		if Valid(in) {
			accepted++
		}
	}
	// Guard against a generator that only produces garbage.
	if accepted < n/4 {
		t.Errorf("only %d of %d generated inputs were valid", accepted, n)
	}
}

func TestCrossCheckStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50000; i++ {
		in := []byte(validString(r))
		if i%2 == 1 {
			in = mutate(r, in)
		}
		checkStringAgainstStd(t, in)
	}
	// Every single escape and every byte as string content.
	for c := 0; c < 256; c++ {
		checkStringAgainstStd(t, []byte{'"', byte(c), '"'})
		checkStringAgainstStd(t, []byte{'"', '\\', byte(c), '"'})
		checkAgainstStd(t, []byte{'"', byte(c), '"'})
		checkAgainstStd(t, []byte{byte(c)})
	}
	// All combinations of two \u escapes around the surrogate ranges.
	codes := []string{"0041", "D7FF", "D800", "DBFF", "DC00", "DFFF", "E000", "FFFF", "d83d", "de00"}
	for _, a := range codes {
		for _, b := range codes {
			checkStringAgainstStd(t, []byte(`"\u`+a+`\u`+b+`"`))
			checkStringAgainstStd(t, []byte(`"\u`+a+`x\u`+b+`"`))
		}
	}
}
