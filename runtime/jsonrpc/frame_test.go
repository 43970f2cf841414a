package jsonrpc

import (
	"bufio"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

type frameRead struct {
	frame  string
	tooBig bool
	eof    bool
}

func readFrames(t *testing.T, in string, bufSize, max int) []frameRead {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(in), bufSize)
	var out []frameRead
	for {
		f, tooBig, err := ReadFrame(br, max)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		out = append(out, frameRead{string(f), tooBig, err == io.EOF})
		if err != nil {
			return out
		}
	}
}

// ReadFrame splits on LF and CRLF, returns a last line without a newline
// with io.EOF, assembles a line longer than the buffer, and skips a line
// over max whole, reading on after it.
func TestReadFrame(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want []frameRead
	}{
		{"lines", "a\nb\r\n\nc", 100, []frameRead{{"a", false, false}, {"b", false, false}, {"", false, false}, {"c", false, true}}},
		{"final newline", "a\n", 100, []frameRead{{"a", false, false}, {"", false, true}}},
		{"a lone CR stays", "a\rb\n", 100, []frameRead{{"a\rb", false, false}, {"", false, true}}},
		{"longer than the buffer", long + "\r\n" + long, 100, []frameRead{{long, false, false}, {long, false, true}}},
		{"exactly max, CRLF", long + "\r\n", 40, []frameRead{{long, false, false}, {"", false, true}}},
		{"over max", long + "y\nok\n", 40, []frameRead{{"", true, false}, {"ok", false, false}, {"", false, true}}},
		{"over max at the end", long + "y", 40, []frameRead{{"", true, true}}},
		{"max without overflow", "a\n", math.MaxInt, []frameRead{{"a", false, false}, {"", false, true}}},
	} {
		got := readFrames(t, tc.in, 16, tc.max)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: frame %d %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// The frame is a copy: the next read does not change it.
func TestReadFrameCopies(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("first\nsecond\n"), 16)
	a, _, _ := ReadFrame(br, 100)
	if _, _, err := ReadFrame(br, 100); err != nil {
		t.Fatal(err)
	}
	if string(a) != "first" {
		t.Fatalf("first frame became %q", a)
	}
}

// AppendError writes one error response line; a nil id is null, and data
// that cannot be encoded is left out with the reason.
func TestAppendError(t *testing.T) {
	for _, tc := range []struct {
		id      wire.Raw
		e       wire.RPCError
		want    string
		dropped bool
	}{
		{nil, wire.RPCError{Code: -32600, Message: "Invalid request"},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}`, false},
		{wire.Raw(`"a"`), wire.RPCError{Code: -32022, Message: "q\"\n", Data: map[string]any{"supported": []int{1, 2}}},
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32022,"message":"q\"\n","data":{"supported":[1,2]}}}`, false},
		{wire.Raw(`7`), wire.RPCError{Code: 1, Message: "m", Data: wire.Raw("{\n\"k\": 1}")},
			`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m","data":{"k":1}}}`, false},
		{wire.Raw(`7`), wire.RPCError{Code: 1, Message: "m", Data: func() {}},
			`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`, true},
		{wire.Raw(`7`), wire.RPCError{Code: 1, Message: "m", Data: wire.Raw(`{`)},
			`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`, true},
	} {
		b, err := AppendError([]byte("prefix"), tc.id, &tc.e)
		if string(b) != "prefix"+tc.want+"\n" || (err != nil) != tc.dropped {
			t.Errorf("%+v: %q, %v", tc.e, b, err)
		}
	}
	if _, err := AppendError(nil, nil, &wire.RPCError{Data: wire.Raw(`{`)}); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("invalid raw data: %v, want ErrInvalidJSON", err)
	}
}
