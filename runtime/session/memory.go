package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Memory is a Store in the process's memory: sessions last as long as the
// process. The zero value is not usable; use NewMemory.
type Memory struct {
	mu       sync.Mutex
	closed   bool
	n        int64 // the last creation number given
	sessions map[string]*memSession
}

type memSession struct {
	n      int64
	s      Session
	events []Event
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{sessions: map[string]*memSession{}} }

var errStoreClosed = errors.New("session store is closed")

func now() time.Time { return time.Now().UTC().Round(0) }

// get returns the session under m.mu, which the caller holds.
func (m *Memory) get(id string) (*memSession, error) {
	if m.closed {
		return nil, errStoreClosed
	}
	ms := m.sessions[id]
	if ms == nil {
		return nil, ErrNotFound
	}
	return ms, nil
}

// snapshot returns a copy of the session the caller may keep.
func (ms *memSession) snapshot() Session {
	s := ms.s
	s.AdditionalDirectories = slices.Clone(s.AdditionalDirectories)
	s.Meta = slices.Clone(s.Meta)
	s.Turn.Data = slices.Clone(s.Turn.Data)
	return s
}

func (m *Memory) Create(ctx context.Context, info Info) (Session, error) {
	if err := CheckInfo(info); err != nil {
		return Session{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Session{}, errStoreClosed
	}
	if m.sessions[info.ID] != nil {
		return Session{}, fmt.Errorf("%w: %s", ErrExists, info.ID)
	}
	m.n++
	t := now()
	info.Created, info.Updated = t, t
	info.AdditionalDirectories = append([]string{}, info.AdditionalDirectories...)
	info.Meta = slices.Clone(info.Meta)
	ms := &memSession{n: m.n, s: Session{Info: info}}
	m.sessions[info.ID] = ms
	return ms.snapshot(), nil
}

func (m *Memory) Get(ctx context.Context, id string) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return Session{}, err
	}
	return ms.snapshot(), nil
}

func (m *Memory) List(ctx context.Context, q Query) (Page, error) {
	if err := q.Check(); err != nil {
		return Page{}, err
	}
	before := int64(-1)
	if q.Cursor != "" {
		n, err := DecodeCursor(q.Cursor)
		if err != nil {
			return Page{}, err
		}
		before = n
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Page{}, errStoreClosed
	}
	var match []*memSession
	for _, ms := range m.sessions {
		if (before < 0 || ms.n < before) && q.Matches(&ms.s.Info) {
			match = append(match, ms)
		}
	}
	slices.SortFunc(match, func(a, b *memSession) int { return int(b.n - a.n) })
	page := Page{Sessions: []Session{}}
	size := q.PageSize()
	if len(match) > size {
		match = match[:size]
		page.NextCursor = EncodeCursor(match[size-1].n)
	}
	for _, ms := range match {
		page.Sessions = append(page.Sessions, ms.snapshot())
	}
	return page, nil
}

func (m *Memory) Update(ctx context.Context, id string, c Change) (Session, error) {
	if err := CheckChange(c); err != nil {
		return Session{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return Session{}, err
	}
	s := &ms.s
	if c.Cwd != nil {
		s.Cwd = *c.Cwd
	}
	if c.AdditionalDirectories != nil {
		s.AdditionalDirectories = slices.Clone(c.AdditionalDirectories)
	}
	if c.Title != nil {
		s.Title = *c.Title
	}
	if c.Meta != nil {
		s.Meta = nil
		if string(c.Meta) != "null" {
			s.Meta = slices.Clone(c.Meta)
		}
	}
	if c.Reopen {
		s.Closed = false
	}
	s.Updated = now()
	return ms.snapshot(), nil
}

// appendLocked appends one event of any kind; the caller holds m.mu.
func (ms *memSession) appendLocked(kind Kind, data json.RawMessage, at time.Time) uint64 {
	ms.s.LastSeq++
	ms.events = append(ms.events, Event{Seq: ms.s.LastSeq, Kind: kind, Data: slices.Clone(data), At: at})
	ms.s.Updated = at
	return ms.s.LastSeq
}

func (m *Memory) Append(ctx context.Context, id string, events ...Event) (uint64, error) {
	if err := CheckAppend(events); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return 0, err
	}
	if ms.s.Closed {
		return 0, ErrClosed
	}
	t := now()
	for _, e := range events {
		ms.appendLocked(e.Kind, e.Data, t)
	}
	return ms.s.LastSeq, nil
}

func (m *Memory) AppendBatch(ctx context.Context, id string, b Batch) (uint64, error) {
	data, err := b.Check()
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return 0, err
	}
	switch {
	case ms.s.Closed && (b.Start || len(b.Events) > 0):
		return 0, ErrClosed
	case b.Start && ms.s.Turn.State == TurnRunning:
		return 0, ErrTurnRunning
	case !b.Start && b.End != TurnNone && ms.s.Turn.State != TurnRunning:
		return 0, ErrNoTurn
	}
	t := now()
	if b.Start {
		seq := ms.appendLocked(KindTurnStart, data, t)
		ms.s.Turn = Turn{Start: seq, State: TurnRunning, Data: slices.Clone(data)}
	}
	for _, e := range b.Events {
		ms.appendLocked(e.Kind, e.Data, t)
	}
	if b.End != TurnNone {
		kind := KindTurnEnd
		if b.End == TurnInterrupted {
			kind = KindTurnInterrupted
		}
		ms.appendLocked(kind, ReasonData(b.Reason), t)
		ms.s.Turn.State, ms.s.Turn.Reason = b.End, b.Reason
	}
	return ms.s.LastSeq, nil
}

// StartTurn, EndTurn and InterruptTurn are batches of one mark: one
// reading of a turn's rules, AppendBatch's.
func (m *Memory) StartTurn(ctx context.Context, id string, data json.RawMessage) (uint64, error) {
	return m.AppendBatch(ctx, id, Batch{Start: true, StartData: data})
}

func (m *Memory) EndTurn(ctx context.Context, id string, stopReason string) (uint64, error) {
	return m.AppendBatch(ctx, id, Batch{End: TurnEnded, Reason: stopReason})
}

func (m *Memory) InterruptTurn(ctx context.Context, id string, reason string) (uint64, error) {
	return m.AppendBatch(ctx, id, Batch{End: TurnInterrupted, Reason: reason})
}

func (m *Memory) Events(ctx context.Context, id string, after uint64, limit int) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return nil, err
	}
	// Sequences are 1, 2, ...: event seq is at index seq-1.
	if after >= uint64(len(ms.events)) {
		return []Event{}, nil
	}
	src := ms.events[after:]
	if limit > 0 && len(src) > limit {
		src = src[:limit]
	}
	size := 0
	for _, e := range src {
		size += len(e.Data)
	}
	// One buffer for the page's data: a copy the caller may keep.
	buf := make([]byte, 0, size)
	out := make([]Event, len(src))
	for i, e := range src {
		start := len(buf)
		buf = append(buf, e.Data...)
		e.Data = buf[start:len(buf):len(buf)]
		out[i] = e
	}
	return out, nil
}

func (m *Memory) CloseSession(ctx context.Context, id string) (Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.get(id)
	if err != nil {
		return Session{}, err
	}
	t := now()
	if ms.s.Turn.State == TurnRunning {
		ms.appendLocked(KindTurnInterrupted, ReasonData(ClosedReason), t)
		ms.s.Turn.State, ms.s.Turn.Reason = TurnInterrupted, ClosedReason
	}
	ms.s.Closed = true
	ms.s.Updated = t
	return ms.snapshot(), nil
}

func (m *Memory) Fork(ctx context.Context, from string, info Info) (Session, error) {
	if err := CheckInfo(info); err != nil {
		return Session{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	src, err := m.get(from)
	if err != nil {
		return Session{}, err
	}
	if m.sessions[info.ID] != nil {
		return Session{}, fmt.Errorf("%w: %s", ErrExists, info.ID)
	}
	m.n++
	t := now()
	info.Created, info.Updated = t, t
	info.AdditionalDirectories = append([]string{}, info.AdditionalDirectories...)
	info.Meta = slices.Clone(info.Meta)
	ms := &memSession{n: m.n, s: Session{Info: info, LastSeq: src.s.LastSeq, Turn: src.s.Turn}}
	ms.s.Turn.Data = slices.Clone(src.s.Turn.Data)
	ms.events = make([]Event, len(src.events))
	for i, e := range src.events {
		e.Data = slices.Clone(e.Data)
		ms.events[i] = e
	}
	if ms.s.Turn.State == TurnRunning {
		ms.appendLocked(KindTurnInterrupted, ReasonData(ForkedReason), t)
		ms.s.Turn.State, ms.s.Turn.Reason = TurnInterrupted, ForkedReason
	}
	m.sessions[info.ID] = ms
	return ms.snapshot(), nil
}

func (m *Memory) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.get(id); err != nil {
		return err
	}
	delete(m.sessions, id)
	return nil
}

// Close empties the store; later calls fail.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.sessions = nil
	return nil
}
