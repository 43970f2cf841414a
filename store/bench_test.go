package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
)

// The recording cost of a streamed update, and the reading cost of a replay,
// at the documented durability (Committed; Synced for comparison on SQLite).

// benchUpdate is a typical streamed update: an agent_message_chunk of a
// sentence.
var benchUpdate = json.RawMessage(`{"sessionUpdate":"agent_message_chunk","messageId":"m-1f3a","content":{"type":"text","text":"The quick brown fox jumps over the lazy dog; the agent streams its reply."}}`)

type benchStore struct {
	name string
	open func(b *testing.B) session.Store
}

func benchStores() []benchStore {
	sqlite := func(d Durability) func(b *testing.B) session.Store {
		return func(b *testing.B) session.Store {
			st, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{Durability: d})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}
	}
	return []benchStore{
		{"memory", func(b *testing.B) session.Store { return session.NewMemory() }},
		{"sqlite", sqlite(Committed)},
		{"sqlite-synced", sqlite(Synced)},
		{"postgres", func(b *testing.B) session.Store { return openPostgres(b, postgresURL(b)) }},
	}
}

func newBenchSession(b *testing.B, st session.Store, id string) {
	if _, err := st.Create(ctx, session.Info{ID: id, Cwd: "/work"}); err != nil {
		b.Fatal(err)
	}
}

// One session streaming: each update recorded before the next is sent.
func BenchmarkAppend(b *testing.B) {
	for _, s := range benchStores() {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			newBenchSession(b, st, "s")
			b.SetBytes(int64(len(benchUpdate)))
			for b.Loop() {
				if _, err := st.Append(ctx, "s", session.Event{Kind: session.KindUpdate, Data: benchUpdate}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// One session streaming, recording the updates that queued while the
// previous commit ran in one Append (here 16 at a time): ns/update is the
// cost per update.
func BenchmarkAppendBatch16(b *testing.B) {
	const batch = 16
	events := make([]session.Event, batch)
	for i := range events {
		events[i] = session.Event{Kind: session.KindUpdate, Data: benchUpdate}
	}
	for _, s := range benchStores() {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			newBenchSession(b, st, "s")
			b.SetBytes(batch * int64(len(benchUpdate)))
			for b.Loop() {
				if _, err := st.Append(ctx, "s", events...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/update")
		})
	}
}

// Many sessions streaming at once (16 per CPU): group commit shares each
// transaction among the updates waiting for it. ns/op is the store's cost
// per update across all of them.
func BenchmarkAppendParallel(b *testing.B) {
	for _, s := range benchStores() {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			var next atomic.Int64
			b.SetParallelism(16)
			b.SetBytes(int64(len(benchUpdate)))
			b.RunParallel(func(pb *testing.PB) {
				id := fmt.Sprint("p", next.Add(1))
				newBenchSession(b, st, id)
				for pb.Next() {
					if _, err := st.Append(ctx, id, session.Event{Kind: session.KindUpdate, Data: benchUpdate}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// fill records n updates in session id, in batches.
func fill(b *testing.B, st session.Store, id string, n int) {
	newBenchSession(b, st, id)
	batch := make([]session.Event, 500)
	for i := range batch {
		batch[i] = session.Event{Kind: session.KindUpdate, Data: benchUpdate}
	}
	for n > 0 {
		k := min(n, len(batch))
		if _, err := st.Append(ctx, id, batch[:k]...); err != nil {
			b.Fatal(err)
		}
		n -= k
	}
}

// replay reads a session's events after a sequence, in pages of 1,000, as a
// session/load or a resume does, and returns how many it read.
func replay(b *testing.B, st session.Store, id string, after uint64) int {
	read := 0
	for {
		evs, err := st.Events(ctx, id, after, 1000)
		if err != nil {
			b.Fatal(err)
		}
		if len(evs) == 0 {
			return read
		}
		read += len(evs)
		after = evs[len(evs)-1].Seq
	}
}

// A session/load of a session of 10,000 updates: ns/op is one whole replay.
func BenchmarkReplay10000(b *testing.B) {
	for _, s := range benchStores() {
		if s.name == "sqlite-synced" {
			continue // reads are the same as sqlite's
		}
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			fill(b, st, "r", 10000)
			for b.Loop() {
				if n := replay(b, st, "r", 0); n != 10000 {
					b.Fatalf("replayed %d", n)
				}
			}
		})
	}
}

// A resume that missed the last 1,000 updates of a 10,000-update session.
func BenchmarkResume1000(b *testing.B) {
	for _, s := range benchStores() {
		if s.name == "sqlite-synced" {
			continue
		}
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			fill(b, st, "r", 10000)
			for b.Loop() {
				if n := replay(b, st, "r", 9000); n != 1000 {
					b.Fatalf("replayed %d", n)
				}
			}
		})
	}
}
