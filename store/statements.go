package store

import "strings"

// The statements every dialect runs: $N parameters (PostgreSQL's; SQLite
// reads $N as the N-th argument too), INSERT ... ON CONFLICT DO NOTHING and
// UPDATE ... RETURNING, which both engines have. Integers stand for flags and
// enums (closed, turn_state, kind), times are Unix nanoseconds.

const sessionColumns = `n, id, owner, cwd, dirs, title, meta, created, updated, closed, last_seq, turn_start, turn_state, turn_data, turn_reason`

const (
	stmtCreate = `INSERT INTO acp_sessions (id, owner, cwd, dirs, title, meta, created, updated)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (id) DO NOTHING`
	stmtGet = `SELECT ` + sessionColumns + ` FROM acp_sessions WHERE id = $1`
	// stmtList: $3 and $5 say whether the cwd ($4) and roots ($6) filters
	// apply; $2 is the creation number the page starts below.
	stmtList = `SELECT ` + sessionColumns + ` FROM acp_sessions
		WHERE owner = $1 AND n < $2 AND ($3 = 0 OR cwd = $4) AND ($5 = 0 OR dirs = $6)
		ORDER BY n DESC LIMIT $7`
	// stmtUpdate: each odd parameter from $2 says whether the next applies.
	stmtUpdate = `UPDATE acp_sessions SET
		cwd = CASE WHEN $2 = 1 THEN $3 ELSE cwd END,
		dirs = CASE WHEN $4 = 1 THEN $5 ELSE dirs END,
		title = CASE WHEN $6 = 1 THEN $7 ELSE title END,
		meta = CASE WHEN $8 = 1 THEN $9 ELSE meta END,
		closed = CASE WHEN $10 = 1 THEN 0 ELSE closed END,
		updated = $11
		WHERE id = $1`
	// stmtReserve takes $2 sequences for an append to an open session.
	stmtReserve = `UPDATE acp_sessions SET last_seq = last_seq + $2, updated = $3
		WHERE id = $1 AND closed = 0 RETURNING n, last_seq`
	stmtStartTurn = `UPDATE acp_sessions SET last_seq = last_seq + 1, updated = $2,
		turn_start = last_seq + 1, turn_state = 1, turn_data = $3, turn_reason = ''
		WHERE id = $1 AND closed = 0 AND turn_state <> 1 RETURNING n, last_seq`
	// stmtEndTurn: $3 is the state the turn ends in (ended or interrupted).
	stmtEndTurn = `UPDATE acp_sessions SET last_seq = last_seq + 1, updated = $2,
		turn_state = $3, turn_reason = $4
		WHERE id = $1 AND turn_state = 1 RETURNING n, last_seq`
	stmtInsertEvent = `INSERT INTO acp_events (session_n, seq, kind, at, data) VALUES ($1, $2, $3, $4, $5)`
	stmtState       = `SELECT closed, turn_state FROM acp_sessions WHERE id = $1`
	stmtClose       = `UPDATE acp_sessions SET closed = 1, updated = $2 WHERE id = $1`
	stmtNumber      = `SELECT n FROM acp_sessions WHERE id = $1`
	stmtEvents      = `SELECT seq, kind, at, data FROM acp_events WHERE session_n = $1 AND seq > $2 ORDER BY seq LIMIT $3`
	stmtForkSource  = `SELECT n, last_seq, turn_start, turn_state, turn_data, turn_reason FROM acp_sessions WHERE id = $1`
	stmtForkState   = `UPDATE acp_sessions SET last_seq = $2, turn_start = $3, turn_state = $4, turn_data = $5, turn_reason = $6
		WHERE id = $1 RETURNING n`
	// stmtForkLog copies the log of session $2 up to sequence $3 to session $1.
	stmtForkLog = `INSERT INTO acp_events (session_n, seq, kind, at, data)
		SELECT $1, seq, kind, at, data FROM acp_events WHERE session_n = $2 AND seq <= $3`
	// stmtInsertArrays (PostgreSQL) inserts events $4 (kinds) and $5 (data)
	// of session $1 from sequence $2 on, recorded at $3: one statement of
	// five parameters whatever the count, prepared once per connection.
	stmtInsertArrays = `INSERT INTO acp_events (session_n, seq, kind, at, data)
		SELECT $1, $2 + u.o - 1, u.k, $3, u.d FROM unnest($4::int[], $5::bytea[]) WITH ORDINALITY AS u(k, d, o)`
	// stmtAppendOne (PostgreSQL) is an Append in one statement: it takes
	// $2 sequences of open session $1, at $3, and inserts events $4
	// (kinds) and $5 (data) with them; no row when the session is missing
	// or closed.
	stmtAppendOne = `WITH s AS (UPDATE acp_sessions SET last_seq = last_seq + $2, updated = $3
			WHERE id = $1 AND closed = 0 RETURNING n, last_seq),
		i AS (INSERT INTO acp_events (session_n, seq, kind, at, data)
			SELECT s.n, s.last_seq - $2 + u.o, u.k, $3, u.d
			FROM s, unnest($4::int[], $5::bytea[]) WITH ORDINALITY AS u(k, d, o))
		SELECT last_seq FROM s`
	// stmtBatch takes $2 sequences of session $1 at $3 for an AppendBatch:
	// with $4 = 1 the first starts a turn holding $5; with $6 not 0 the
	// turn ends in state $6 with reason $7. It matches no row when the
	// session is missing, closed while $8 = 1 (the batch starts a turn or
	// appends), running a turn it would start, or running none it would
	// end.
	stmtBatch = `UPDATE acp_sessions SET last_seq = last_seq + $2, updated = $3,
		turn_start = CASE WHEN $4 = 1 THEN last_seq + 1 ELSE turn_start END,
		turn_data = CASE WHEN $4 = 1 THEN $5 ELSE turn_data END,
		turn_state = CASE WHEN $6 <> 0 THEN $6 WHEN $4 = 1 THEN 1 ELSE turn_state END,
		turn_reason = CASE WHEN $6 <> 0 THEN $7 WHEN $4 = 1 THEN '' ELSE turn_reason END
		WHERE id = $1 AND ($8 = 0 OR closed = 0) AND ($4 = 0 OR turn_state <> 1)
			AND ($4 = 1 OR $6 = 0 OR turn_state = 1)
		RETURNING n, last_seq`
	// stmtBatchOne (PostgreSQL) is an AppendBatch in one statement:
	// stmtBatch, and the insert of its events, kinds $9 and data $10 (the
	// turn's marks among them), with the sequences it took.
	stmtBatchOne = `WITH s AS (` + stmtBatch + `),
		i AS (INSERT INTO acp_events (session_n, seq, kind, at, data)
			SELECT s.n, s.last_seq - $2 + u.o, u.k, $3, u.d
			FROM s, unnest($9::int[], $10::bytea[]) WITH ORDINALITY AS u(k, d, o))
		SELECT last_seq FROM s`
	stmtDelete    = `DELETE FROM acp_sessions WHERE id = $1 RETURNING n`
	stmtDeleteLog = `DELETE FROM acp_events WHERE session_n = $1`
)

// insertChunks are the row counts of the multi-row inserts SQLite's
// batches are cut into, largest first; the last is 1, so any count is
// made of them.
var insertChunks = []int{64, 16, 4, 1}

// stmtInsertRows inserts rows events, each row's session number,
// sequence, kind, time and data in this order: five plain ? parameters a
// row, which SQLite binds by position (a named one, $N, it looks up by
// name, a cost that grows with the statement's parameters).
func stmtInsertRows(rows int) string {
	return `INSERT INTO acp_events (session_n, seq, kind, at, data) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", rows), ", ")
}
