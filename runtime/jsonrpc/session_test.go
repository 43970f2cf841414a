package jsonrpc

import (
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

var sessionParams = []string{
	`{"sessionId":"sess_01HZX","prompt":[]}`,
	`{"sessionId":"a"}`,
	`{"sessionId":""}`,
	`{"sessionId":"a\"b"}`,
	`{"sessionId":"a\u00e9"}`,
	"{\"sessionId\":\"a\tb\"}",
	"{\"sessionId\":\"\xc3\xa9\"}",
	`{"sessionId":"unterminated`,
	`{"sessionId":"a","sessionId":"b"}`,
	`{"prompt":[],"sessionId":"s"}`,
	`{ "sessionId":"s"}`,
	`{"sessionId":12}`,
	`{"sessionId":"s"`,
	`[]`,
	``,
}

// TestSessionIDPlainAgrees: the plain reading of the usual shape returns
// what the decoder returns, and reads the first member as the decoder does.
func TestSessionIDPlainAgrees(t *testing.T) {
	read := 0
	for _, p := range sessionParams {
		s, ok := plainSessionID(wire.Raw(p))
		if ok {
			read++
			if ds, dok := decodedSessionID(wire.Raw(p)); !dok || string(ds) != string(s) {
				t.Errorf("%q: plain %q, decoder %q %v", p, s, ds, dok)
			}
		}
	}
	if read != 5 { // the first three, the duplicate (the first wins in both) and the unclosed object
		t.Errorf("plain path read %d of the params, want 5", read)
	}
	for p, want := range map[string]string{`{"sessionId":"a","sessionId":"b"}`: "a", `{"prompt":[],"sessionId":"s"}`: "s", `{"sessionId":"a\"b"}`: `a"b`} {
		if s, ok := SessionID(wire.Raw(p)); !ok || s != want {
			t.Errorf("SessionID(%s) = %q %v, want %q", p, s, ok, want)
		}
	}
}

// FuzzSessionID: params the plain path reads, the decoder reads the same.
func FuzzSessionID(f *testing.F) {
	for _, p := range sessionParams {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		s, ok := plainSessionID(p)
		if !ok {
			return
		}
		if ds, dok := decodedSessionID(p); !dok || string(ds) != string(s) {
			t.Fatalf("%q: plain %q, decoder %q %v", p, s, ds, dok)
		}
	})
}

// TestNamesPlain: a name is plain by its own bytes, whichever reader kept
// it first, so a name the decoder unescaped is not read as plain again.
func TestNamesPlain(t *testing.T) {
	var n names
	n.of([]byte(`a\b`))
	for _, c := range []struct {
		name  string
		plain bool
	}{{`a\b`, false}, {"session/prompt", true}, {"session/prompt", true}, {"\u00e9", false}, {"a\tb", false}, {`a"b`, false}, {"", false}, {"_x/y", true}, {`a\b`, false}} {
		if s, plain := n.plainOf([]byte(c.name)); s != c.name || plain != c.plain {
			t.Errorf("plainOf(%q) = %q, %v; want plain %v", c.name, s, plain, c.plain)
		}
	}
}
