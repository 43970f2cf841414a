package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
)

// gate passes reads through until armed with a byte budget; once the
// budget is spent, reads wait until the gate opens. It stands for a client
// that stops reading, so that the agent's writes back up mid-stream.
type gate struct {
	r    io.Reader
	mu   sync.Mutex
	left int // < 0: not armed
	open chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
	g.mu.Lock()
	left := g.left
	g.mu.Unlock()
	if left == 0 {
		<-g.open
		return g.r.Read(p)
	}
	if left > 0 && len(p) > left {
		p = p[:left]
	}
	n, err := g.r.Read(p)
	if left > 0 {
		g.mu.Lock()
		g.left -= n
		g.mu.Unlock()
	}
	return n, err
}

func (g *gate) arm(budget int) {
	g.mu.Lock()
	g.left = budget
	g.mu.Unlock()
}

// An agent killed with SIGKILL while it streams a long turn (its client
// has stopped reading after a budget of bytes, so the agent's writes are
// backed up) has recorded every update it wrote: after the kill the client
// reads what was left in the pipe, and a new agent process on the same
// SQLite file replays all of it, in order, on session/load, and says the
// turn was interrupted. Several budgets put the cut at different places
// in the batches the agent writes.
func TestKillDuringStreamingLosesNothingWritten(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const words = 20000
	var prompt strings.Builder
	for i := range words {
		fmt.Fprintf(&prompt, "w%d ", i)
	}
	for _, budget := range []int{1500, 40_000, 300_000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "sessions.db")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.Command(bin, "-store", "sqlite:"+db)
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			g := &gate{r: out, left: -1, open: make(chan struct{})}
			c := &client{got: make(chan struct{}, 1)}
			conn := acp.NewClientConn(c, g, in, acp.ConnOptions{})
			ran := make(chan struct{})
			go func() { conn.Run(context.Background()); close(ran) }()
			if _, err := conn.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			g.arm(budget)
			go conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(prompt.String())}})
			select {
			case <-c.got: // the turn streams
			case <-ctx.Done():
				t.Fatal("the turn did not stream")
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			close(g.open) // read what the agent wrote before it died
			select {
			case <-ran:
			case <-ctx.Done():
				t.Fatal("the client did not see the end of the agent's output")
			}
			c.mu.Lock()
			received := slices.Clone(c.updates)
			c.mu.Unlock()

			_, conn2, c2 := start(t, bin, db)
			res, err := conn2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			c2.mu.Lock()
			replayed := slices.Clone(c2.updates)
			c2.mu.Unlock()
			if len(replayed) == 0 || !strings.HasPrefix(replayed[0], "user ") {
				t.Fatalf("the replay does not start with the prompt: %.80q", replayed)
			}
			agent := replayed[1:]
			if len(received) == 0 || len(agent) < len(received) || !slices.Equal(agent[:len(received)], received) {
				t.Errorf("the client received %d updates; the replay (%d) does not begin with them", len(received), len(agent))
			}
			if len(agent) >= words {
				t.Errorf("the replay holds the whole turn (%d updates): the agent was not killed mid-stream", len(agent))
			}
			var state storeagent.TurnState
			if err := json.Unmarshal(res.Meta[storeagent.TurnStateKey], &state); err != nil || state.State != "interrupted" {
				t.Errorf("turn state %s, want interrupted", res.Meta[storeagent.TurnStateKey])
			}
			t.Logf("received %d, recorded %d", len(received), len(agent))
		})
	}
}
