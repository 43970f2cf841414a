package unstable_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/wire"
)

type codec[T any] interface {
	*T
	Validate() error
}

// checkCodec: decoding never panics, failures are error values, and what
// decodes and validates re-encodes to JSON that decodes strictly, validates
// and encodes to the same bytes.
func checkCodec[T any, P codec[T]](t *testing.T, data []byte) {
	t.Helper()
	for _, mode := range []wire.Mode{wire.Lenient, wire.Strict} {
		var v T
		if err := decode(data, P(&v), mode); err != nil {
			continue
		}
		if err := P(&v).Validate(); err != nil {
			var ve *wire.ValidationError
			if !errors.As(err, &ve) || len(ve.Violations) == 0 {
				t.Fatalf("%T: Validate returned %T %v", v, err, err)
			}
			continue
		}
		enc := encode(P(&v))
		var w T
		if !json.Valid(enc) {
			t.Fatalf("%T: invalid JSON %q from input %q", v, enc, data)
		}
		if err := decode(enc, P(&w), wire.Strict); err != nil {
			t.Fatalf("%T: %s does not decode: %v\ninput %q", v, enc, err, data)
		}
		if err := P(&w).Validate(); err != nil {
			t.Fatalf("%T: %s does not validate: %v\ninput %q", v, enc, err, data)
		}
		if again := encode(P(&w)); !bytes.Equal(enc, again) {
			t.Fatalf("%T: encoding not stable:\n%s\n%s\ninput %q", v, enc, again, data)
		}
	}
}

// FuzzUnions runs every input through the unstable channel's union-heavy
// types, whose shapes differ from stable (19 session updates, the acp MCP
// server, state updates with a null tag). Seeds: testdata/fuzz/FuzzUnions.
func FuzzUnions(f *testing.F) {
	for _, s := range []string{
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}`,
		`{"type":"acp","name":"a","id":"x"}`, `{"outcome":"cancelled"}`,
		`{"action":"accept","content":{"a":1}}`, `{"type":"text","text":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[unstable.ContentBlock](t, data)
		checkCodec[unstable.SessionUpdate](t, data)
		checkCodec[unstable.MCPServer](t, data)
		checkCodec[unstable.RequestPermissionOutcome](t, data)
		checkCodec[unstable.CreateElicitationRequest](t, data)
		checkCodec[unstable.CreateElicitationResponse](t, data)
		checkCodec[unstable.ElicitationPropertySchema](t, data)
		checkCodec[unstable.ElicitationContentValue](t, data)
		checkCodec[unstable.StateUpdate](t, data)
	})
}
