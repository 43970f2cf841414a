package runtimecontext_test

// Hand-written behaviour tests of the runtimeContext overlay (RFD PR #874)
// as generated from golden/testdata/base.json.
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"strings"
	"testing"

	rc "github.com/acpgen/acpgen/golden/testdata/runtime-context"
	"github.com/acpgen/acpgen/runtime/wire"
)

const prompt = `{"sessionId":"s1","prompt":[{"type":"text","text":"Why does this allocate?"}],"runtimeContext":[{"title":"Active editor","text":"queue.go, line 42"},{"text":"2 diagnostics"}]}`

func TestDecodeEncode(t *testing.T) {
	var p rc.PromptRequest
	if err := decode([]byte(prompt), &p, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(p.RuntimeContext) != 2 || *p.RuntimeContext[0].Title != "Active editor" || p.RuntimeContext[1].Title != nil || p.RuntimeContext[1].Text != "2 diagnostics" {
		t.Fatalf("runtimeContext decoded as %+v", p.RuntimeContext)
	}
	if len(p.Unknown) != 0 {
		t.Errorf("runtimeContext kept as an unknown member: %v", p.Unknown)
	}
	if got := string(encode(&p)); got != prompt {
		t.Errorf("re-encoded as %s", got)
	}
}

func TestItemsAreTextOnly(t *testing.T) {
	for in, want := range map[string]string{
		`{"sessionId":"s","prompt":[],"runtimeContext":[{"title":"no text"}]}`:          `missing required member "text"`,
		`{"sessionId":"s","prompt":[],"runtimeContext":[{"text":{"type":"image"}}]}`:    "/runtimeContext/0/text",
		`{"sessionId":"s","prompt":[],"runtimeContext":[{"text":"t","title":null}]}`:    "/runtimeContext/0/title",
		`{"sessionId":"s","prompt":[],"runtimeContext":{"text":"not a list"}}`:          "/runtimeContext",
		`{"sessionId":"s","prompt":[],"runtimeContext":[{"type":"text","text":"t"},3]}`: "/runtimeContext/1",
	} {
		var p rc.PromptRequest
		err := decode([]byte(in), &p, wire.Strict)
		if err == nil {
			err = p.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", in, err, want)
		}
	}
}

func TestForHistory(t *testing.T) {
	var p rc.PromptRequest
	if err := decode([]byte(prompt), &p, wire.Strict); err != nil {
		t.Fatal(err)
	}
	h := p.ForHistory()
	if h.RuntimeContext != nil {
		t.Fatal("history keeps runtimeContext")
	}
	want := `{"sessionId":"s1","prompt":[{"type":"text","text":"Why does this allocate?"}]}`
	if got := string(encode(&h)); got != want {
		t.Errorf("history records %s, want %s", got, want)
	}
	// The turn itself still has it.
	if len(p.RuntimeContext) != 2 {
		t.Error("ForHistory changed the prompt it was called on")
	}
	// Replaying the recorded prompt gives the same record.
	var again rc.PromptRequest
	if err := decode(encode(&h), &again, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if h2 := again.ForHistory(); string(encode(&h2)) != want {
		t.Errorf("replay records %s", encode(&h2))
	}
}

func TestCapability(t *testing.T) {
	var r rc.InitializeResponse
	in := `{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"runtimeContext":{}}}}`
	if err := decode([]byte(in), &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if r.AgentCapabilities.SessionCapabilities.RuntimeContext == nil {
		t.Fatal("runtimeContext capability not decoded")
	}
	if got := string(encode(&r)); got != in {
		t.Errorf("re-encoded as %s", got)
	}
}

func TestGate(t *testing.T) {
	p := &rc.PromptRequest{SessionID: "s", Prompt: []rc.ContentBlock{}, RuntimeContext: []rc.RuntimeContextItem{{Text: "x"}}}
	var without rc.Negotiated
	without.Response = &rc.InitializeResponse{}
	if v := without.CheckParams(rc.MethodSessionPrompt, p); len(v) != 1 || v[0].Pointer != "/runtimeContext" || v[0].Capability != "agentCapabilities.sessionCapabilities.runtimeContext" {
		t.Errorf("without the capability: %+v", v)
	}
	with := rc.Negotiated{Response: &rc.InitializeResponse{AgentCapabilities: &rc.AgentCapabilities{SessionCapabilities: &rc.SessionCapabilities{RuntimeContext: &rc.SessionRuntimeContextCapabilities{}}}}}
	if v := with.CheckParams(rc.MethodSessionPrompt, p); len(v) != 0 {
		t.Errorf("with the capability: %+v", v)
	}
	// History never needs the capability: ForHistory drops the member.
	h := p.ForHistory()
	if v := without.CheckParams(rc.MethodSessionPrompt, &h); len(v) != 0 {
		t.Errorf("history prompt: %+v", v)
	}
}

// decode decodes data into the generated value v points to, through its table.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, rc.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return rc.TableOf(v).AppendValue(nil, v) }
