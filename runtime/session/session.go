// Package session is the session store of an ACP agent: what a session is
// listed with, and the log of what the agent sent on it, numbered, so that a
// session outlives its connection, its process and its machine.
//
// A Store holds sessions. Each session has an Info (the fields session/list
// returns, and the principal that owns it), a flag for session/close, and an
// event log: every update the agent sends is appended as it is sent, as the
// raw JSON of the update, with a sequence number that increases by one per
// event within the session. Turn marks (a prompt turn's start, its end with a
// stop reason, or its interruption) are events of the same log, so a replay
// reads one ordered stream and the session's current turn state is known
// without reading it.
//
// The package imports only the standard library: the runtime stays
// independent of the generated packages (updates are bytes, not types) and of
// any SQL driver. Memory is the in-memory Store; the module
// github.com/acpgen/acpgen/store has SQLite and PostgreSQL ones, and
// runtime/session/sessiontest is the conformance suite every Store passes.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Errors a Store returns, matched with errors.Is.
var (
	// ErrNotFound: no session has that id. An agent answers it as ACP's
	// -32002 resource not found.
	ErrNotFound = errors.New("session not found")
	// ErrExists: Create was given an id a session already has.
	ErrExists = errors.New("session already exists")
	// ErrClosed: the session is closed (CloseSession); reopen it with
	// Update's Reopen before appending or starting a turn.
	ErrClosed = errors.New("session is closed")
	// ErrTurnRunning: StartTurn while the session's last turn has not ended.
	ErrTurnRunning = errors.New("a turn is already running in this session")
	// ErrNoTurn: EndTurn or InterruptTurn while no turn is running.
	ErrNoTurn = errors.New("no turn is running in this session")
	// ErrBadCursor: List was given a cursor this store did not make.
	ErrBadCursor = errors.New("invalid session list cursor")
	// ErrInvalid: an argument the store refuses (an empty id, data that is not
	// JSON, an unknown event kind); nothing was written.
	ErrInvalid = errors.New("invalid session store argument")
)

// Store is a session store. Its methods are safe for concurrent use. Every
// method that writes either does all of its write or none of it, and returns
// only once the write is as durable as the implementation documents (for the
// SQL stores: docs/sessions.md).
type Store interface {
	// Create records a new, open session with no events. Created and
	// Updated are set by the store. ErrExists if the id is taken.
	Create(ctx context.Context, info Info) (Session, error)
	// Get returns the session, closed or not. ErrNotFound if there is none.
	Get(ctx context.Context, id string) (Session, error)
	// List returns a page of the sessions that pass q's filters, newest
	// created first.
	List(ctx context.Context, q Query) (Page, error)
	// Update changes the fields c sets, and reopens a closed session when
	// c.Reopen is set.
	Update(ctx context.Context, id string, c Change) (Session, error)
	// Append records events (their Kind and Data; the store assigns Seq and
	// At) at the end of the session's log, in order, and returns the
	// sequence of the last one. Each kind must be KindUpdate or KindMessage,
	// and each Data one JSON value; the store keeps a copy. ErrClosed on a
	// closed session.
	Append(ctx context.Context, id string, events ...Event) (last uint64, err error)
	// AppendBatch records b in the session's log in one write, all of it
	// or nothing: a turn's start (b.Start, as StartTurn), b.Events (as
	// Append), then the turn's end (b.End, as EndTurn or InterruptTurn), in
	// that order, each part failing as its own method would (ErrClosed,
	// ErrTurnRunning, ErrNoTurn, ErrInvalid, ErrNotFound). It returns the
	// sequence of the last event it recorded. A recorder that writes
	// behind (BatchRecorder) commits a turn's marks with the updates
	// around them, a commit fewer for each.
	AppendBatch(ctx context.Context, id string, b Batch) (last uint64, err error)
	// StartTurn appends a KindTurnStart event holding data (one JSON value
	// the caller chooses, such as the prompt request's id; nil is null) and
	// makes it the session's running turn. ErrTurnRunning if a turn is
	// running; ErrClosed on a closed session.
	StartTurn(ctx context.Context, id string, data json.RawMessage) (seq uint64, err error)
	// EndTurn appends a KindTurnEnd event with the stop reason and ends the
	// running turn. ErrNoTurn if none is running.
	EndTurn(ctx context.Context, id string, stopReason string) (seq uint64, err error)
	// InterruptTurn appends a KindTurnInterrupted event with the reason and
	// ends the running turn without a stop reason of the protocol's (the
	// process that ran it died, or the session was closed). ErrNoTurn if none
	// is running, so of two instances that find the same orphaned turn one
	// interrupts it and the other learns it already was.
	InterruptTurn(ctx context.Context, id string, reason string) (seq uint64, err error)
	// Events returns the session's events with a sequence greater than
	// after, in order, at most limit of them (all when limit <= 0).
	Events(ctx context.Context, id string, after uint64, limit int) ([]Event, error)
	// CloseSession marks the session closed and keeps its record and log; a
	// running turn is interrupted (reason "session closed") in the same
	// write. Closing a closed session is not an error.
	CloseSession(ctx context.Context, id string) (Session, error)
	// Fork creates a session from info (as Create does) holding a copy of
	// session from's log as it is (sequences, kinds, data and times) and its
	// turn state; a turn running in from is interrupted in the copy (reason
	// ForkedReason), since no process runs it there. ErrNotFound if from does
	// not exist, ErrExists if info.ID is taken.
	Fork(ctx context.Context, from string, info Info) (Session, error)
	// Delete removes the session and its log.
	Delete(ctx context.Context, id string) error
	// Close releases the store's resources. Calls after it fail.
	Close() error
}

// Batch is what one Store.AppendBatch records: its parts in this order,
// each optional (an empty Batch records nothing and returns the session's
// last sequence).
type Batch struct {
	// Start starts a turn whose KindTurnStart event holds StartData (nil is
	// null), as StartTurn does.
	Start     bool
	StartData json.RawMessage
	// Events are appended as Append appends them.
	Events []Event
	// End, TurnEnded or TurnInterrupted, ends the running turn (the one
	// Start began, or one already running) with Reason: the stop reason,
	// as EndTurn records it, or the interruption's reason, as
	// InterruptTurn does. TurnNone leaves the turn as it is.
	End    TurnState
	Reason string
}

// Check returns ErrInvalid when b holds what its methods would refuse, and
// the start's data as StartTurn records it.
func (b *Batch) Check() (startData json.RawMessage, err error) {
	if b.Start {
		if startData, err = TurnData(b.StartData); err != nil {
			return nil, err
		}
	}
	if len(b.Events) > 0 {
		if err := CheckAppend(b.Events); err != nil {
			return nil, err
		}
	}
	switch b.End {
	case TurnNone:
	case TurnEnded, TurnInterrupted:
		if err := CheckText(b.Reason); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: a batch cannot end a turn as %s", ErrInvalid, b.End)
	}
	return startData, nil
}

// Info is what a session is listed with: the fields of ACP's SessionInfo,
// and its owner.
type Info struct {
	// ID is the session id; not empty.
	ID string
	// Owner is the principal the session belongs to ("" for one that has
	// none, such as an agent on stdio). List returns only the sessions of
	// the Query's Owner, so that another principal's session is not seen.
	Owner string
	// Cwd is the session's working directory.
	Cwd string
	// AdditionalDirectories is the session's authoritative ordered list of
	// additional roots. The store returns it non-nil (empty when there are
	// none), as SessionInfo must list it.
	AdditionalDirectories []string
	// Title is the session's title; "" when it has none.
	Title string
	// Meta is SessionInfo's _meta: a JSON object, or nil when absent.
	Meta json.RawMessage
	// Created and Updated are set by the store: Updated is the time of the
	// last write to the session (its updatedAt). Both are UTC, at nanosecond
	// precision at most.
	Created, Updated time.Time
}

// Session is a stored session.
type Session struct {
	Info
	// Closed is set by CloseSession and cleared by Update's Reopen.
	Closed bool
	// LastSeq is the sequence of the session's last event (0: none yet).
	LastSeq uint64
	// Turn is the session's last turn.
	Turn Turn
}

// TurnState is where a session's last turn is.
type TurnState uint8

const (
	// TurnNone: the session has had no turn.
	TurnNone TurnState = iota
	// TurnRunning: started and not ended. After a restart, a running turn
	// that no live process runs is interrupted with InterruptTurn.
	TurnRunning
	// TurnEnded: ended with a stop reason.
	TurnEnded
	// TurnInterrupted: ended without one (see InterruptTurn).
	TurnInterrupted
)

func (s TurnState) String() string {
	switch s {
	case TurnNone:
		return "none"
	case TurnRunning:
		return "running"
	case TurnEnded:
		return "ended"
	case TurnInterrupted:
		return "interrupted"
	}
	return "TurnState(?)"
}

// Turn is a session's last turn.
type Turn struct {
	// Start is the sequence of the turn's KindTurnStart event (0: no turn).
	Start uint64
	State TurnState
	// Data is what StartTurn was given (JSON; null when it was given nil).
	Data json.RawMessage
	// Reason is the stop reason when State is TurnEnded, the interruption's
	// reason when it is TurnInterrupted.
	Reason string
}

// Kind is what an event records.
type Kind uint8

const (
	// KindUpdate: Data is the update member of a session/update the agent
	// sent (a SessionUpdate), as raw JSON.
	KindUpdate Kind = 1 + iota
	// KindMessage: Data is another message the agent sent on the session's
	// stream (such as a session/request_permission request), the whole
	// JSON-RPC message, for a transport that replays its stream.
	KindMessage
	// KindTurnStart: Data is what StartTurn was given.
	KindTurnStart
	// KindTurnEnd: Data is the stop reason, a JSON string.
	KindTurnEnd
	// KindTurnInterrupted: Data is the reason, a JSON string.
	KindTurnInterrupted
)

func (k Kind) String() string {
	switch k {
	case KindUpdate:
		return "update"
	case KindMessage:
		return "message"
	case KindTurnStart:
		return "turn_start"
	case KindTurnEnd:
		return "turn_end"
	case KindTurnInterrupted:
		return "turn_interrupted"
	}
	return "Kind(?)"
}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return k >= KindUpdate && k <= KindTurnInterrupted }

// Event is one entry of a session's log.
type Event struct {
	// Seq is the event's sequence: 1 for a session's first event, one more
	// for each next one.
	Seq  uint64
	Kind Kind
	// Data is one JSON value (see Kind). A Store returns a copy the caller
	// may keep.
	Data json.RawMessage
	// At is when the store recorded it (UTC).
	At time.Time
}

// Query selects sessions for List: the filters of ACP's session/list, the
// owner, and a page.
type Query struct {
	// Owner: only sessions of this principal (always applied).
	Owner string
	// Cwd, when not nil, keeps sessions whose Cwd is exactly *Cwd.
	Cwd *string
	// AdditionalDirectories, when not nil, keeps sessions whose list is
	// exactly this one, in order; an empty non-nil list matches only
	// sessions with none (the additionalDirectories RFD's rule).
	AdditionalDirectories []string
	// Cursor continues from a Page's NextCursor; "" starts at the newest.
	Cursor string
	// Limit is the most sessions a page holds; <= 0 means DefaultPageSize,
	// and more than MaxPageSize means MaxPageSize.
	Limit int
}

// DefaultPageSize is a Page's size when the Query sets no Limit; MaxPageSize
// bounds what one List reads whatever the Limit.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// Page is one page of List.
type Page struct {
	Sessions []Session
	// NextCursor continues the listing; "" when this is the last page.
	NextCursor string
}

// Change is what Update changes: each field that is set.
type Change struct {
	Cwd *string
	// AdditionalDirectories, when not nil, replaces the list (an empty
	// non-nil list clears it): ACP's session/load and session/resume give
	// the complete list, and roots are never carried over from before.
	AdditionalDirectories []string
	Title                 *string
	// Meta, when not nil, replaces _meta; json.RawMessage("null") removes it.
	Meta json.RawMessage
	// Reopen clears Closed.
	Reopen bool
}
