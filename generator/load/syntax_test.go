package load

import (
	"errors"
	"strings"
	"testing"
)

// A document that is not JSON is reported with the line and column of the
// problem; a truncated one points after its last byte.
func TestInvalidJSONLineColumn(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		line, col int
		msg       string
	}{
		{"truncated", "{\n  \"$defs\": {\n    \"A\": {\"type\": \"object\"", 3, 27, "truncated"},
		{"truncated after a newline", "{\"$defs\": {\n", 2, 1, "truncated"},
		{"empty", "", 1, 1, "truncated"},
		{"bad character", "{\n  \"$defs\": {\"A\": {\"type\": \"object\",}}}", 2, 36, "invalid character '}'"},
		{"bad literal", "{\"a\":\n tru }", 2, 5, "invalid character"},
		{"trailing data", "{}\n{}", 2, 1, "unexpected data after the top-level value"},
		{"duplicate member", "{\"a\": 1,\n \"a\": 2}", 2, 2, `duplicate member "a"`},
		{"duplicate member with an escaped quote", "{\"a\\\"b\": 1,\n \"a\\\"b\": 2}", 2, 2, `duplicate member "a\"b"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not located", err, err)
			}
			_, err = Load("x.json", []byte(c.doc))
			if se.Line != c.line || se.Column != c.col || !strings.Contains(se.Msg, c.msg) {
				t.Fatalf("got %d:%d %q, want %d:%d %q", se.Line, se.Column, se.Msg, c.line, c.col, c.msg)
			}
			want := "x.json#: invalid JSON: line "
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
		})
	}
}
