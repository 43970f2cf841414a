package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/acphttp/retaintest"
)

func retentionOf(t *testing.T, st *Store) acphttp.Retention {
	t.Helper()
	r, err := st.Retention(context.Background(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRetentionSQLite(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "sessions.db"))
	retaintest.Run(t, func(t *testing.T) acphttp.Retention { return retentionOf(t, st) })
}

func TestRetentionPostgres(t *testing.T) {
	st := openPostgres(t, postgresURL(t))
	retaintest.Run(t, func(t *testing.T) acphttp.Retention { return retentionOf(t, st) })
}

// A database at the schema's first version gains the stream log table
// when opened, its sessions untouched.
func TestMigrateAddsStreamLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sql.Open(sqliteDialect.driver, sqliteDSN(path, Committed))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), db, sqliteDialect, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO acp_sessions (id, owner, cwd, dirs, title, created, updated) VALUES ('a', 'o', '/w', '[]', '', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT 1 FROM acp_stream_log`); err == nil {
		t.Fatal("version 1 has the stream log table")
	}
	db.Close()
	st := openSQLite(t, path)
	if _, err := st.Get(context.Background(), "a"); err != nil {
		t.Fatalf("the session after the migration: %v", err)
	}
	l := retentionOf(t, st).Open("o", "tag")
	if err := l.Append(1, [][]byte{[]byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := st.db.QueryRow(`SELECT version FROM acp_schema`).Scan(&v); err != nil || v != SchemaVersion || SchemaVersion < 2 {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion)
	}
}

// What a process left in the table (it died with its connections) is
// deleted by the next Retention made on the database, past keep; younger
// rows stay.
func TestRetentionSweepsWhatADeadProcessLeft(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "sessions.db"))
	old := retentionOf(t, st).Open("o", "old")
	if err := old.Append(1, [][]byte{[]byte(`{"i":1}`), []byte(`{"i":2}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.After(0, 2); err != nil { // committed: the log writes behind
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`UPDATE acp_stream_log SET at = $1 WHERE tag = 'old'`, time.Now().Add(-2*time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	young := retentionOf(t, st).Open("o", "young")
	if err := young.Append(1, [][]byte{[]byte(`{"i":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := young.After(0, 1); err != nil {
		t.Fatal(err)
	}
	retentionOf(t, st) // keep: an hour
	count := func(tag string) int {
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM acp_stream_log WHERE tag = $1`, tag).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := count("old"); got != 0 {
		t.Errorf("%d rows of the dead process's stream left, want 0", got)
	}
	if got := count("young"); got != 1 {
		t.Errorf("%d rows of the live stream, want 1", got)
	}
}

// A commit that fails (here the database is gone) fails the logs it
// carried: their After reports it, so acphttp refuses the resume as
// expired, and so does their next Append, so acphttp keeps nothing more.
func TestRetentionFailureReported(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "sessions.db"))
	l := retentionOf(t, st).Open("o", "t")
	if err := l.Append(1, [][]byte{[]byte(`{"i":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.After(0, 1); err != nil {
		t.Fatal(err)
	}
	st.db.Close()
	if err := l.Append(2, [][]byte{[]byte(`{"i":2}`)}); err != nil {
		t.Fatalf("Append queues: %v", err)
	}
	if got, err := l.After(1, 2); err == nil {
		t.Fatalf("After over a failed commit: %q, want an error", got)
	}
	if err := l.Append(3, [][]byte{[]byte(`{"i":3}`)}); err == nil {
		t.Fatal("Append after a failed commit: want its error")
	}
}
