package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/store"
	"github.com/acpgen/acpgen/store/internal/testenv"
)

// countingClient counts the agent's chunks.
type countingClient struct {
	acp.UnimplementedClientHandler
	mu sync.Mutex
	n  int
}

func (c *countingClient) SessionUpdate(context.Context, *acp.SessionNotification) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// BenchmarkStreamingThroughStore streams prompt turns of 100 words (100
// agent_message_chunk updates, each recorded before it is written) through
// the store agent over an in-process pipe, with each store at its default
// durability, and reports the cost per streamed update (ns/update): the
// memory store is the baseline the SQL stores are compared with in the same
// run. PostgreSQL runs on a throwaway cluster (skipped without one, failed
// under CI=true).
func BenchmarkStreamingThroughStore(b *testing.B) {
	ctx := context.Background()
	stores := []struct {
		name string
		open func(b *testing.B) session.Store
	}{
		{"memory", func(*testing.B) session.Store { return session.NewMemory() }},
		{"sqlite", func(b *testing.B) session.Store {
			st, err := store.OpenSQLite(ctx, filepath.Join(b.TempDir(), "s.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
		{"postgres", func(b *testing.B) session.Store {
			pg, err := testenv.StartPostgres()
			if err != nil {
				testenv.Missing(b, "PostgreSQL", err)
			}
			b.Cleanup(pg.Stop)
			u, err := pg.NewDatabase(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			st, err := store.OpenPostgres(ctx, u, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
	}
	words := strings.TrimSpace(strings.Repeat("word ", 100))
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			defer st.Close()
			a := storeagent.New(st, slog.New(slog.DiscardHandler))
			ar, cw := io.Pipe()
			cr, aw := io.Pipe()
			ac := a.Connect(ar, aw, slog.New(slog.DiscardHandler))
			c := &countingClient{}
			cc := acp.NewClientConn(c, cr, cw, acp.ConnOptions{})
			runCtx, stop := context.WithCancel(ctx)
			defer func() { stop(); cw.Close(); aw.Close() }()
			go ac.Run(runCtx)
			go cc.Run(runCtx)
			if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
				b.Fatal(err)
			}
			sess, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}})
			if err != nil {
				b.Fatal(err)
			}
			p := &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(words)}}
			b.ResetTimer()
			for b.Loop() {
				if _, err := cc.SessionPrompt(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/update")
		})
	}
}
