package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
)

// replayClient keeps the texts of the chunks an agent sends.
type replayClient struct {
	acp.UnimplementedClientHandler
	mu   sync.Mutex
	said []string
}

func (c *replayClient) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := p.Update; {
	case u.UserMessageChunk != nil:
		c.said = append(c.said, "user:"+u.UserMessageChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil:
		c.said = append(c.said, "agent:"+u.AgentMessageChunk.Content.Text.Text)
	}
}

// runStarter starts the built starter on stdio and initializes it.
func runStarter(t *testing.T, ctx context.Context, bin string, args ...string) (*acp.ClientConn, *replayClient, *acp.InitializeResponse, func()) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &replayClient{}
	conn := acp.NewClientConn(c, out, in, acp.ConnOptions{})
	go conn.Run(ctx)
	res, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	return conn, c, res, func() { in.Close(); cmd.Wait() }
}

// scaffold agent --store sqlite writes an agent whose sessions outlive its
// process: it advertises loadSession, and a new process on the same SQLite
// file replays a session's conversation on session/load. (Without --store
// the starter depends on no store module and no SQL driver:
// TestScaffoldStartersBuildAndRun.)
func TestScaffoldStoreAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the SQLite driver")
	}
	repo := repoRoot(t)
	host := t.TempDir()
	out, err := run(t, "scaffold", "agent", "--store", "sqlite", "--replace", repo, "--out", filepath.Join(host, "stored"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mod, err := os.ReadFile(filepath.Join(host, "stored", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(mod), "github.com/acpgen/acpgen/store v0.0.0", "github.com/acpgen/acpgen/store => "+filepath.Join(repo, "store"))
	goIn(t, filepath.Join(host, "stored"), "mod", "tidy")
	goIn(t, filepath.Join(host, "stored"), "build", "-o", filepath.Join(host, "agent.bin"), ".")
	goIn(t, filepath.Join(host, "stored"), "vet", ".")
	if deps := strings.Fields(goIn(t, filepath.Join(host, "stored"), "list", "-deps", ".")); !slices.Contains(deps, "modernc.org/sqlite") {
		t.Errorf("the --store sqlite starter does not link modernc.org/sqlite: %q", deps)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := "sqlite:" + filepath.Join(host, "sessions.db")
	conn, _, res, stop := runStarter(t, ctx, filepath.Join(host, "agent.bin"), "-store", db)
	if res.AgentCapabilities == nil || res.AgentCapabilities.LoadSession == nil || !*res.AgentCapabilities.LoadSession {
		t.Fatalf("capabilities %+v: loadSession not advertised", res.AgentCapabilities)
	}
	s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: host, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("ping")}}); err != nil {
		t.Fatal(err)
	}
	stop()

	conn, c, _, stop := runStarter(t, ctx, filepath.Join(host, "agent.bin"), "-store", db)
	defer stop()
	if _, err := conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: host, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	said := strings.Join(c.said, "|")
	c.mu.Unlock()
	if !strings.HasPrefix(said, "user:ping|agent:You") || !strings.Contains(said, "ping") {
		t.Errorf("replayed %q, want the prompt and the reply", said)
	}

	// A store that cannot be opened: the agent serves, without loadSession.
	conn, _, res, stop = runStarter(t, ctx, filepath.Join(host, "agent.bin"), "-store", "sqlite:"+filepath.Join(host, "agent.bin", "x.db"))
	defer stop()
	if l := res.AgentCapabilities.LoadSession; l != nil && *l {
		t.Error("loadSession advertised without a store")
	}
	if _, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: host, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Errorf("session/new without a store: %v", err)
	}

	if _, err := run(t, "scaffold", "client", "--store", "sqlite", "--out", filepath.Join(host, "c")); err == nil || !strings.Contains(err.Error(), "--store applies to agents") {
		t.Errorf("client --store: %v", err)
	}
}
