package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
)

// A write that fails with a database error does not fail the writes it
// shared a transaction with: they run again alone and commit.
func testBatchFailure(t *testing.T, st *Store) {
	if _, err := st.Create(ctx, session.Info{ID: "ok"}); err != nil {
		t.Fatal(err)
	}
	mk := func(fn func(tx *sql.Tx) error) *op {
		return &op{ctx: context.Background(), run: fn, done: make(chan struct{})}
	}
	appended := 0
	good := func(tx *sql.Tx) error {
		appended++
		_, _, err := takeSeqs(ctx, tx.StmtContext(ctx, st.reserve), func() error { return session.ErrNotFound }, "ok", 1, nowNanos())
		return err
	}
	bad := mk(func(tx *sql.Tx) error { _, err := tx.Exec(`INSERT INTO no_such_table VALUES (1)`); return err })
	first, last := mk(good), mk(good)
	logicalFail := mk(func(tx *sql.Tx) error { return session.ErrNotFound })
	st.runBatch([]*op{first, logicalFail, bad, last})
	if first.err != nil || last.err != nil {
		t.Errorf("the writes beside a failing one: %v, %v", first.err, last.err)
	}
	if !errors.Is(logicalFail.err, session.ErrNotFound) {
		t.Errorf("the write that failed logically: %v", logicalFail.err)
	}
	if bad.err == nil || logical(bad.err) {
		t.Errorf("the failing write: %v, want its database error", bad.err)
	}
	// The first ran in the batch, which was rolled back, then alone; the
	// last, after the failure, alone only; each committed once.
	if s, err := st.Get(ctx, "ok"); err != nil || s.LastSeq != 2 || appended != 3 {
		t.Errorf("after the batch: last sequence %d (%v), %d runs; want 2 and 3", s.LastSeq, err, appended)
	}
	// A write whose caller gave up before its transaction is not run.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	skipped := &op{ctx: gone, run: func(tx *sql.Tx) error { t.Error("a cancelled write ran"); return nil }, done: make(chan struct{})}
	st.runBatch([]*op{skipped})
	if !errors.Is(skipped.err, context.Canceled) {
		t.Errorf("a cancelled write: %v", skipped.err)
	}
}

func TestBatchFailureSQLite(t *testing.T) {
	testBatchFailure(t, openSQLite(t, filepath.Join(t.TempDir(), "b.db")))
}

func TestBatchFailurePostgres(t *testing.T) {
	testBatchFailure(t, openPostgres(t, postgresURL(t)))
}
