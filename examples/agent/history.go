package main

import (
	"slices"

	"github.com/acpgen/acpgen/gen/acp"
)

// A session's recorded turns, which "_acpgen/history" returns, and its
// conversation, which session/load replays, are bounded: at most maxHistoryTurns turns and
// maxHistoryBytes of their JSON. Past either bound the oldest turns are
// dropped; a turn over the byte bound on its own is not kept.
const (
	maxHistoryTurns = 100
	maxHistoryBytes = 1 << 20
)

// record appends a turn to the session's history and drops the oldest turns
// past the bounds. The caller holds the store's lock.
func (s *session) record(turn acp.PromptRequest) {
	s.history = append(s.history, turn)
	s.historyBytes += turnSize(&turn)
	drop := 0
	for drop < len(s.history) && (len(s.history)-drop > maxHistoryTurns || s.historyBytes > maxHistoryBytes) {
		s.historyBytes -= turnSize(&s.history[drop])
		drop++
	}
	s.history = slices.Delete(s.history, 0, drop)
}

// said appends an update the agent sent in the session (the user's prompt
// echoed as user_message_chunk, the agent's replies) to the conversation
// session/load replays, and drops the oldest updates past maxHistoryBytes.
// The caller holds the store's lock.
func (s *session) said(u acp.SessionUpdate) {
	s.conversation = append(s.conversation, u)
	s.conversationBytes += len(u.AppendJSON(nil))
	drop := 0
	for drop < len(s.conversation) && s.conversationBytes > maxHistoryBytes {
		s.conversationBytes -= len(s.conversation[drop].AppendJSON(nil))
		drop++
	}
	s.conversation = slices.Delete(s.conversation, 0, drop)
}

// turnSize is what a recorded turn counts towards maxHistoryBytes.
func turnSize(turn *acp.PromptRequest) int { return len(turn.AppendJSON(nil)) }
