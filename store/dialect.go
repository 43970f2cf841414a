package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

// dialect is what differs between the two engines: the driver and its data
// source, the table definitions' types, and how migrations exclude each
// other. Every statement after the migrations is shared (statements.go).
type dialect struct {
	name   string // "sqlite" or "postgres", as errors name the store
	driver string
	// serial is the type of an auto-numbered primary key column, blob that
	// of bytes, withoutRowid what ends an SQLite table clustered on its key.
	serial, blob, withoutRowid string
	// lock excludes other openers of the same database for the rest of the
	// migration transaction ("" when beginning one already does).
	lock string
	// committers is how many transactions a Store runs at once: SQLite has
	// one writer; PostgreSQL runs several, each a session's writes in order.
	committers int
	// rowInserts: a batch of events is inserted one row at a time by the
	// prepared single-row statement. SQLite runs in the process, so a
	// statement costs no round trip, and has no arrays to pass a batch in;
	// PostgreSQL takes the batch as arrays in one statement
	// (stmtInsertArrays), one round trip.
	rowInserts bool
}

var (
	sqliteDialect = dialect{
		name: "sqlite", driver: "sqlite",
		serial: "INTEGER PRIMARY KEY AUTOINCREMENT", blob: "BLOB", withoutRowid: " WITHOUT ROWID",
		committers: 1, rowInserts: true,
	}
	postgresDialect = dialect{
		name: "postgres", driver: "pgx",
		serial: "BIGSERIAL PRIMARY KEY", blob: "BYTEA",
		// Any constant shared by every acpgen store opener: "acpgen".
		lock:       "SELECT pg_advisory_xact_lock(6386705769926311936)",
		committers: 4,
	}
)

// Durability is what is on disk when a write returns (docs/sessions.md).
type Durability int

const (
	// Committed (the default): SQLite commits to its write-ahead log without
	// an fsync (synchronous=NORMAL), so a write that returned survives the
	// process being killed at any point; an operating-system crash or power
	// loss may lose the last writes, never the database's consistency.
	// PostgreSQL commits with synchronous_commit off: the server has the
	// write when it returns, so it survives the agent being killed; a crash
	// of the database server may lose the last writes (never consistency).
	Committed Durability = iota
	// Synced: SQLite also fsyncs the write-ahead log at each commit
	// (synchronous=FULL), so a write that returned survives a power loss.
	// PostgreSQL commits as the server's synchronous_commit says (on by
	// default: flushed to the server's disk, surviving its crash).
	// Group commit shares each fsync among the writes waiting for it.
	Synced
)

// sqliteDSN is the modernc.org/sqlite data source for a file: write-ahead
// logging, the durability asked for, a wait for another process's lock
// instead of an immediate error, and write transactions that take the write
// lock when they begin (so two writers never deadlock upgrading a read).
func sqliteDSN(path string, d Durability) string {
	sync := "NORMAL"
	if d == Synced {
		sync = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// checkJournal fails unless the database is in WAL mode: journal_mode(WAL)
// does not fail when the file cannot be switched (a read-only medium).
func checkJournal(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	return nil
}
