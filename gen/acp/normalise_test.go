package acp_test

// What a decode and re-encode changes, exactly as docs/generated-go.md's "Round trip"
// convention states it: everything else comes out byte for byte.

import (
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestRoundTripNormalisesOnlyTheStatedForms(t *testing.T) {
	for _, c := range []struct{ name, in, out string }{
		{"modelled members in schema order, unknown ones after them in input order",
			`{"update":{"zeta":1,"sessionUpdate":"agent_message_chunk","content":{"text":"x","type":"text"},"alpha":2},"sessionId":"s"}`,
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"zeta":1,"alpha":2}}`},
		{"_meta keys sorted",
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":{"b":1,"a":{"y":2,"x":1}}}`,
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"_meta":{"a":{"y":2,"x":1},"b":1}}`},
		{"a null optional member dropped",
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","annotations":null}},"_meta":null}`,
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`},
		{"a double member re-encoded as the shortest float64 text",
			`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":0.1000000000000000055511151231257827,"currency":"USD"}}}`,
			`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":0.1,"currency":"USD"}}}`},
		{"unknown members, _meta values and integers kept as written",
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","x_big":12345678901234567890123,"x_f":1.50}},"_meta":{"k":0.1000000000000000055511151231257827}}`,
			`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","x_big":12345678901234567890123,"x_f":1.50}},"_meta":{"k":0.1000000000000000055511151231257827}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []wire.Mode{wire.Strict, wire.Lenient} {
				var v acp.SessionNotification
				if err := decode([]byte(c.in), &v, mode); err != nil {
					t.Fatal(err)
				}
				out, err := v.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if string(out) != c.out {
					t.Errorf("mode %d:\n got %s\nwant %s", mode, out, c.out)
				}
			}
		})
	}
}
