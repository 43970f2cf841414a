package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// cursorClient keeps the cursor of each session/update it receives.
type cursorClient struct {
	acp.UnimplementedClientHandler
	mu      sync.Mutex
	cursors []string
}

func (c *cursorClient) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	var cur string
	json.Unmarshal(p.Meta[acphttp.MetaCursor], &cur)
	c.mu.Lock()
	c.cursors = append(c.cursors, cur)
	c.mu.Unlock()
}

// With the transport's retained messages in the session store's database
// (-retain store), a Streamable HTTP session stream still cannot be resumed
// once the process that served its connection is gone: the connection (the
// agent's side of it, its negotiated state, the requests in flight either
// way) lived in that process. The agent is killed after a turn whose updates
// the log holds (their rows are in the database); a new process on the same
// database answers a resume from the first update's cursor 409
// unknown_cursor, exactly as a connection it never had, and the client falls
// back to session/load (TestRestartAfterKillLoadsEverythingSent).
func TestRestartRefusesTransportResumeWithStoreRetention(t *testing.T) {
	bin := agentBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := filepath.Join(t.TempDir(), "sessions.db")
	first := startInstance(t, bin, "a1", "sqlite:"+db, "-retain", "store")
	conn, err := acphttp.Dial(ctx, "http://"+first.addr+"/acp", acphttp.DialOptions{
		Profile: acphttp.StreamableHTTP,
		Header:  http.Header{"Authorization": {"Bearer fleet-token"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := &cursorClient{}
	cc := acp.NewClientConn(c, conn, conn, acp.ConnOptions{})
	go cc.Run(ctx)
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("one two three")}}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	cursors := append([]string(nil), c.cursors...)
	c.mu.Unlock()
	if len(cursors) < 3 || cursors[0] == "" {
		t.Fatalf("cursors %q, want one per update", cursors)
	}
	tag, _, _ := strings.Cut(cursors[0], ".")
	if n := rows(t, db, tag); n == 0 {
		t.Fatal("the session stream's log has no rows in the database")
	}
	first.cmd.Process.Kill()
	first.cmd.Wait()

	second := startInstance(t, bin, "a2", "sqlite:"+db, "-retain", "store")
	if n := rows(t, db, tag); n == 0 {
		t.Fatal("the new process swept the young rows")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+second.addr+"/acp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer fleet-token")
	req.Header.Set(acphttp.HeaderConnectionID, conn.ID())
	req.Header.Set(acphttp.HeaderSessionID, string(s.SessionID))
	req.Header.Set("Last-Event-ID", cursors[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), `"reason":"`+acphttp.ResumeUnknown+`"`) {
		t.Fatalf("resume at the new process: %d %s, want 409 %s", resp.StatusCode, body, acphttp.ResumeUnknown)
	}
}

// rows counts the retained messages of stream tag in the SQLite file.
func rows(t *testing.T, path, tag string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM acp_stream_log WHERE tag = $1`, tag).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
