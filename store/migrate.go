package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrSchemaTooNew: the database was written by a newer version of this
// module, whose schema this one does not know; it is left untouched.
var ErrSchemaTooNew = errors.New("session store schema is newer than this program supports")

// migrations are the schema's versions: migrations[i] takes a database from
// version i to i+1. A released migration never changes; a new one is
// appended.
var migrations = []func(d dialect) []string{
	func(d dialect) []string {
		return []string{
			`CREATE TABLE acp_sessions (
				n ` + d.serial + `,
				id TEXT NOT NULL UNIQUE,
				owner TEXT NOT NULL,
				cwd TEXT NOT NULL,
				dirs TEXT NOT NULL,
				title TEXT NOT NULL,
				meta ` + d.blob + `,
				created BIGINT NOT NULL,
				updated BIGINT NOT NULL,
				closed INTEGER NOT NULL DEFAULT 0,
				last_seq BIGINT NOT NULL DEFAULT 0,
				turn_start BIGINT NOT NULL DEFAULT 0,
				turn_state INTEGER NOT NULL DEFAULT 0,
				turn_data ` + d.blob + `,
				turn_reason TEXT NOT NULL DEFAULT ''
			)`,
			`CREATE INDEX acp_sessions_owner ON acp_sessions (owner, n)`,
			`CREATE TABLE acp_events (
				session_n BIGINT NOT NULL,
				seq BIGINT NOT NULL,
				kind INTEGER NOT NULL,
				at BIGINT NOT NULL,
				data ` + d.blob + ` NOT NULL,
				PRIMARY KEY (session_n, seq)
			)` + d.withoutRowid,
		}
	},
	// The transport's retained messages (Retention): one row per message
	// of an event stream, by the stream's tag and the message's number.
	func(d dialect) []string {
		return []string{
			`CREATE TABLE acp_stream_log (
				tag TEXT NOT NULL,
				n BIGINT NOT NULL,
				at BIGINT NOT NULL,
				data ` + d.blob + ` NOT NULL,
				PRIMARY KEY (tag, n)
			)` + d.withoutRowid,
			`CREATE INDEX acp_stream_log_at ON acp_stream_log (at)`,
		}
	},
}

// SchemaVersion is the schema version this module writes.
var SchemaVersion = len(migrations)

// migrate brings the database to SchemaVersion in one transaction that
// excludes other openers, and writes to it even when there is nothing to
// migrate, so that a database this process cannot write fails here rather
// than at the first update.
func migrate(ctx context.Context, db *sql.DB, d dialect, known int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if d.lock != "" {
		if _, err := tx.ExecContext(ctx, d.lock); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS acp_schema (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var version int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM acp_schema`).Scan(&version); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO acp_schema (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if version > known {
		return fmt.Errorf("%w: the database is at version %d, this program knows versions up to %d; use a newer acpgen store", ErrSchemaTooNew, version, known)
	}
	for v := version; v < known; v++ {
		for _, stmt := range migrations[v](d) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migration to version %d: %w", v+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE acp_schema SET version = $1`, known); err != nil {
		return err
	}
	return tx.Commit()
}
