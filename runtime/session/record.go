package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/acpgen/acpgen/runtime/wire"
)

// UpdateMethod is ACP's notification that carries a session's updates, the
// messages a session's log records.
const UpdateMethod = "session/update"

// Recorder returns a hook for a connection's dispatch.Options.Record (the
// generated ConnOptions' Record) that appends the update of every
// session/update the agent sends to the session's log in s, as a KindUpdate
// event, before the frame is written: an update the client received is in
// the store, as durable as s makes an Append. A session/update of a session
// s does not hold (one the agent did not create through s) is sent
// unrecorded; one whose Append fails is not sent, and the send returns the
// error. Other methods pass through.
func Recorder(s Store) func(ctx context.Context, method, sessionID string, params []byte) error {
	return func(ctx context.Context, method, sessionID string, params []byte) error {
		if method != UpdateMethod || sessionID == "" || ctx.Value(unrecordedKey{}) != nil {
			return nil
		}
		var p struct {
			Update json.RawMessage `json:"update"`
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Update) == 0 {
			return fmt.Errorf("%w: session/update params without an update", ErrInvalid)
		}
		_, err := s.Append(ctx, sessionID, Event{Kind: KindUpdate, Data: p.Update})
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
}

type unrecordedKey struct{}

// Unrecorded returns ctx marked so that Recorder lets what is sent on it go
// unrecorded: a replay of the log, which is in the log already.
func Unrecorded(ctx context.Context) context.Context {
	return context.WithValue(ctx, unrecordedKey{}, true)
}

// Replay calls send with every update recorded in session id's log, in
// order, from the first: what v1's session/load sends before it answers
// (send on a context from Unrecorded, so the replay is not recorded again).
// Events are read in pages, so a long log is not held whole.
func Replay(ctx context.Context, s Store, id string, send func(update json.RawMessage) error) (n int, err error) {
	const page = 1024
	var after uint64
	for {
		evs, err := s.Events(ctx, id, after, page)
		if err != nil {
			return n, err
		}
		for _, e := range evs {
			after = e.Seq
			if e.Kind != KindUpdate {
				continue
			}
			if err := send(e.Data); err != nil {
				return n, err
			}
			n++
		}
		if len(evs) < page {
			return n, nil
		}
	}
}

// BatchRecorder records the session/update notifications a connection sends
// in batches: it is that connection's jsonrpc.Options.Recorder (the generated
// ConnOptions' RPC.Recorder), which makes the connection write behind its
// senders (see jsonrpc.Options.Recorder). Record keeps the update of every
// session/update, as Recorder's hook would append it; Commit appends what
// was kept, one Append per session (one write, as durable as s makes an
// Append), the sessions' Appends running at once so that a store with group
// commit shares one transaction among them. The frames of a batch are
// written only after Commit returned nil: an update the client received is
// in the store. Updates of a session s does not hold are sent unrecorded;
// any other failure (a closed session included) fails the connection. One
// BatchRecorder serves one connection.
//
// It also records a turn's start and end that an agent queues on the
// connection, in order with its updates and never written
// (jsonrpc.RecordFrom with TurnStartMethod and TurnStartParams, or
// TurnEndMethod and TurnEndParams): the marks join the updates around them
// in one AppendBatch, so a turn costs no commit of its own.
type BatchRecorder struct {
	s     Store
	order []string // sessions in the order of their first update
	kept  map[string][]Batch
}

// NewBatchRecorder returns a BatchRecorder appending to s.
func NewBatchRecorder(s Store) *BatchRecorder {
	return &BatchRecorder{s: s, kept: map[string][]Batch{}}
}

// The record-only messages (never sent) that carry a turn's marks to a
// BatchRecorder, with their params made by TurnStartParams and
// TurnEndParams.
const (
	TurnStartMethod = "_acpgen/session/turn_start"
	TurnEndMethod   = "_acpgen/session/turn_end"
)

type turnMark struct {
	SessionID string          `json:"sessionId"`
	Data      json.RawMessage `json:"data,omitempty"`
	// StopReason ends the turn (TurnEnded); without it the turn is
	// interrupted with Interrupted as the reason.
	StopReason  string `json:"stopReason,omitempty"`
	Interrupted string `json:"interrupted,omitempty"`
}

// TurnStartParams are the params of a TurnStartMethod message: session id
// starts a turn holding data (as Store.StartTurn).
func TurnStartParams(id string, data json.RawMessage) ([]byte, error) {
	data, err := TurnData(data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(turnMark{SessionID: id, Data: data})
}

// TurnEndParams are the params of a TurnEndMethod message: session id's
// turn ends with stopReason (as Store.EndTurn), or with stopReason "" is
// interrupted with reason why (as Store.InterruptTurn).
func TurnEndParams(id, stopReason, why string) ([]byte, error) {
	m := turnMark{SessionID: id, StopReason: stopReason}
	if stopReason == "" {
		m.Interrupted = why
	}
	return json.Marshal(m)
}

// last returns the batch of sessionID that what comes next joins: a new
// one when next cannot follow what the last one holds (fresh says whether
// it can).
func (r *BatchRecorder) last(sessionID string, fresh func(*Batch) bool) *Batch {
	bs, seen := r.kept[sessionID]
	if !seen {
		r.order = append(r.order, sessionID)
	}
	if len(bs) == 0 || !fresh(&bs[len(bs)-1]) {
		bs = append(bs, Batch{})
		r.kept[sessionID] = bs
	}
	return &bs[len(bs)-1]
}

// Record keeps the update of a session/update, and the turn marks, for
// Commit; other messages, and those sent on a context from Unrecorded, are
// not recorded.
func (r *BatchRecorder) Record(ctx context.Context, method, sessionID string, params []byte) error {
	if sessionID == "" || ctx.Value(unrecordedKey{}) != nil {
		return nil
	}
	switch method {
	case UpdateMethod:
	case TurnStartMethod, TurnEndMethod:
		return r.mark(method, sessionID, params)
	default:
		return nil
	}
	update, ok := topMember(params, "update")
	if ok {
		update = bytes.Clone(update) // params is the caller's
	} else {
		var p struct {
			Update json.RawMessage `json:"update"` // a copy
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Update) == 0 {
			return fmt.Errorf("%w: session/update params without an update", ErrInvalid)
		}
		update = p.Update
	}
	b := r.last(sessionID, func(b *Batch) bool { return b.End == TurnNone })
	b.Events = append(b.Events, Event{Kind: KindUpdate, Data: update})
	return nil
}

// mark keeps a turn's start (before anything else of its batch) or end
// (after everything else).
func (r *BatchRecorder) mark(method, sessionID string, params []byte) error {
	var m turnMark
	if err := json.Unmarshal(params, &m); err != nil {
		return fmt.Errorf("%w: %s params: %v", ErrInvalid, method, err)
	}
	if method == TurnStartMethod {
		b := r.last(sessionID, func(b *Batch) bool { return !b.Start && len(b.Events) == 0 && b.End == TurnNone })
		b.Start, b.StartData = true, m.Data
		return nil
	}
	b := r.last(sessionID, func(b *Batch) bool { return b.End == TurnNone })
	b.End, b.Reason = TurnEnded, m.StopReason
	if m.StopReason == "" {
		b.End, b.Reason = TurnInterrupted, m.Interrupted
	}
	return nil
}

// topMember returns the raw value of the member key of the JSON object obj
// (the last of duplicates, as encoding/json takes), read with runtime/wire's
// decoder, which skips the other members without decoding them: the
// writer's only parse of each update, which json.Unmarshal would make
// several times as slow. ok is false when obj is not one valid object or
// has no such member: the caller then decodes it with encoding/json.
func topMember(obj []byte, key string) (value []byte, ok bool) {
	var d wire.Decoder
	d.Reset(obj, wire.Lenient)
	if d.BeginObject() != nil {
		return nil, false
	}
	for {
		k, more, err := d.NextKey()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		start := d.Offset()
		if d.Skip() != nil {
			return nil, false
		}
		if string(k) == key {
			value, ok = bytes.TrimLeft(obj[start:d.Offset()], " \t\r\n"), true
		}
	}
	if d.Finish() != nil {
		return nil, false
	}
	return value, ok
}

// Commit appends what Record kept, one Append per session, and forgets it
// whatever the outcome.
func (r *BatchRecorder) Commit(ctx context.Context) error {
	defer func() {
		clear(r.kept)
		r.order = r.order[:0]
	}()
	appendOne := func(id string) error {
		for _, b := range r.kept[id] {
			var err error
			if !b.Start && b.End == TurnNone {
				_, err = r.s.Append(ctx, id, b.Events...)
			} else {
				_, err = r.s.AppendBatch(ctx, id, b)
			}
			if errors.Is(err, ErrNotFound) && !b.Start && b.End == TurnNone {
				return nil // not a session of the store's: sent unrecorded
			}
			if err != nil {
				return fmt.Errorf("session %s: %w", id, err)
			}
		}
		return nil
	}
	if len(r.order) == 1 {
		return appendOne(r.order[0])
	}
	errs := make([]error, len(r.order))
	var wg sync.WaitGroup
	for i, id := range r.order {
		wg.Go(func() { errs[i] = appendOne(id) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
