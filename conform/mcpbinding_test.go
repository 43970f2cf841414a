package conform

import (
	"encoding/json"
	"errors"
	"testing"
)

func mcpFrame(t *testing.T, s string) *frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// The client side's binding rules for mcp/message: an unknown MCP method's
// error is the inner outcome (an ACP error only with a binding failure's
// code), and of two requests sharing a requestId one is refused -32602.
func TestMCPBindingVerdicts(t *testing.T) {
	for _, c := range []struct {
		answer string
		want   Verdict
	}{
		{`{"id":1,"result":{"error":{"code":-32601,"message":"Method not found"}}}`, Pass},
		{`{"id":1,"result":{"result":{}}}`, Warn},
		{`{"id":1,"error":{"code":-33002,"message":"backend failed"}}`, Warn},
		{`{"id":1,"error":{"code":-32601,"message":"Method not found"}}`, Fail},
		{`{"id":1,"error":{"code":-32000,"message":"tool failed"}}`, Fail},
	} {
		if got, obs := mcpOutcomeVerdict(mcpFrame(t, c.answer), nil); got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.answer, got, obs, c.want)
		}
	}
	if got, _ := mcpOutcomeVerdict(nil, errors.New("no response within 1s")); got != Fail {
		t.Errorf("no answer: %s, want fail", got)
	}
	ok := `{"id":1,"result":{"result":{"tools":[]}}}`
	refused := `{"id":2,"error":{"code":-32602,"message":"duplicate requestId"}}`
	other := `{"id":2,"error":{"code":-32603,"message":"internal"}}`
	for _, c := range []struct {
		a, b string
		want Verdict
	}{
		{ok, refused, Pass},
		{refused, ok, Pass},
		{ok, ok, Noted},
		{ok, other, Fail},
	} {
		if got, obs := mcpDuplicateVerdict([2]*frame{mcpFrame(t, c.a), mcpFrame(t, c.b)}, [2]error{}); got != c.want {
			t.Errorf("%s, %s: %s (%s), want %s", c.a, c.b, got, obs, c.want)
		}
	}
}
