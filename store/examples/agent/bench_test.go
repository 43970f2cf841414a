package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// streamer is one store agent with a connected client, ready to prompt.
type streamer struct {
	name   string
	cc     *acp.ClientConn
	prompt *acp.PromptRequest
	ns     int64 // time spent in its turns
	cpu    int64 // CPU time this process used during them
}

// BenchmarkStreamingThroughStore streams prompt turns of 100 words (100
// agent_message_chunk updates, each recorded before it is written) through
// the store agent over an in-process pipe, with each store at its default
// durability (storeOpens). Each iteration runs one turn on each store in
// turn (memory, SQLite, PostgreSQL), so that all three see the same machine
// conditions, and reports each one's cost per streamed update
// (STORE-ns/update), the
// CPU time this process (the agent and its client: not the PostgreSQL
// server) used per update during the store's turns (STORE-cpu-ns/update),
// and the share of the memory store's throughput each SQL store keeps
// (STORE-x-memory).
func BenchmarkStreamingThroughStore(b *testing.B) {
	var ss []*streamer
	for _, o := range storeOpens() {
		ss = append(ss, startStreamer(b, o))
	}
	b.ResetTimer()
	for b.Loop() {
		for _, s := range ss {
			cpu, _ := processCPU()
			start := time.Now()
			s.turn(b)
			s.ns += time.Since(start).Nanoseconds()
			end, _ := processCPU()
			s.cpu += end - cpu
		}
	}
	mem := float64(ss[0].ns)
	_, cpuOK := processCPU()
	for _, s := range ss {
		b.ReportMetric(float64(s.ns)/float64(b.N*100), s.name+"-ns/update")
		if cpuOK {
			b.ReportMetric(float64(s.cpu)/float64(b.N*100), s.name+"-cpu-ns/update")
		}
		if s != ss[0] {
			b.ReportMetric(mem/float64(s.ns), s.name+"-x-memory")
		}
	}
}

// BenchmarkStreamingTurn runs BenchmarkStreamingThroughStore's turns on one
// store at a time (a sub-benchmark each): what an instruction counter
// reads per store (bench/store-streaming-instructions.sh).
func BenchmarkStreamingTurn(b *testing.B) {
	for _, o := range storeOpens() {
		b.Run(o.name, func(b *testing.B) {
			s := startStreamer(b, o)
			b.ResetTimer()
			for b.Loop() {
				s.turn(b)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/update")
		})
	}
}

type storeOpen struct {
	name string
	open func(b *testing.B) session.Store
}

// storeOpens are the stores streamed through, each at its default
// durability; PostgreSQL runs on a throwaway cluster (skipped without one,
// failed under CI=true).
func storeOpens() []storeOpen {
	ctx := context.Background()
	return []storeOpen{
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
}

// startStreamer starts a store agent on o's store with a client over an
// in-process pipe, and makes the session its turns run in.
func startStreamer(b *testing.B, o storeOpen) *streamer {
	ctx := context.Background()
	st := o.open(b)
	b.Cleanup(func() { st.Close() })
	a := storeagent.New(st, slog.New(slog.DiscardHandler))
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	ac := a.Connect(ar, aw, slog.New(slog.DiscardHandler))
	cc := acp.NewClientConn(&countingClient{}, cr, cw, acp.ConnOptions{})
	runCtx, stop := context.WithCancel(ctx)
	b.Cleanup(func() { stop(); cw.Close(); aw.Close() })
	go ac.Run(runCtx)
	go cc.Run(runCtx)
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	sess, err := cc.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}})
	if err != nil {
		b.Fatal(err)
	}
	words := strings.TrimSpace(strings.Repeat("word ", 100))
	return &streamer{name: o.name, cc: cc, prompt: &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(words)}}}
}

// turn runs one prompt turn: 100 updates.
func (s *streamer) turn(b *testing.B) {
	if _, err := s.cc.SessionPrompt(context.Background(), s.prompt); err != nil {
		b.Fatal(err)
	}
}
