package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
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
// the log holds (their rows are in the database); another process on the
// same database answers a resume from the first update's cursor 409
// unknown_cursor, exactly as a connection it never had, and the client falls
// back to session/load, which replays the turn there. Two cases: a restart
// on the same SQLite file, and a fleet's other agent on one PostgreSQL.
func TestRestartRefusesTransportResumeWithStoreRetention(t *testing.T) {
	bin := agentBinary(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var spec, driver, dsn string
			if engine == "sqlite" {
				db := filepath.Join(t.TempDir(), "sessions.db")
				spec, driver, dsn = "sqlite:"+db, "sqlite", "file:"+db
			} else {
				var b [6]byte
				rand.Read(b[:])
				url, err := postgres(t).NewDatabase(ctx, "retain_"+hex.EncodeToString(b[:]))
				if err != nil {
					t.Fatal(err)
				}
				spec, driver, dsn = url, "pgx", url
			}
			first := startInstance(t, bin, "a1", spec, "-retain", "store")
			var second *instance
			if engine == "postgres" { // the fleet's other agent, up before the first dies
				second = startInstance(t, bin, "a2", spec, "-retain", "store")
			}
			conn, err := acphttp.Dial(ctx, "http://"+first.addr+"/acp", acphttp.DialOptions{
				Profile:   acphttp.StreamableHTTP,
				Header:    http.Header{"Authorization": {"Bearer fleet-token"}},
				ResumeFor: -1,
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
			dir := t.TempDir()
			s, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("one two three")}}); err != nil {
				t.Fatal(err)
			}
			var cursors []string
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				c.mu.Lock()
				cursors = append([]string(nil), c.cursors...)
				c.mu.Unlock()
				if len(cursors) >= 3 { // the three words (the prompt's text is recorded, not sent)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("cursors %q, want one per update", cursors)
				}
			}
			if cursors[0] == "" {
				t.Fatalf("cursors %q, want one per update", cursors)
			}
			tag, _, _ := strings.Cut(cursors[0], ".")
			// The log writes behind: its rows are committed soon after.
			for deadline := time.Now().Add(10 * time.Second); rows(t, driver, dsn, tag) < len(cursors); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the session stream's log has not its rows in the database")
				}
			}
			first.cmd.Process.Kill()
			first.cmd.Wait()
			if second == nil { // the restart
				second = startInstance(t, bin, "a2", spec, "-retain", "store")
			}
			if n := rows(t, driver, dsn, tag); n == 0 {
				t.Fatal("the other process swept the young rows")
			}
			u := "http://" + second.addr + "/acp"
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
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
				t.Fatalf("resume at the other process: %d %s, want 409 %s", resp.StatusCode, body, acphttp.ResumeUnknown)
			}

			// The fallback: session/load on a new connection there replays
			// the turn's updates, the prompt's text first.
			conn2, err := acphttp.Dial(ctx, u, acphttp.DialOptions{Profile: acphttp.StreamableHTTP, Header: http.Header{"Authorization": {"Bearer fleet-token"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close()
			c2 := &client{got: make(chan struct{}, 64)}
			cc2 := acp.NewClientConn(c2, conn2, conn2, acp.ConnOptions{})
			go cc2.Run(ctx)
			if _, err := cc2.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			if _, err := cc2.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: dir, MCPServers: []acp.MCPServer{}}); err != nil {
				t.Fatal(err)
			}
			// Over Streamable HTTP the replay comes on the session's stream
			// and may trail the answer.
			want := []string{"user one two three", "agent one", "agent  two", "agent  three"}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				c2.mu.Lock()
				got := slices.Clone(c2.updates)
				c2.mu.Unlock()
				if slices.Equal(got, want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("session/load replayed %q, want %q", got, want)
				}
			}
		})
	}
}

// rows counts the retained messages of stream tag in the database.
func rows(t *testing.T, driver, dsn, tag string) int {
	t.Helper()
	db, err := sql.Open(driver, dsn)
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
