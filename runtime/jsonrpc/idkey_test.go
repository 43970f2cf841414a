package jsonrpc

import (
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Ids that JSON-RPC calls equal share a key, and ids it does not allow
// have none: the connection, the proxy, the conductor and inspect match
// requests to responses and cancellations by it.
func TestIDKey(t *testing.T) {
	same := [][2]string{
		{`"a"`, `"\u0061"`},
		{`"x/y"`, `"x\/y"`},
		{`7`, `7`},
		{`null`, `null`},
	}
	for _, p := range same {
		if a, b := IDKey(wire.Raw(p[0])), IDKey(wire.Raw(p[1])); a != b || a == "" {
			t.Errorf("IDKey(%s) = %q, IDKey(%s) = %q: want one non-empty key", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{{`"1"`, `1`}, {`1`, `1.0`}, {`"null"`, `null`}, {`"a"`, `"A"`}}
	for _, p := range differ {
		if a, b := IDKey(wire.Raw(p[0])), IDKey(wire.Raw(p[1])); a == b {
			t.Errorf("IDKey(%s) = IDKey(%s) = %q: want different keys", p[0], p[1], a)
		}
	}
	for _, id := range []string{`{}`, `[1]`, `true`, ``, `"unterminated`} {
		if k := IDKey(wire.Raw(id)); k != "" {
			t.Errorf("IDKey(%s) = %q, want \"\" (not an id)", id, k)
		}
	}
}
