package zeroclaw_test

// Hand-written behaviour tests of the ZeroClaw vendor package (seed 002):
// session/stop, agentAlias, _meta.zeroclaw and its own error codes.
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"testing"

	zc "github.com/acpgen/acpgen/golden/testdata/zeroclaw"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestErrorCodesAreTheirOwnType(t *testing.T) {
	if zc.ZeroClawErrorCodeSessionNotFound != -32000 || zc.ZeroClawErrorCodeSessionLimitReached != -32001 || zc.ZeroClawErrorCodeSessionBusy != -32002 {
		t.Error("ZeroClaw codes")
	}
	// ACP's ErrorCode keeps its own meaning of the same numbers.
	if zc.ErrorCodeAuthenticationRequired != -32000 || zc.ErrorCodeResourceNotFound != -32002 {
		t.Error("ACP codes changed")
	}
	// An ACP error carrying a ZeroClaw code decodes as ACP's open ErrorCode;
	// the vendor reading converts it explicitly.
	var e zc.Error
	if err := wire.Decode([]byte(`{"code":-32001,"message":"max_sessions reached"}`), &e, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if zc.ZeroClawErrorCode(e.Code) != zc.ZeroClawErrorCodeSessionLimitReached {
		t.Errorf("code %d", e.Code)
	}
	var c zc.ZeroClawErrorCode
	if err := wire.Decode([]byte(`-32099`), &c, wire.Strict); err != nil || c != -32099 {
		t.Errorf("open enum: %v %d", err, c)
	}
}

func TestSessionStop(t *testing.T) {
	found := false
	for _, m := range zc.Methods {
		if m.Wire == zc.MethodSessionStop {
			found = m.Side == "agent" && !m.Notification && m.Params == "ZeroClawStopSessionRequest" && m.Result == "ZeroClawStopSessionResponse"
		}
	}
	if !found {
		t.Fatal("session/stop is not an agent-handled request")
	}
	var r zc.ZeroClawStopSessionResponse
	if err := wire.Decode([]byte(`{"sessionId":"s-ab12cd","stopped":true}`), &r, wire.Strict); err != nil || !r.Stopped {
		t.Fatalf("%v %+v", err, r)
	}
	if err := wire.Decode([]byte(`{"sessionId":"s-ab12cd"}`), &r, wire.Strict); err == nil {
		t.Error("missing stopped accepted")
	}
}

func TestAgentAlias(t *testing.T) {
	var n zc.NewSessionRequest
	if err := wire.Decode([]byte(`{"agentAlias":"myagent","cwd":"/path/to/project","mcpServers":[]}`), &n, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if n.AgentAlias == nil || *n.AgentAlias != "myagent" {
		t.Fatalf("agentAlias %v", n.AgentAlias)
	}
	empty := ""
	n.AgentAlias = &empty
	if err := n.Validate(); err == nil {
		t.Error("empty alias accepted")
	}
}

func TestInitializeMeta(t *testing.T) {
	in := `{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"_meta":{"zeroclaw":{"defaultModel":"anthropic/claude-sonnet-4.6","maxSessions":10,"sessionTimeoutSecs":3600}}}`
	var r zc.InitializeResponse
	if err := wire.Decode([]byte(in), &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	m, ok, err := r.ZeroClawInitializeMeta()
	if err != nil || !ok || *m.MaxSessions != 10 || *m.SessionTimeoutSecs != 3600 || *m.DefaultModel != "anthropic/claude-sonnet-4.6" {
		t.Fatalf("%+v ok=%v err=%v", m, ok, err)
	}
	if got := string(r.AppendJSON(nil)); got != in {
		t.Errorf("re-encoded as %s", got)
	}
}
