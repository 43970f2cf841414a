package resumabletransport_test

// Hand-written behaviour tests of the resumable-transport overlay (the
// agent's transport.resumable capability) as generated from
// golden/testdata/base.json.
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"testing"

	rt "github.com/acpgen/acpgen/golden/testdata/resumable-transport"
	"github.com/acpgen/acpgen/runtime/wire"
)

const advertised = `{"protocolVersion":1,"agentCapabilities":{"transport":{"resumable":{"retentionMessages":1000,"retentionSeconds":300}}}}`

// The capability decodes into typed members and re-encodes as it came.
func TestCapabilityRoundTrip(t *testing.T) {
	var r rt.InitializeResponse
	if err := decode([]byte(advertised), &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	res := r.AgentCapabilities.Transport.Resumable
	if res == nil || *res.RetentionMessages != 1000 || *res.RetentionSeconds != 300 {
		t.Fatalf("decoded as %+v", r.AgentCapabilities.Transport)
	}
	if got := string(encode(&r)); got != advertised {
		t.Errorf("re-encoded as %s", got)
	}
}

// A peer that sends garbage for it is read as not advertising it, as every
// capability of the schema is (x-deserialize-default-on-error); a negative
// retention is invalid.
func TestCapabilityLenientAndChecked(t *testing.T) {
	var r rt.InitializeResponse
	if err := decode([]byte(`{"protocolVersion":1,"agentCapabilities":{"transport":"yes"}}`), &r, wire.Lenient); err != nil {
		t.Fatal(err)
	}
	if r.AgentCapabilities.Transport != nil {
		t.Errorf("garbage read as %+v", r.AgentCapabilities.Transport)
	}
	err := decode([]byte(`{"protocolVersion":1,"agentCapabilities":{"transport":{"resumable":{"retentionMessages":-1}}}}`), &r, wire.Strict)
	if err == nil {
		err = r.Validate()
	}
	if err == nil {
		t.Error("a negative retention was accepted")
	}
}

// decode decodes data into the generated value v points to.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, rt.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return rt.TableOf(v).AppendValue(nil, v) }
