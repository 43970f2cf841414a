package wire

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecodeRawMapMember(t *testing.T) {
	cases := []struct {
		in      string
		mode    Mode
		want    map[string]Raw // after the call
		errPtr  string         // pointer of the error; "" for none
		syntax  bool
		restPos int // offset after the call when it succeeds
	}{
		{in: `null,`, mode: Strict, want: nil, restPos: 4},
		{in: `{"a":1,"b":{"c":[]}},`, mode: Strict, want: map[string]Raw{"a": Raw("1"), "b": Raw(`{"c":[]}`)}, restPos: 20},
		{in: `{},`, mode: Strict, want: map[string]Raw{}, restPos: 2},
		// Not an object: an error in strict mode, skipped and left nil in lenient mode.
		{in: `[1,2],`, mode: Strict, errPtr: "/_meta"},
		{in: `[1,2],`, mode: Lenient, want: nil, restPos: 5},
		{in: `"s",`, mode: Lenient, want: nil, restPos: 3},
		// Malformed JSON is never skipped.
		{in: `{"a":tru},`, mode: Lenient, errPtr: "/_meta/a", syntax: true},
	}
	for _, c := range cases {
		d := NewDecoder([]byte(c.in), c.mode)
		m := map[string]Raw{"stale": Raw("1")}
		err := DecodeRawMapMember(d, &m, "_meta")
		if c.errPtr != "" {
			var e *Error
			if !errors.As(err, &e) || e.Pointer != c.errPtr || e.Syntax != c.syntax {
				t.Errorf("%s (mode %d): error %v, want one at %s (syntax %v)", c.in, c.mode, err, c.errPtr, c.syntax)
			}
			if m != nil {
				t.Errorf("%s (mode %d): map %v kept after an error", c.in, c.mode, m)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (mode %d): %v", c.in, c.mode, err)
			continue
		}
		if !reflect.DeepEqual(m, c.want) || (m == nil) != (c.want == nil) {
			t.Errorf("%s (mode %d): map %v, want %v", c.in, c.mode, m, c.want)
		}
		if d.Offset() != c.restPos {
			t.Errorf("%s (mode %d): offset %d after the member, want %d", c.in, c.mode, d.Offset(), c.restPos)
		}
	}
}
