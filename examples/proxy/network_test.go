package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// listening starts the proxy with flags in front of the test agent and
// returns its URL once it prints it; the proxy is stopped with SIGTERM
// when the test ends.
func listening(t *testing.T, flags ...string) string {
	t.Helper()
	_, url := startListening(t, flags...)
	return url
}

// startListening is listening, which also returns the proxy's process.
func startListening(t *testing.T, flags ...string) (*exec.Cmd, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "proxy"), append(flags, "--", self)...)
	cmd.Env = append(os.Environ(), agentEnv+"=1")
	cmd.Stderr = io.Discard
	cmd.WaitDelay = guard
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the proxy printed %q, %v; want its address", line, err)
	}
	return cmd, url
}

// With -listen, an editor that connects over the network gets the same
// policy as on stdio, from a proxy and an agent of its own: the agent is
// not offered terminals and its terminal/create is refused -32601.
func TestListenServesEditors(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	url := listening(t, "-listen", "127.0.0.1:0")
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		editorTurn(t, ctx, url, profile, nil)
	}
}

// editorTurn connects to the proxy at url over profile as an editor that
// offers terminals, runs one turn, and checks that the policy applied;
// connected, when not nil, runs after the turn, while the editor is still
// connected.
func editorTurn(t *testing.T, ctx context.Context, url string, profile acphttp.Profile, connected func()) {
	t.Helper()
	conn, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: profile, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &editor{}
	s := &session{conn: acp.NewClientConn(e, conn, conn, acp.ConnOptions{})}
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.conn.Run(ctx) })
	defer wg.Wait()
	defer conn.Close()
	yes := true
	if _, err := s.conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion, ClientCapabilities: &acp.ClientCapabilities{Terminal: &yes}}); err != nil {
		t.Fatalf("%v: initialize: %v", profile, err)
	}
	ns, err := s.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("%v: session/new: %v", profile, err)
	}
	s.id = ns.SessionID
	s.prompt(t, ctx, "go")
	if got := e.turn(); got != "offered=falsecreate=-32601" || e.terminals != 0 {
		t.Errorf("%v: turn streamed %q with %d terminals, want the capability hidden and terminal/create refused", profile, got, e.terminals)
	}
	if connected != nil {
		connected()
	}
}

// The network mode keeps runtime/acphttp's safe defaults: a loopback
// request is served (with the token, when one is set), a request naming
// the server by another host name (a DNS rebinding page's) or coming from
// another site's page is refused 403 before it reaches a proxy, a token
// makes every request need it, and without one an address other than
// loopback is not served at all.
func TestListenSafeByDefault(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	open := listening(t, "-listen", "127.0.0.1:0")
	guarded := listening(t, "-listen", "127.0.0.1:0", "-token", "s3cret")
	for _, c := range []struct {
		name, url string
		header    map[string]string
		want      int
	}{
		{"loopback", open, nil, http.StatusOK},
		{"the token", guarded, map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
		{"rebound host", open, map[string]string{"Host": "attacker.example"}, http.StatusForbidden},
		{"another site's page", open, map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"no token", guarded, nil, http.StatusUnauthorized},
		{"a wrong token", guarded, map[string]string{"Authorization": "Bearer guess"}, http.StatusUnauthorized},
	} {
		if got := post(t, ctx, c.url, c.header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "proxy"), "-listen", "0.0.0.0:0", "--", filepath.Join(bin, "agent"))
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "refusing to serve without") {
		t.Errorf("-listen 0.0.0.0:0 without -token: %v\n%s\nwant exit status 1 and the refusal", err, out)
	}
}

// post sends an initialize request to url with header and returns the
// response's status.
func post(t *testing.T, ctx context.Context, url string, header map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
