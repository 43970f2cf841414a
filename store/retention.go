package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// Retention is an acphttp.Retention in the store's database (the
// acp_stream_log table): the messages an event stream delivered are kept
// there instead of in the process's memory, so that retention bounds
// (acphttp's RetainMessages, MaxRetained, RetainFor) can be set far beyond
// what memory would hold. acphttp applies the bounds alike; MaxRetained
// then counts the bytes in the table.
//
// A stream belongs to one connection, and a connection to one process: a
// log is written and read back only by the process that opened it. Rows a
// process left when it died are read by nobody; Retention deletes those
// older than its keep when it is made, and Sweep deletes them on demand.
type Retention struct {
	s       *Store
	timeout time.Duration
}

var _ acphttp.Retention = (*Retention)(nil)

// retentionTimeout bounds each of a log's statements: acphttp calls them
// with the connection's lock held.
const retentionTimeout = 10 * time.Second

// Retention returns the store's Retention, after deleting the rows older
// than keep (give the server's RetainFor: nothing older is read).
func (s *Store) Retention(ctx context.Context, keep time.Duration) (*Retention, error) {
	r := &Retention{s: s, timeout: retentionTimeout}
	if err := r.Sweep(ctx, time.Now().Add(-keep)); err != nil {
		return nil, err
	}
	return r, nil
}

// Sweep deletes the retained messages delivered before t, of every
// stream: those of a process that died, which nobody reads.
func (r *Retention) Sweep(ctx context.Context, t time.Time) error {
	_, err := r.s.db.ExecContext(ctx, `DELETE FROM acp_stream_log WHERE at < $1`, t.UnixNano())
	return err
}

// Open returns the log of stream tag. The principal needs no column:
// acphttp checks it before it reads a log.
func (r *Retention) Open(principal, tag string) acphttp.StreamLog {
	return &streamLog{r: r, tag: tag}
}

// forgetBatch is how many forgotten messages a log lets accumulate before
// it deletes them: Forget comes once per message past RetainMessages, and
// After never reads below what was forgotten.
const forgetBatch = 256

type streamLog struct {
	r       *Retention
	tag     string
	forgot  uint64 // messages through forgot are forgotten
	deleted uint64 // rows through deleted are deleted
	closed  bool
}

var errLogClosed = errors.New("store: stream log closed")

func (l *streamLog) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), l.r.timeout)
}

func (l *streamLog) Append(first uint64, msgs [][]byte) error {
	if l.closed {
		return errLogClosed
	}
	ctx, cancel := l.ctx()
	defer cancel()
	at := nowNanos()
	if !l.r.s.d.rowInserts {
		// PostgreSQL: the batch as an array, one statement, one round trip.
		_, err := l.r.s.db.ExecContext(ctx, `INSERT INTO acp_stream_log (tag, n, at, data)
			SELECT $1, $2 + u.o - 1, $3, u.d FROM unnest($4::bytea[]) WITH ORDINALITY AS u(d, o)`,
			l.tag, int64(first), at, msgs)
		return err
	}
	tx, err := l.r.s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO acp_stream_log (tag, n, at, data) VALUES ($1, $2, $3, $4)`)
	if err != nil {
		return err
	}
	for i, m := range msgs {
		if _, err := stmt.ExecContext(ctx, l.tag, int64(first)+int64(i), at, m); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (l *streamLog) Forget(through uint64) error {
	if through <= l.forgot {
		return nil
	}
	l.forgot = through
	if l.closed || through-l.deleted < forgetBatch {
		return nil
	}
	ctx, cancel := l.ctx()
	defer cancel()
	if _, err := l.r.s.db.ExecContext(ctx, `DELETE FROM acp_stream_log WHERE tag = $1 AND n <= $2`, l.tag, int64(through)); err != nil {
		return err
	}
	l.deleted = through
	return nil
}

func (l *streamLog) After(n, last uint64) ([][]byte, error) {
	switch {
	case l.closed:
		return nil, errLogClosed
	case n < l.forgot:
		return nil, fmt.Errorf("store: messages after %d of stream %s are forgotten", n, l.tag)
	case n >= last:
		return nil, nil
	}
	ctx, cancel := l.ctx()
	defer cancel()
	rows, err := l.r.s.db.QueryContext(ctx, `SELECT n, data FROM acp_stream_log WHERE tag = $1 AND n > $2 AND n <= $3 ORDER BY n`, l.tag, int64(n), int64(last))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([][]byte, 0, last-n)
	for rows.Next() {
		var num int64
		var data []byte
		if err := rows.Scan(&num, &data); err != nil {
			return nil, err
		}
		if uint64(num) != n+1+uint64(len(out)) {
			return nil, fmt.Errorf("store: stream %s lacks message %d", l.tag, n+1+uint64(len(out)))
		}
		out = append(out, data)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if uint64(len(out)) != last-n {
		return nil, fmt.Errorf("store: stream %s holds %d of messages %d to %d", l.tag, len(out), n+1, last)
	}
	return out, nil
}

func (l *streamLog) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	ctx, cancel := l.ctx()
	defer cancel()
	_, err := l.r.s.db.ExecContext(ctx, `DELETE FROM acp_stream_log WHERE tag = $1`, l.tag)
	return err
}
