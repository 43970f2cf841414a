package acp1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestBridge: an SDK client that only takes a URL runs the interop
// scenario against an acp server through the agent's loopback bridge.
func TestBridge(t *testing.T) {
	p := newPair(t, true)
	_, id, _, cancelled := register(t, p, nil)
	bridge := mcpacp.NewBridge(p.agent.mcp)
	defer bridge.Close()
	ep, err := bridge.Endpoint(id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep.URL, "http://127.0.0.1:") {
		t.Errorf("endpoint %s is not on loopback", ep.URL)
	}
	transport := &mcp.StreamableClientTransport{Endpoint: ep.URL, HTTPClient: &http.Client{Transport: bearer{ep.Token}}, DisableStandaloneSSE: true}
	if err := mcptest.ScenarioOver(context.Background(), transport); err != nil {
		t.Fatal(err)
	}
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
}

// TestBridgeRefuses: a wrong token, a Host that is not loopback (a rebound
// DNS name) and a foreign Origin are refused before anything is forwarded.
func TestBridgeRefuses(t *testing.T) {
	p := newPair(t, true)
	_, id, _, _ := register(t, p, nil)
	bridge := mcpacp.NewBridge(p.agent.mcp)
	defer bridge.Close()
	ep, err := bridge.Endpoint(id)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	for _, c := range []struct {
		name        string
		token, host string
		origin      string
		want        int
	}{
		{"right token", ep.Token, "", "", http.StatusOK},
		{"no token", "", "", "", http.StatusUnauthorized},
		{"another token", "x" + ep.Token, "", "", http.StatusUnauthorized},
		{"rebound host", ep.Token, "attacker.example", "", http.StatusForbidden},
		{"foreign origin", ep.Token, "", "http://attacker.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", ep.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, res.StatusCode, c.want)
		}
	}
}

// TestHTTPDeclarationWithoutACP: an agent that takes MCP servers over HTTP
// but not over ACP is offered the registration's loopback endpoint as an
// http declaration, and the scenario runs through it; closing the
// registration stops the endpoint.
func TestHTTPDeclarationWithoutACP(t *testing.T) {
	p := newPairOf(t, &agent{http: true})
	cancelled := make(chan string, 1)
	reg, err := p.editor.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, cancelled)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl, err := acp1.DeclarationsOrHTTP(p.initRes, reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.client.SessionNew(context.Background(), &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl}); err != nil {
		t.Fatal(err)
	}
	got := <-p.agent.sessions
	if len(got) != 1 || got[0].HTTP == nil || len(got[0].HTTP.Headers) != 1 || got[0].HTTP.Headers[0].Name != "Authorization" {
		t.Fatalf("the agent received %+v, want one http declaration with an Authorization header", got)
	}
	h := got[0].HTTP
	token := strings.TrimPrefix(h.Headers[0].Value, "Bearer ")
	transport := &mcp.StreamableClientTransport{Endpoint: h.URL, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}
	if err := mcptest.ScenarioOver(context.Background(), transport); err != nil {
		t.Fatal(err)
	}
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mcptest.ScenarioOver(context.Background(), transport); err == nil {
		t.Error("the endpoint still answers after the registration was closed")
	}
}
