// Package store holds the SQL session stores of acpgen's runtime/session: an
// embedded SQLite one (modernc.org/sqlite, pure Go, write-ahead logging) and
// a PostgreSQL one (github.com/jackc/pgx/v5) for several agents that share
// sessions. Both run one schema and one set of statements through
// database/sql, apply the schema's versioned migrations when they open, and
// refuse a database a newer version wrote (ErrSchemaTooNew).
//
// Writes go through one committer per Store that runs the writes waiting for
// it in one transaction (group commit): under concurrent appends a commit,
// and the fsync it costs, is shared. A write returns once its transaction
// has committed; what that means on disk is the Durability it was opened
// with (docs/sessions.md).
//
// It is a module of its own, so that acpgen's go.mod requires no SQL driver.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Store is a session.Store on SQLite or PostgreSQL.
type Store struct {
	db   *sql.DB
	d    dialect
	name string // what errors call the store: "sqlite:PATH", "postgres"

	mu     sync.RWMutex // held to submit; Close holds it to stop submissions
	closed bool
	// ops feeds the committers, one channel each; a session's writes all go
	// to one of them (by its id), so they commit in the order they came.
	ops       []chan *op
	committed sync.WaitGroup // the committers

	// appendOne (PostgreSQL only) is Append in one statement, batchOne
	// AppendBatch.
	appendOne, batchOne *sql.Stmt
	// insertRows (SQLite only) insert insertChunks[i] events in one
	// statement.
	insertRows []*sql.Stmt
	create, get, list, update, reserve, startTurn, endTurn, insertEvent, batch,
	state, closeSession, number, events, del, delLog,
	forkSource, forkState, forkLog *sql.Stmt
}

var _ session.Store = (*Store)(nil)

// Options configure a Store; the zero value is the default.
type Options struct {
	Durability Durability
}

// maxBatch bounds the writes one transaction commits.
const maxBatch = 256

// OpenSQLite opens (creating it when missing) the SQLite database at path.
// It fails, with nothing half-written, when the file cannot be created or
// written (a read-only directory, a full disk), is not an SQLite database, or
// has a newer schema (ErrSchemaTooNew): a caller then serves without a store
// and advertises no capability that needs one.
func OpenSQLite(ctx context.Context, path string, opts Options) (*Store, error) {
	name := "sqlite:" + path
	db, err := sql.Open(sqliteDialect.driver, sqliteDSN(path, opts.Durability))
	if err != nil {
		return nil, openError(name, err)
	}
	// Readers do not wait for the committer's connection: WAL lets them
	// read while it writes.
	db.SetMaxIdleConns(4)
	if err := checkJournal(ctx, db); err != nil {
		db.Close()
		return nil, openError(name, err)
	}
	return open(ctx, db, sqliteDialect, name)
}

// OpenPostgres opens the PostgreSQL database at url (a postgres:// URL or a
// key=value connection string, as pgx reads them).
func OpenPostgres(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, openError("postgres", err)
	}
	if opts.Durability == Committed {
		// Committed: the server has the commit when it returns (the agent
		// may die), without waiting for its disk flush: a crash of the
		// database server may lose the last writes (about 0.6 s at
		// PostgreSQL's defaults), never its consistency. Set for the
		// store's own connections when they start, so that a commit costs
		// no extra round trip.
		cfg.RuntimeParams["synchronous_commit"] = "off"
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxIdleConns(4)
	return open(ctx, db, postgresDialect, "postgres")
}

// Open opens a store by a spec: "memory", "sqlite:PATH", or a
// postgres:// (postgresql://) URL.
func Open(ctx context.Context, spec string, opts Options) (session.Store, error) {
	switch {
	case spec == "memory":
		return session.NewMemory(), nil
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("session store %q: no file after sqlite:", spec)
		}
		return OpenSQLite(ctx, path, opts)
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return OpenPostgres(ctx, spec, opts)
	}
	return nil, fmt.Errorf("session store %q: want memory, sqlite:FILE or postgres://...", spec)
}

func openError(name string, err error) error {
	return fmt.Errorf("open session store %s: %w", name, err)
}

func open(ctx context.Context, db *sql.DB, d dialect, name string) (*Store, error) {
	if err := migrate(ctx, db, d, SchemaVersion); err != nil {
		db.Close()
		return nil, openError(name, err)
	}
	s := &Store{db: db, d: d, name: name}
	for _, p := range []struct {
		stmt **sql.Stmt
		text string
	}{
		{&s.create, stmtCreate}, {&s.get, stmtGet}, {&s.list, stmtList}, {&s.update, stmtUpdate},
		{&s.reserve, stmtReserve}, {&s.startTurn, stmtStartTurn}, {&s.endTurn, stmtEndTurn},
		{&s.insertEvent, stmtInsertEvent}, {&s.state, stmtState}, {&s.closeSession, stmtClose},
		{&s.number, stmtNumber}, {&s.events, stmtEvents}, {&s.del, stmtDelete}, {&s.delLog, stmtDeleteLog},
		{&s.batch, stmtBatch}, {&s.forkSource, stmtForkSource}, {&s.forkState, stmtForkState}, {&s.forkLog, stmtForkLog},
	} {
		stmt, err := db.PrepareContext(ctx, p.text)
		if err != nil {
			db.Close()
			return nil, openError(name, err)
		}
		*p.stmt = stmt
	}
	if d.rowInserts {
		for _, rows := range insertChunks {
			stmt, err := db.PrepareContext(ctx, stmtInsertRows(rows))
			if err != nil {
				db.Close()
				return nil, openError(name, err)
			}
			s.insertRows = append(s.insertRows, stmt)
		}
	} else { // PostgreSQL: the statement takes arrays
		var err error
		if s.appendOne, err = db.PrepareContext(ctx, stmtAppendOne); err != nil {
			db.Close()
			return nil, openError(name, err)
		}
		if s.batchOne, err = db.PrepareContext(ctx, stmtBatchOne); err != nil {
			db.Close()
			return nil, openError(name, err)
		}
	}
	for range d.committers {
		ops := make(chan *op, maxBatch)
		s.ops = append(s.ops, ops)
		s.committed.Go(func() { s.commit(ops) })
	}
	return s, nil
}

var errStoreClosed = errors.New("session store is closed")

// Close waits for the writes submitted before it and closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, ops := range s.ops {
		close(ops)
	}
	s.mu.Unlock()
	s.committed.Wait()
	return s.db.Close()
}

// scanSession reads a session row (sessionColumns) and returns its creation
// number too; scan is a *sql.Row's or *sql.Rows' Scan.
func scanSession(scan func(...any) error) (int64, session.Session, error) {
	var (
		n                  int64
		s                  session.Session
		dirs               string
		meta, turnData     []byte
		created, updated   int64
		closed, turnState  int64
		lastSeq, turnStart int64
	)
	err := scan(&n, &s.ID, &s.Owner, &s.Cwd, &dirs, &s.Title, &meta, &created, &updated, &closed, &lastSeq, &turnStart, &turnState, &turnData, &s.Turn.Reason)
	if err != nil {
		return 0, s, err
	}
	if err := json.Unmarshal([]byte(dirs), &s.AdditionalDirectories); err != nil || s.AdditionalDirectories == nil {
		return 0, s, fmt.Errorf("session %s: stored directories %q are not a JSON list", s.ID, dirs)
	}
	if len(meta) > 0 {
		s.Meta = meta
	}
	s.Created, s.Updated = fromNanos(created), fromNanos(updated)
	s.Closed = closed != 0
	s.LastSeq, s.Turn.Start = uint64(lastSeq), uint64(turnStart)
	s.Turn.State = session.TurnState(turnState)
	if s.Turn.State != session.TurnNone {
		s.Turn.Data = turnData
	}
	return n, s, nil
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func nowNanos() int64 { return time.Now().UnixNano() }

// dirsKey is how a root list is stored and filtered on: its JSON encoding,
// which is the same for equal lists.
func dirsKey(dirs []string) string {
	if dirs == nil {
		dirs = []string{}
	}
	b, _ := json.Marshal(dirs) // a list of strings always marshals
	return string(b)
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *Store) Create(ctx context.Context, info session.Info) (session.Session, error) {
	if err := session.CheckInfo(info); err != nil {
		return session.Session{}, err
	}
	t := nowNanos()
	err := s.write(ctx, info.ID, func(tx *sql.Tx) error { return s.insertSession(ctx, tx, info, t) })
	if err != nil {
		return session.Session{}, err
	}
	out := session.Session{Info: info}
	out.AdditionalDirectories = append([]string{}, info.AdditionalDirectories...)
	out.Meta = slices.Clone(info.Meta)
	out.Created, out.Updated = fromNanos(t), fromNanos(t)
	return out, nil
}

// insertSession inserts a new session row; ErrExists (and nothing written)
// when the id is taken.
func (s *Store) insertSession(ctx context.Context, tx *sql.Tx, info session.Info, t int64) error {
	res, err := tx.StmtContext(ctx, s.create).ExecContext(ctx, info.ID, info.Owner, info.Cwd, dirsKey(info.AdditionalDirectories), info.Title, nullBytes(info.Meta), t)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("%w: %s", session.ErrExists, info.ID)
	}
	return nil
}

// nullBytes is b, or NULL for nil.
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func (s *Store) Get(ctx context.Context, id string) (session.Session, error) {
	if err := s.live(); err != nil {
		return session.Session{}, err
	}
	return s.getWith(ctx, s.get, id)
}

func (s *Store) getWith(ctx context.Context, stmt *sql.Stmt, id string) (session.Session, error) {
	_, out, err := scanSession(stmt.QueryRowContext(ctx, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return session.Session{}, session.ErrNotFound
	}
	if err != nil {
		return session.Session{}, s.fail(err)
	}
	return out, nil
}

// fail names the store in an error of the database's.
func (s *Store) fail(err error) error {
	return fmt.Errorf("session store %s: %w", s.name, err)
}

// live fails once Close has begun.
func (s *Store) live() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return errStoreClosed
	}
	return nil
}

func (s *Store) List(ctx context.Context, q session.Query) (session.Page, error) {
	if err := q.Check(); err != nil {
		return session.Page{}, err
	}
	before := int64(math.MaxInt64)
	if q.Cursor != "" {
		n, err := session.DecodeCursor(q.Cursor)
		if err != nil {
			return session.Page{}, err
		}
		before = n
	}
	if err := s.live(); err != nil {
		return session.Page{}, err
	}
	size := q.PageSize()
	cwd := ""
	if q.Cwd != nil {
		cwd = *q.Cwd
	}
	rows, err := s.list.QueryContext(ctx, q.Owner, before, flag(q.Cwd != nil), cwd, flag(q.AdditionalDirectories != nil), dirsKey(q.AdditionalDirectories), size+1)
	if err != nil {
		return session.Page{}, s.fail(err)
	}
	defer rows.Close()
	page := session.Page{Sessions: []session.Session{}}
	var last int64
	for rows.Next() {
		n, sess, err := scanSession(rows.Scan)
		if err != nil {
			return session.Page{}, s.fail(err)
		}
		if len(page.Sessions) == size {
			page.NextCursor = session.EncodeCursor(last)
			break
		}
		page.Sessions = append(page.Sessions, sess)
		last = n
	}
	if err := rows.Err(); err != nil {
		return session.Page{}, s.fail(err)
	}
	return page, nil
}

func (s *Store) Update(ctx context.Context, id string, c session.Change) (session.Session, error) {
	if err := session.CheckChange(c); err != nil {
		return session.Session{}, err
	}
	var out session.Session
	err := s.write(ctx, id, func(tx *sql.Tx) error {
		var cwd, dirs string
		if c.Cwd != nil {
			cwd = *c.Cwd
		}
		if c.AdditionalDirectories != nil {
			dirs = dirsKey(c.AdditionalDirectories)
		}
		title := ""
		if c.Title != nil {
			title = *c.Title
		}
		var meta []byte
		if c.Meta != nil && string(c.Meta) != "null" {
			meta = c.Meta
		}
		res, err := tx.StmtContext(ctx, s.update).ExecContext(ctx, id,
			flag(c.Cwd != nil), cwd, flag(c.AdditionalDirectories != nil), dirs,
			flag(c.Title != nil), title, flag(c.Meta != nil), nullBytes(meta),
			flag(c.Reopen), nowNanos())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		out, err = s.getWith(ctx, tx.StmtContext(ctx, s.get), id)
		return err
	})
	return out, err
}

// takeSeqs runs a guarded UPDATE ... RETURNING n, last_seq; when it matches
// no row, why returns the error that says why.
func takeSeqs(ctx context.Context, stmt *sql.Stmt, why func() error, args ...any) (n int64, last uint64, err error) {
	var l int64
	err = stmt.QueryRowContext(ctx, args...).Scan(&n, &l)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, why()
	}
	return n, uint64(l), err
}

// What a guarded update needs of the session's turn.
type turnGuard int

const (
	anyTurn turnGuard = iota
	noTurnRunning
	turnRunning
)

// whyNotNow is whyNot outside a transaction, for an op that ran alone.
func (s *Store) whyNotNow(ctx context.Context, id string, closedMatters bool, guard turnGuard) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return s.whyNot(ctx, tx, id, closedMatters, guard)()
}

// whyNot says why a guarded update matched no row of session id: it does not
// exist, is closed (when closedMatters), or its turn is not as guard needs.
func (s *Store) whyNot(ctx context.Context, tx *sql.Tx, id string, closedMatters bool, guard turnGuard) func() error {
	return func() error {
		var closed, turn int64
		err := tx.StmtContext(ctx, s.state).QueryRowContext(ctx, id).Scan(&closed, &turn)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return session.ErrNotFound
		case err != nil:
			return err
		case closedMatters && closed != 0:
			return session.ErrClosed
		case guard == noTurnRunning && turn == int64(session.TurnRunning):
			return session.ErrTurnRunning
		case guard == turnRunning && turn != int64(session.TurnRunning):
			return session.ErrNoTurn
		}
		return fmt.Errorf("session %s: a guarded update matched no row for no reason found", id)
	}
}

func (s *Store) Append(ctx context.Context, id string, events ...session.Event) (uint64, error) {
	if err := session.CheckAppend(events); err != nil {
		return 0, err
	}
	var last uint64
	o := &op{ctx: ctx, run: func(tx *sql.Tx) error {
		t := nowNanos()
		n, l, err := takeSeqs(ctx, tx.StmtContext(ctx, s.reserve), s.whyNot(ctx, tx, id, true, anyTurn), id, len(events), t)
		if err != nil {
			return err
		}
		if err := s.insertEvents(ctx, tx, n, l-uint64(len(events))+1, t, events); err != nil {
			return err
		}
		last = l
		return nil
	}}
	if s.appendOne != nil {
		o.solo = func() error {
			kinds := make([]int32, len(events))
			data := make([][]byte, len(events))
			for i, e := range events {
				kinds[i], data[i] = int32(e.Kind), e.Data
			}
			var l int64
			err := s.appendOne.QueryRowContext(ctx, id, int64(len(events)), nowNanos(), kinds, data).Scan(&l)
			if errors.Is(err, sql.ErrNoRows) {
				return s.whyNotNow(ctx, id, true, anyTurn)
			}
			last = uint64(l)
			return err
		}
	}
	err := s.writeOp(o, id)
	return last, err
}

// insertEvents inserts events as sequences first, first+1, ...: one at a
// time through the prepared statement, or (several, on PostgreSQL) in one
// statement taking them as arrays, one round trip whatever their number.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, n int64, first uint64, t int64, events []session.Event) error {
	if s.d.rowInserts {
		// The largest statements that fit, so a batch of 100 takes 5
		// statements, not 100: each costs the driver and SQLite's engine
		// far more than a row does.
		args := make([]any, 0, 5*insertChunks[0])
		for len(events) > 0 {
			i := 0
			for insertChunks[i] > len(events) {
				i++
			}
			rows := insertChunks[i]
			args = args[:0]
			for j, e := range events[:rows] {
				args = append(args, n, int64(first)+int64(j), int(e.Kind), t, []byte(e.Data))
			}
			if _, err := tx.StmtContext(ctx, s.insertRows[i]).ExecContext(ctx, args...); err != nil {
				return err
			}
			events, first = events[rows:], first+uint64(rows)
		}
		return nil
	}
	if len(events) == 1 {
		e := events[0]
		_, err := tx.StmtContext(ctx, s.insertEvent).ExecContext(ctx, n, int64(first), int(e.Kind), t, []byte(e.Data))
		return err
	}
	kinds := make([]int32, len(events))
	data := make([][]byte, len(events))
	for i, e := range events {
		kinds[i], data[i] = int32(e.Kind), e.Data
	}
	_, err := tx.ExecContext(ctx, stmtInsertArrays, n, int64(first), t, kinds, data)
	return err
}

func (s *Store) AppendBatch(ctx context.Context, id string, b session.Batch) (uint64, error) {
	startData, err := b.Check()
	if err != nil {
		return 0, err
	}
	// The events as the log holds them: the start's mark, the events, the
	// end's mark.
	evs := make([]session.Event, 0, len(b.Events)+2)
	if b.Start {
		evs = append(evs, session.Event{Kind: session.KindTurnStart, Data: startData})
	}
	evs = append(evs, b.Events...)
	if b.End != session.TurnNone {
		kind := session.KindTurnEnd
		if b.End == session.TurnInterrupted {
			kind = session.KindTurnInterrupted
		}
		evs = append(evs, session.Event{Kind: kind, Data: session.ReasonData(b.Reason)})
	}
	if len(evs) == 0 {
		got, err := s.Get(ctx, id)
		return got.LastSeq, err
	}
	closedMatters, guard := b.Start || len(b.Events) > 0, anyTurn
	switch {
	case b.Start:
		guard = noTurnRunning
	case b.End != session.TurnNone:
		guard = turnRunning
	}
	args := func(t int64) []any {
		return []any{id, int64(len(evs)), t, flag(b.Start), []byte(startData), int(b.End), b.Reason, flag(closedMatters)}
	}
	var last uint64
	o := &op{ctx: ctx}
	if s.batchOne != nil {
		// PostgreSQL: one statement, in a transaction of several writes or
		// committed by itself.
		kinds := make([]int32, len(evs))
		data := make([][]byte, len(evs))
		for i, e := range evs {
			kinds[i], data[i] = int32(e.Kind), e.Data
		}
		one := func(stmt *sql.Stmt, why func() error) error {
			var l int64
			err := stmt.QueryRowContext(ctx, append(args(nowNanos()), kinds, data)...).Scan(&l)
			if errors.Is(err, sql.ErrNoRows) {
				return why()
			}
			last = uint64(l)
			return err
		}
		o.run = func(tx *sql.Tx) error {
			return one(tx.StmtContext(ctx, s.batchOne), s.whyNot(ctx, tx, id, closedMatters, guard))
		}
		o.solo = func() error {
			return one(s.batchOne, func() error { return s.whyNotNow(ctx, id, closedMatters, guard) })
		}
	} else {
		o.run = func(tx *sql.Tx) error {
			t := nowNanos()
			n, l, err := takeSeqs(ctx, tx.StmtContext(ctx, s.batch), s.whyNot(ctx, tx, id, closedMatters, guard), args(t)...)
			if err != nil {
				return err
			}
			if err := s.insertEvents(ctx, tx, n, l-uint64(len(evs))+1, t, evs); err != nil {
				return err
			}
			last = l
			return nil
		}
	}
	err = s.writeOp(o, id)
	return last, err
}

func (s *Store) StartTurn(ctx context.Context, id string, data json.RawMessage) (uint64, error) {
	data, err := session.TurnData(data)
	if err != nil {
		return 0, err
	}
	var seq uint64
	err = s.write(ctx, id, func(tx *sql.Tx) error {
		t := nowNanos()
		n, l, err := takeSeqs(ctx, tx.StmtContext(ctx, s.startTurn), s.whyNot(ctx, tx, id, true, noTurnRunning), id, t, []byte(data))
		if err != nil {
			return err
		}
		seq = l
		_, err = tx.StmtContext(ctx, s.insertEvent).ExecContext(ctx, n, int64(l), int(session.KindTurnStart), t, []byte(data))
		return err
	})
	return seq, err
}

func (s *Store) EndTurn(ctx context.Context, id string, stopReason string) (uint64, error) {
	return s.finishTurn(ctx, id, session.TurnEnded, stopReason)
}

func (s *Store) InterruptTurn(ctx context.Context, id string, reason string) (uint64, error) {
	return s.finishTurn(ctx, id, session.TurnInterrupted, reason)
}

func (s *Store) finishTurn(ctx context.Context, id string, state session.TurnState, reason string) (uint64, error) {
	if err := session.CheckText(reason); err != nil {
		return 0, err
	}
	var seq uint64
	err := s.write(ctx, id, func(tx *sql.Tx) error {
		var err error
		seq, err = s.finishTurnIn(ctx, tx, id, state, reason)
		return err
	})
	return seq, err
}

func (s *Store) finishTurnIn(ctx context.Context, tx *sql.Tx, id string, state session.TurnState, reason string) (uint64, error) {
	kind := session.KindTurnEnd
	if state == session.TurnInterrupted {
		kind = session.KindTurnInterrupted
	}
	t := nowNanos()
	n, l, err := takeSeqs(ctx, tx.StmtContext(ctx, s.endTurn), s.whyNot(ctx, tx, id, false, turnRunning), id, t, int(state), reason)
	if err != nil {
		return 0, err
	}
	_, err = tx.StmtContext(ctx, s.insertEvent).ExecContext(ctx, n, int64(l), int(kind), t, []byte(session.ReasonData(reason)))
	return l, err
}

func (s *Store) Events(ctx context.Context, id string, after uint64, limit int) ([]session.Event, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	var n int64
	err := s.number.QueryRowContext(ctx, id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, session.ErrNotFound
	}
	if err != nil {
		return nil, s.fail(err)
	}
	most := int64(math.MaxInt64)
	if limit > 0 {
		most = int64(limit)
	}
	if after > math.MaxInt64 {
		return []session.Event{}, nil
	}
	rows, err := s.events.QueryContext(ctx, n, int64(after), most)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	out := []session.Event{}
	for rows.Next() {
		var (
			e       session.Event
			seq, at int64
			kind    int64
			data    []byte
		)
		if err := rows.Scan(&seq, &kind, &at, &data); err != nil {
			return nil, s.fail(err)
		}
		e.Seq, e.Kind, e.At, e.Data = uint64(seq), session.Kind(kind), fromNanos(at), data
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(err)
	}
	return out, nil
}

func (s *Store) CloseSession(ctx context.Context, id string) (session.Session, error) {
	var out session.Session
	err := s.write(ctx, id, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.closeSession).ExecContext(ctx, id, nowNanos())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return session.ErrNotFound
		}
		if _, err := s.finishTurnIn(ctx, tx, id, session.TurnInterrupted, session.ClosedReason); err != nil && !errors.Is(err, session.ErrNoTurn) {
			return err
		}
		out, err = s.getWith(ctx, tx.StmtContext(ctx, s.get), id)
		return err
	})
	return out, err
}

func (s *Store) Fork(ctx context.Context, from string, info session.Info) (session.Session, error) {
	if err := session.CheckInfo(info); err != nil {
		return session.Session{}, err
	}
	var out session.Session
	// Routed by the new id: the source's committer may be another, so the
	// copy reads the source's state once and copies its log up to that.
	err := s.write(ctx, info.ID, func(tx *sql.Tx) error {
		var (
			src, last, start, state int64
			data                    []byte
			reason                  string
		)
		err := tx.StmtContext(ctx, s.forkSource).QueryRowContext(ctx, from).Scan(&src, &last, &start, &state, &data, &reason)
		if errors.Is(err, sql.ErrNoRows) {
			return session.ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := s.insertSession(ctx, tx, info, nowNanos()); err != nil {
			return err
		}
		var n int64
		if err := tx.StmtContext(ctx, s.forkState).QueryRowContext(ctx, info.ID, last, start, state, nullBytes(data), reason).Scan(&n); err != nil {
			return err
		}
		if _, err := tx.StmtContext(ctx, s.forkLog).ExecContext(ctx, n, src, last); err != nil {
			return err
		}
		if state == int64(session.TurnRunning) {
			if _, err := s.finishTurnIn(ctx, tx, info.ID, session.TurnInterrupted, session.ForkedReason); err != nil {
				return err
			}
		}
		out, err = s.getWith(ctx, tx.StmtContext(ctx, s.get), info.ID)
		return err
	})
	return out, err
}

func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, id, func(tx *sql.Tx) error {
		var n int64
		err := tx.StmtContext(ctx, s.del).QueryRowContext(ctx, id).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return session.ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.StmtContext(ctx, s.delLog).ExecContext(ctx, n)
		return err
	})
}
