package store

import (
	"context"
	"database/sql"
	"errors"
	"hash/fnv"

	"github.com/acpgen/acpgen/runtime/session"
)

// op is one write waiting for the committer.
type op struct {
	ctx context.Context
	run func(tx *sql.Tx) error
	// solo, when set, does what run does in one statement of its own,
	// committed by itself: used when the op is alone in its batch, where it
	// saves the round trips of BEGIN and COMMIT.
	solo func() error
	err  error
	done chan struct{}
}

// write runs fn in a transaction of the committer's and returns once that
// transaction has committed (or failed). fn returns a session error (one the
// session package defines) only before it has written anything, so such an
// error fails fn alone and the rest of the batch commits.
func (s *Store) write(ctx context.Context, id string, fn func(tx *sql.Tx) error) error {
	return s.writeOp(&op{ctx: ctx, run: fn}, id)
}

// writeOp is write for an op that may also run alone (op.solo).
func (s *Store) writeOp(o *op, id string) error {
	o.done = make(chan struct{})
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errStoreClosed
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	s.ops[h.Sum32()%uint32(len(s.ops))] <- o
	s.mu.RUnlock()
	<-o.done
	return o.err
}

// commit is a committer: it takes every write waiting on ops (up to
// maxBatch) and runs them in one transaction, so that writers arriving while
// a commit is under way share the next one. It ends when Close has closed ops
// and the writes queued before have run.
func (s *Store) commit(ops chan *op) {
	batch := make([]*op, 0, maxBatch)
	for first := range ops {
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxBatch {
			select {
			case o, ok := <-ops:
				if !ok {
					break fill
				}
				batch = append(batch, o)
			default:
				break fill
			}
		}
		s.runBatch(batch)
		for _, o := range batch {
			close(o.done)
		}
	}
}

func logical(err error) bool {
	for _, e := range []error{session.ErrNotFound, session.ErrExists, session.ErrClosed, session.ErrTurnRunning, session.ErrNoTurn, session.ErrInvalid} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// runBatch sets each op's err. A write whose caller has given up is not run.
// When a write fails with a database error, the transaction is rolled back
// and every write of the batch runs again alone, so that each gets its own
// outcome; a failed commit fails them all (it may have committed: the
// database cannot say).
func (s *Store) runBatch(batch []*op) {
	live := batch[:0:0]
	for _, o := range batch {
		if err := o.ctx.Err(); err != nil {
			o.err = err
			continue
		}
		live = append(live, o)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 && live[0].solo != nil {
		o := live[0]
		if o.err = o.solo(); o.err != nil && !logical(o.err) {
			o.err = s.fail(o.err)
		}
		return
	}
	tx, err := s.db.Begin()
	if err != nil {
		for _, o := range live {
			o.err = s.fail(err)
		}
		return
	}
	for _, o := range live {
		o.err = o.run(tx)
		if o.err != nil && !logical(o.err) {
			tx.Rollback()
			if len(live) == 1 {
				o.err = s.fail(o.err)
				return
			}
			for _, o := range live {
				s.runBatch([]*op{o})
			}
			return
		}
	}
	if err := tx.Commit(); err != nil {
		for _, o := range live {
			o.err = s.fail(err)
		}
	}
}
