package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// buildExample builds ./name into a temporary directory.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, "./"+name).CombinedOutput(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", name, err, out)
	}
	return bin
}

// listenAgent starts the example agent with -listen on a free loopback
// port and returns its URL; the agent is killed at cleanup.
func listenAgent(t *testing.T, bin string, args ...string) string {
	t.Helper()
	return listenAgentEnv(t, bin, nil, args...)
}

// listenAgentEnv is listenAgent with env added to the agent's environment.
func listenAgentEnv(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"-listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("agent printed %q", line)
	}
	return url
}

// ignore answers the agent's requests method-not-found and drops its
// notifications.
type ignore struct{}

func (ignore) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
}

func (ignore) HandleNotification(context.Context, string, wire.Raw) {}

// peer is one network client of the agent, speaking raw JSON-RPC.
type peer struct {
	t   *testing.T
	rpc *jsonrpc.Conn
}

func dialPeer(t *testing.T, url string, profile acphttp.Profile, version int) *peer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	rpc := jsonrpc.NewConn(c, c, ignore{}, jsonrpc.Options{})
	go rpc.Run(context.Background())
	t.Cleanup(func() { rpc.Close(); c.Close() })
	p := &peer{t, rpc}
	init := `{"protocolVersion":1,"clientCapabilities":{}}`
	if version == 2 {
		init = `{"protocolVersion":2,"info":{"name":"t","version":"1"},"capabilities":{}}`
	}
	p.mustCall("initialize", init)
	return p
}

// call returns the result, or the error as JSON.
func (p *peer) call(method, params string) (string, string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.rpc.Call(ctx, method, wire.Raw(params))
	if err == nil {
		return string(res), ""
	}
	b, jerr := json.Marshal(err)
	if jerr != nil || string(b) == "{}" {
		p.t.Fatalf("%s: %v", method, err)
	}
	return "", string(b)
}

func (p *peer) mustCall(method, params string) string {
	p.t.Helper()
	res, e := p.call(method, params)
	if e != "" {
		p.t.Fatalf("%s %s: %s", method, params, e)
	}
	return res
}

// newSession creates a session and returns its id.
func (p *peer) newSession(cwd string) string {
	p.t.Helper()
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal([]byte(p.mustCall("session/new", `{"cwd":"`+cwd+`","mcpServers":[]}`)), &r)
	if !sessionIDs.MatchString(r.SessionID) {
		p.t.Fatalf("session id %q, want sess- and 32 hex digits", r.SessionID)
	}
	return r.SessionID
}

// sameAsUnknown checks that every request names the session id as it names
// an id that never existed: the same error, with the id in its place.
func sameAsUnknown(t *testing.T, p *peer, id string, requests map[string]string) {
	t.Helper()
	const unknown = "sess-00000000000000000000000000000000"
	for method, params := range requests {
		res, got := p.call(method, strings.ReplaceAll(params, "ID", id))
		_, want := p.call(method, strings.ReplaceAll(params, "ID", unknown))
		if got == "" || strings.ReplaceAll(got, id, unknown) != want {
			t.Errorf("%s of another principal's session: result %s, error %s; for an unknown one: %s", method, res, got, want)
		}
	}
}

// Served without -token, each connection is a principal of its own: a
// second client cannot list, load, prompt, read the history of, resume or
// close the first one's session, and every answer is the one a session that
// never existed gets. The owner keeps its session.
func TestNetworkSessionsBelongToTheirPrincipal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binary")
	}
	url := listenAgent(t, buildExample(t, "agent"))
	cwd := t.TempDir()
	requests := map[string]string{
		"session/load":    `{"sessionId":"ID","cwd":"` + cwd + `","mcpServers":[]}`,
		"session/prompt":  `{"sessionId":"ID","prompt":[{"type":"text","text":"hi"}]}`,
		"_acpgen/history": `{"sessionId":"ID"}`,
		"session/resume":  `{"sessionId":"ID","cwd":"` + cwd + `"}`,
		"session/close":   `{"sessionId":"ID"}`,
	}
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		owner := dialPeer(t, url, profile, 1)
		id := owner.newSession(cwd)
		owner.mustCall("session/prompt", `{"sessionId":"`+id+`","prompt":[{"type":"text","text":"secret"}]}`)

		other := dialPeer(t, url, profile, 1)
		mine := other.newSession(cwd)
		if list := other.mustCall("session/list", `{}`); strings.Contains(list, id) || !strings.Contains(list, mine) {
			t.Errorf("%s: session/list of another connection: %s, want only %s", profile, list, mine)
		}
		sameAsUnknown(t, other, id, requests)

		if h := owner.mustCall("_acpgen/history", `{"sessionId":"`+id+`"}`); !strings.Contains(h, "secret") {
			t.Errorf("%s: the owner's history: %s", profile, h)
		}
		if list := owner.mustCall("session/list", `{}`); !strings.Contains(list, id) || strings.Contains(list, mine) {
			t.Errorf("%s: the owner's session/list: %s, want only %s", profile, list, id)
		}
	}

	// v2 sessions belong to their connection.
	owner := dialPeer(t, url, acphttp.WebSocket, 2)
	id := owner.newSession(cwd)
	other := dialPeer(t, url, acphttp.StreamableHTTP, 2)
	if list := other.mustCall("session/list", `{}`); strings.Contains(list, id) {
		t.Errorf("v2 session/list of another connection: %s", list)
	}
	sameAsUnknown(t, other, id, map[string]string{
		"session/prompt": `{"sessionId":"ID","prompt":[{"type":"text","text":"hi"}]}`,
		"session/resume": `{"sessionId":"ID","cwd":"` + cwd + `"}`,
		"session/close":  `{"sessionId":"ID"}`,
	})
	if list := owner.mustCall("session/list", `{}`); !strings.Contains(list, id) {
		t.Errorf("v2: the owner's session/list: %s", list)
	}
}

// examples/client -connect against examples/agent -listen: with a token
// (-token, -token-file or $ACP_TOKEN on both sides) the reconnect loads the
// session; without, each connection is another principal and the client
// skips the load.
func TestRemoteClientDrivesGoAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	agent, client := buildExample(t, "agent"), buildExample(t, "client")
	cwd := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("t0k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token string // "" without one
		args  []string
		env   []string
	}{
		{"", nil, nil},
		{"-token", []string{"-token", "t0k"}, nil},
		{"-token-file", []string{"-token-file", tokenFile}, nil},
		{"$" + acphttp.TokenEnv, nil, []string{acphttp.TokenEnv + "=t0k"}},
	} {
		token := tc.token
		url := listenAgentEnv(t, agent, tc.env, tc.args...)
		cmd := exec.Command(client, append([]string{"-echo", "-connect", url, "-cwd", cwd}, tc.args...)...)
		cmd.Env = append(os.Environ(), tc.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("client -connect (token %q): %v\n%s", token, err, out)
		}
		var steps []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			steps = append(steps, strings.SplitN(l, ":", 2)[0])
		}
		load := "ok session/load"
		if token == "" {
			load = "skip session/load"
		}
		want := []string{"ok connect", "ok initialize", "ok session/new", "ok session/prompt", "ok session/cancel", "ok invalid params", "ok history", load, "ok exit"}
		if !slices.Equal(steps, want) {
			t.Errorf("client -connect (token %q) printed:\n%s\nwant steps %q", token, out, want)
		}
	}
}
