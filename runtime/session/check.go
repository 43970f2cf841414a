package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The checks and the list cursor below are shared by every Store, so that
// each refuses the same arguments with the same errors.

// CheckInfo returns an ErrInvalid error when Create cannot store info.
func CheckInfo(info Info) error {
	if info.ID == "" {
		return fmt.Errorf("%w: empty session id", ErrInvalid)
	}
	return checkMeta(info.Meta)
}

// CheckChange returns an ErrInvalid error when Update cannot apply c.
func CheckChange(c Change) error {
	if c.Meta == nil || string(c.Meta) == "null" {
		return nil
	}
	return checkMeta(c.Meta)
}

func checkMeta(meta json.RawMessage) error {
	if meta == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(meta, &obj); err != nil || obj == nil {
		return fmt.Errorf("%w: _meta is not a JSON object", ErrInvalid)
	}
	return nil
}

// CheckAppend returns an ErrInvalid error when Append cannot record events.
func CheckAppend(events []Event) error {
	if len(events) == 0 {
		return fmt.Errorf("%w: no events to append", ErrInvalid)
	}
	for i, e := range events {
		if e.Kind != KindUpdate && e.Kind != KindMessage {
			return fmt.Errorf("%w: event %d: Append records updates and messages, not %s", ErrInvalid, i, e.Kind)
		}
		if !json.Valid(e.Data) {
			return fmt.Errorf("%w: event %d: data is not one JSON value", ErrInvalid, i)
		}
	}
	return nil
}

// TurnData returns what StartTurn records for data: data itself, or null for
// nil; an ErrInvalid error when it is not one JSON value.
func TurnData(data json.RawMessage) (json.RawMessage, error) {
	if data == nil {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%w: turn data is not one JSON value", ErrInvalid)
	}
	return data, nil
}

// ReasonData is the Data of a KindTurnEnd or KindTurnInterrupted event: the
// reason as a JSON string.
func ReasonData(reason string) json.RawMessage {
	b, _ := json.Marshal(reason) // a string always marshals
	return b
}

// ClosedReason is the reason CloseSession interrupts a running turn with.
const ClosedReason = "session closed"

// Matches reports whether info passes q's owner and filters.
func (q *Query) Matches(info *Info) bool {
	if info.Owner != q.Owner {
		return false
	}
	if q.Cwd != nil && *q.Cwd != info.Cwd {
		return false
	}
	if q.AdditionalDirectories != nil && !slices.Equal(q.AdditionalDirectories, info.AdditionalDirectories) {
		return false
	}
	return true
}

// PageSize is q's Limit, or DefaultPageSize when it sets none.
func (q *Query) PageSize() int {
	if q.Limit <= 0 {
		return DefaultPageSize
	}
	return q.Limit
}

// A list cursor is the creation number of the last session of the page
// before: stores number sessions in creation order, and List walks that order
// downward, so a session created or updated while a client pages neither
// repeats nor hides another.
const cursorPrefix = "c1."

// EncodeCursor returns the cursor that continues a listing after the session
// with creation number n.
func EncodeCursor(n int64) string { return cursorPrefix + strconv.FormatInt(n, 10) }

// DecodeCursor returns the creation number in a cursor EncodeCursor made;
// ErrBadCursor for anything else.
func DecodeCursor(c string) (int64, error) {
	s, ok := strings.CutPrefix(c, cursorPrefix)
	if !ok {
		return 0, ErrBadCursor
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != s {
		return 0, ErrBadCursor
	}
	return n, nil
}
