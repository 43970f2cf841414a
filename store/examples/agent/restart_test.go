package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/store"
)

// client keeps the texts of the chunks an agent sends, as "kind text".
type client struct {
	acp.UnimplementedClientHandler
	mu      sync.Mutex
	updates []string
	got     chan struct{} // a token per chunk
}

func (c *client) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := p.Update; {
	case u.UserMessageChunk != nil:
		c.updates = append(c.updates, "user "+u.UserMessageChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil:
		c.updates = append(c.updates, "agent "+u.AgentMessageChunk.Content.Text.Text)
	}
	select {
	case c.got <- struct{}{}:
	default:
	}
}

// start runs the agent binary on the SQLite file db and connects to it.
func start(t *testing.T, bin, db string) (*exec.Cmd, *acp.ClientConn, *client) {
	t.Helper()
	return startCmd(t, exec.Command(bin, "-store", "sqlite:"+db))
}

// startCmd runs cmd, an agent, and connects to it.
func startCmd(t *testing.T, cmd *exec.Cmd) (*exec.Cmd, *acp.ClientConn, *client) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := &client{got: make(chan struct{}, 64)}
	conn := acp.NewClientConn(c, out, in, acp.ConnOptions{})
	go conn.Run(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	return cmd, conn, c
}

// An agent killed with SIGKILL mid-turn loses nothing it sent: a new agent
// process on the same SQLite file lists the session, replays the
// conversation on session/load, the updates of the killed turn included,
// says the turn was interrupted, and runs the session's next turn.
func TestRestartAfterKillLoadsEverythingSent(t *testing.T) {
	dir, bin := t.TempDir(), agentBinary(t)
	db := filepath.Join(dir, "sessions.db")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd, conn, c := start(t, bin, db)
	s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello world")}}); err != nil {
		t.Fatal(err)
	}
	go conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("a b wait")}})
	for n := 0; n < 4; n++ { // hello, world, a, b: the killed turn has sent two
		select {
		case <-c.got:
		case <-ctx.Done():
			t.Fatal("the turn did not stream")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	c.mu.Lock()
	sent := slices.Clone(c.updates)
	c.mu.Unlock()

	_, conn2, c2 := start(t, bin, db)
	// The new process lists the session from the store.
	if l, err := conn2.SessionList(ctx, &acp.ListSessionsRequest{}); err != nil || len(l.Sessions) != 1 || l.Sessions[0].SessionID != s.SessionID || l.Sessions[0].Cwd != dir {
		t.Errorf("session/list after the restart: %+v, %v", l, err)
	}
	res, err := conn2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c2.mu.Lock()
	replayed := slices.Clone(c2.updates)
	c2.mu.Unlock()
	want := []string{"user hello world", "agent hello", "agent  world", "user a b wait", "agent a", "agent  b"}
	if !slices.Equal(replayed, want) {
		t.Errorf("replayed %q, want %q", replayed, want)
	}
	for _, u := range sent {
		if !slices.Contains(replayed, u) {
			t.Errorf("the client received %q, which the replay lacks", u)
		}
	}
	var state storeagent.TurnState
	if err := json.Unmarshal(res.Meta[storeagent.TurnStateKey], &state); err != nil || state.State != "interrupted" {
		t.Errorf("turn state %s, want interrupted", res.Meta[storeagent.TurnStateKey])
	}
	r, err := conn2.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("next")}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Errorf("the next turn: %+v, %v", r, err)
	}
}

// A store that cannot be opened (here: a SQLite path under a regular
// file, which no user can create) costs one log line; the agent serves
// without it and advertises no session/load, list, resume, close, delete or
// fork.
func TestUnopenableStoreWithdrawsCapabilities(t *testing.T) {
	dir, bin := t.TempDir(), agentBinary(t)
	ro := filepath.Join(dir, "file")
	if err := os.WriteFile(ro, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(ro, "s.db")
	servesWithoutStore(t, exec.Command(bin, "-store", "sqlite:"+db), db)
}

// servesWithoutStore runs cmd, an agent whose store at path cannot be
// opened, and checks that it advertises none of the store's capabilities
// (v1 loadSession, sessionCapabilities), runs a prompt turn from memory,
// exits 0 when its input ends, and wrote one log line, naming the store.
func servesWithoutStore(t *testing.T, cmd *exec.Cmd, path string) {
	t.Helper()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	c := &client{got: make(chan struct{}, 8)}
	conn := acp.NewClientConn(c, out, in, acp.ConnOptions{})
	go conn.Run(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := conn.Initialize(ctx, &acp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.AgentCapabilities; c == nil || c.LoadSession != nil && *c.LoadSession {
		t.Errorf("capabilities %+v with no store", c)
	} else if sc := c.SessionCapabilities; sc != nil && (sc.List != nil || sc.Resume != nil || sc.Close != nil || sc.Delete != nil || len(sc.Unknown) != 0) {
		t.Errorf("session capabilities %+v with no store", sc)
	}
	s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatalf("session/new without a store: %v", err)
	}
	r, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello world")}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a turn without a store: %+v, %v", r, err)
	}
	c.mu.Lock()
	got := slices.Clone(c.updates)
	c.mu.Unlock()
	if want := []string{"agent hello", "agent  world"}; !slices.Equal(got, want) {
		t.Errorf("the turn streamed %q, want %q", got, want)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the agent exited with %v", err)
	}
	log := strings.TrimSpace(stderr.String())
	if lines := strings.Count(log, "\n") + 1; lines != 1 || !strings.Contains(log, "serving without a session store") || !strings.Contains(log, path) {
		t.Errorf("stderr (%d lines), want one line naming %s:\n%s", lines, path, log)
	}
}

// Without -store the agent keeps its sessions in acp-sessions.db, SQLite,
// in its working directory: a new process started there loads the session.
func TestDefaultStoreIsSQLiteInWorkingDirectory(t *testing.T) {
	dir, bin := t.TempDir(), agentBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inDir := func() *exec.Cmd {
		cmd := exec.Command(bin)
		cmd.Dir = dir
		return cmd
	}
	cmd, conn, _ := startCmd(t, inDir())
	s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello world")}}); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(dir, "acp-sessions.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Get(ctx, string(s.SessionID))
	st.Close()
	if err != nil {
		t.Fatalf("the session in %s: %v", filepath.Join(dir, "acp-sessions.db"), err)
	}
	_, conn2, c2 := startCmd(t, inDir())
	if _, err := conn2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: dir, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	c2.mu.Lock()
	defer c2.mu.Unlock()
	if want := []string{"user hello world", "agent hello", "agent  world"}; !slices.Equal(c2.updates, want) {
		t.Errorf("replayed %q, want %q", c2.updates, want)
	}
}
