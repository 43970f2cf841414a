package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	_ "embed"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/store/internal/testenv"
)

//go:embed haproxy.cfg.tmpl
var haproxyConfig string

// instance is one agent process of the fleet.
type instance struct {
	name, addr string
	cmd        *exec.Cmd
}

// startInstance runs the agent binary with -listen on a free loopback port
// and the store at pgURL, and waits for its "listening on" line.
func startInstance(t *testing.T, bin, name, pgURL string) *instance {
	t.Helper()
	cmd := exec.Command(bin, "-store", pgURL, "-listen", "127.0.0.1:0", "-token", "fleet-token")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	u, err := url.Parse(strings.TrimSpace(strings.TrimPrefix(line, "listening on ")))
	if err != nil {
		t.Fatalf("%s printed %q", name, line)
	}
	return &instance{name: name, addr: u.Host, cmd: cmd}
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startHAProxy runs HAProxy with the documented configuration in front of
// the instances and returns the URL of /acp through it.
func startHAProxy(t *testing.T, dir string, agents []*instance) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		testenv.Missing(t, "HAProxy", err)
	}
	listen := freeAddr(t)
	type agent struct{ Name, Addr string }
	var as []agent
	for _, a := range agents {
		as = append(as, agent{a.name, a.addr})
	}
	cfg := filepath.Join(dir, "haproxy.cfg")
	f, err := os.Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := template.Must(template.New("cfg").Parse(haproxyConfig)).Execute(f, map[string]any{"Listen": listen, "Agents": as, "MaxConn": 1000}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("haproxy exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("haproxy did not listen")
		}
	}
	return "http://" + listen + "/acp"
}

// dial connects a client through HAProxy with the cookie jar jar and
// initializes.
func dial(t *testing.T, ctx context.Context, u string, profile acphttp.Profile, jar http.CookieJar) (*acp.ClientConn, *client) {
	t.Helper()
	conn, err := acphttp.Dial(ctx, u, acphttp.DialOptions{
		Profile:    profile,
		Header:     http.Header{"Authorization": {"Bearer fleet-token"}},
		HTTPClient: &http.Client{Jar: jar},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &client{got: make(chan struct{}, 64)}
	cc := acp.NewClientConn(c, conn, conn, acp.ConnOptions{})
	go cc.Run(ctx)
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return cc, c
}

// servedBy is the agent the jar's affinity cookie names.
func servedBy(t *testing.T, jar http.CookieJar, u string) string {
	pu, _ := url.Parse(u)
	for _, c := range jar.Cookies(pu) {
		if c.Name == "ACPGEN_AGENT" {
			return c.Value
		}
	}
	t.Fatal("no affinity cookie")
	return ""
}

// Two agents on one PostgreSQL behind HAProxy, one principal (a token). The
// agent serving a turn is killed with SIGKILL after it has streamed (and
// recorded) some updates: the client reconnects through HAProxy, lands on
// the other agent, and session/load there replays every update it had
// received, reports the turn interrupted, and runs the next turn. On both
// profiles.
func TestFleetSurvivesKilledAgent(t *testing.T) {
	postgres(t) // skips (or fails under CI=true) before anything starts
	bin, dir := agentBinary(t), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, profile := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		t.Run(string(profile), func(t *testing.T) {
			pgURL := database(t, ctx, "fleet_"+string(profile))
			agents := []*instance{startInstance(t, bin, "a1", pgURL), startInstance(t, bin, "a2", pgURL)}
			u := startHAProxy(t, t.TempDir(), agents)
			jar, _ := cookiejar.New(nil)

			conn, c := dial(t, ctx, u, profile, jar)
			s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			go conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("one two wait")}})
			for range 2 {
				select {
				case <-c.got:
				case <-ctx.Done():
					t.Fatal("the turn did not stream")
				}
			}
			serving := servedBy(t, jar, u)
			for _, a := range agents {
				if a.name == serving {
					a.cmd.Process.Kill()
					a.cmd.Wait()
				}
			}
			c.mu.Lock()
			received := slices.Clone(c.updates)
			c.mu.Unlock()
			if len(received) == 0 {
				t.Fatal("nothing received before the kill")
			}

			conn2, c2 := dial(t, ctx, u, profile, jar)
			if now := servedBy(t, jar, u); now == serving {
				t.Fatalf("reconnected to the killed agent %s", now)
			}
			res, err := conn2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			// Over Streamable HTTP the replay comes on the session's stream
			// and may trail the answer.
			want := []string{"user one two wait", "agent one", "agent  two"}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				c2.mu.Lock()
				got := slices.Clone(c2.updates)
				c2.mu.Unlock()
				if slices.Equal(got, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("replayed %q, want %q", got, want)
				}
			}
			for _, u := range received {
				if !slices.Contains(want, u) {
					t.Errorf("received %q before the kill; the replay lacks it", u)
				}
			}
			if st := string(res.Meta[storeagent.TurnStateKey]); !strings.Contains(st, `"interrupted"`) {
				t.Errorf("turn state %s, want interrupted", st)
			}
			r, err := conn2.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("next")}})
			if err != nil || r.StopReason != acp.StopReasonEndTurn {
				t.Errorf("the next turn: %+v, %v", r, err)
			}
		})
	}
}
