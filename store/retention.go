package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// Retention is an acphttp.Retention in the store's database (the
// acp_stream_log table): the messages an event stream delivered are kept
// there instead of in the process's memory, so that retention bounds
// (acphttp's RetainMessages, MaxRetained, RetainFor) can be set beyond what
// memory would hold. acphttp applies the bounds alike.
//
// It writes behind: a log's Append queues its messages and returns, and one
// committer writes everything queued, for every stream, in one transaction
// (group commit), so that a stream's delivery does not wait for a commit.
// A log's After first waits until what was queued before it is committed,
// so a resume reads every message delivered before it. The queue holds at
// most MaxQueued bytes; an Append beyond it waits for room. A failed commit
// fails the logs it carried: their next After (the resume is refused as
// expired) and Append report it.
//
// A stream belongs to one connection, and a connection to one process: a
// log is written and read back only by the process that opened it. Rows a
// process left when it died are read by nobody; Retention deletes those
// older than its keep when it is made, and Sweep deletes them on demand.
type Retention struct {
	s *Store

	mu      sync.Mutex
	changed *sync.Cond // the queue was taken or a batch committed
	queue   []logOp
	queued  int64  // bytes in queue
	enq     uint64 // ops queued so far
	done    uint64 // ops committed (or failed) so far
	running bool   // a committer runs
}

var _ acphttp.Retention = (*Retention)(nil)

// MaxQueued bounds the bytes of messages a Retention holds before they are
// committed.
const MaxQueued = 16 << 20

// logOp is one log's queued change: msgs appended from first, or (msgs
// nil) the rows after first through through deleted (bounded below, so
// that a deletion does not walk what earlier ones deleted).
type logOp struct {
	l       *streamLog
	first   uint64
	msgs    [][]byte
	through uint64
}

// Retention returns a Retention on the store's database, after deleting
// the rows older than keep (give the server's RetainFor: nothing older is
// read).
func (s *Store) Retention(ctx context.Context, keep time.Duration) (*Retention, error) {
	r := &Retention{s: s}
	r.changed = sync.NewCond(&r.mu)
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

// enqueue queues op, waiting while the queue is full, and starts the
// committer when none runs.
func (r *Retention) enqueue(op logOp) {
	var n int64
	for _, m := range op.msgs {
		n += int64(len(m))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.queued > 0 && r.queued+n > MaxQueued {
		r.changed.Wait()
	}
	r.queue = append(r.queue, op)
	r.queued += n
	r.enq++
	if !r.running {
		r.running = true
		go r.commit()
	}
}

// sync waits until every op queued so far is committed, and returns the
// failure of l's, if any.
func (r *Retention) sync(l *streamLog) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for target := r.enq; r.done < target; {
		r.changed.Wait()
	}
	return l.err
}

// commit writes the queue, a batch at a time, until it is empty.
func (r *Retention) commit() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		batch, upto := r.queue, r.enq
		r.queue, r.queued = nil, 0
		r.changed.Broadcast() // room
		r.mu.Unlock()
		err := r.write(batch)
		r.mu.Lock()
		if err != nil {
			for _, op := range batch {
				if op.l.err == nil {
					op.l.err = fmt.Errorf("store: keeping stream %s's messages: %w", op.l.tag, err)
				}
			}
		}
		r.done = upto
		r.changed.Broadcast()
		r.mu.Unlock()
	}
}

// write commits a batch: its appends, then its deletions (a log forgets
// only what it appended before, so the order between them holds).
func (r *Retention) write(batch []logOp) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	at := nowNanos()
	var tags []string
	var nums []int64
	var data [][]byte
	var delTags []string
	var delFrom, delNums []int64
	for _, op := range batch {
		if op.msgs == nil {
			delTags, delFrom, delNums = append(delTags, op.l.tag), append(delFrom, int64(op.first)), append(delNums, int64(op.through))
			continue
		}
		for i, m := range op.msgs {
			tags, nums, data = append(tags, op.l.tag), append(nums, int64(op.first)+int64(i)), append(data, m)
		}
	}
	if !r.s.d.rowInserts {
		// PostgreSQL: each part one statement over arrays, one round trip;
		// no transaction (rows a failed deletion leaves are never read).
		if len(tags) > 0 {
			if _, err := r.s.db.ExecContext(ctx, `INSERT INTO acp_stream_log (tag, n, at, data)
				SELECT u.t, u.n, $1, u.d FROM unnest($2::text[], $3::bigint[], $4::bytea[]) AS u(t, n, d)`,
				at, tags, nums, data); err != nil {
				return err
			}
		}
		if len(delTags) > 0 {
			_, err := r.s.db.ExecContext(ctx, `DELETE FROM acp_stream_log l
				USING unnest($1::text[], $2::bigint[], $3::bigint[]) AS f(t, a, n) WHERE l.tag = f.t AND l.n > f.a AND l.n <= f.n`, delTags, delFrom, delNums)
			return err
		}
		return nil
	}
	tx, err := r.s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if len(tags) > 0 {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO acp_stream_log (tag, n, at, data) VALUES ($1, $2, $3, $4)`)
		if err != nil {
			return err
		}
		for i := range tags {
			if _, err := ins.ExecContext(ctx, tags[i], nums[i], at, data[i]); err != nil {
				return err
			}
		}
	}
	for i := range delTags {
		if _, err := tx.ExecContext(ctx, `DELETE FROM acp_stream_log WHERE tag = $1 AND n > $2 AND n <= $3`, delTags[i], delFrom[i], delNums[i]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// forgetBatch is how many forgotten messages a log lets accumulate before
// it deletes them: Forget comes once per message past RetainMessages, and
// After never reads below what was forgotten.
const forgetBatch = 256

// streamLog is one stream's log. acphttp calls its methods one at a time;
// err is guarded by the Retention's mu.
type streamLog struct {
	r       *Retention
	tag     string
	forgot  uint64 // messages through forgot are forgotten
	deleted uint64 // rows through deleted are queued for deletion
	closed  bool
	err     error // a failed commit of this log's
}

var errLogClosed = errors.New("store: stream log closed")

func (l *streamLog) failure() error {
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	return l.err
}

func (l *streamLog) Append(first uint64, msgs [][]byte) error {
	if l.closed {
		return errLogClosed
	}
	if err := l.failure(); err != nil {
		return err
	}
	l.r.enqueue(logOp{l: l, first: first, msgs: msgs})
	return nil
}

func (l *streamLog) Forget(through uint64) error {
	if through <= l.forgot {
		return nil
	}
	l.forgot = through
	if l.closed || through-l.deleted < forgetBatch {
		return nil
	}
	l.r.enqueue(logOp{l: l, first: l.deleted, through: through})
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
	if err := l.r.sync(l); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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

// Close queues the deletion of everything the log holds.
func (l *streamLog) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	l.r.enqueue(logOp{l: l, first: l.deleted, through: math.MaxInt64})
	return nil
}
