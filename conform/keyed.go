package conform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Keyed updates: session updates that name an object (a tool call, a
// terminal, a message) by id. The schemas state these rules as
// descriptions without a MUST, so the cases are SHOULD, judged over every
// update of the run.

// keyedRule is one id rule: an update of kind must name, in member, an id
// that an earlier update of intro introduced in the same session.
type keyedRule struct {
	protocol      int
	kind, member  string
	intro, source string
}

var keyedRules = []keyedRule{
	{1, "tool_call_update", "toolCallId", "tool_call", srcKeyedTool},
	{2, "tool_call_content_chunk", "toolCallId", "tool_call_update", srcKeyedToolChunk},
	{2, "terminal_output_chunk", "terminalId", "terminal_update", srcKeyedTerminal},
}

// Sources of the keyed rules.
const (
	srcKeyedTool      = "schema: ToolCallUpdate (an update to an existing tool call)"
	srcKeyedToolChunk = "schema v2: ToolCallContentChunk (appends to the matching tool call)"
	srcKeyedTerminal  = "schema v2: TerminalOutputChunk (the terminal receiving the bytes)"
)

// chunkRule: in v1 a change of messageId starts a new message, so an id does
// not come back once a chunk of the same kind named another.
const (
	chunkCase   = "message chunks: a messageId does not return after another started"
	chunkSource = "schema: ContentChunk messageId (a change starts a new message)"
)

// keyedIDs tracks the ids each process's sessions introduced.
type keyedIDs struct {
	mu    sync.Mutex
	known map[string]bool   // proc, session, kind, id: introduced or seen
	last  map[string]string // proc, session, chunk kind: its current messageId
	n     map[string]int    // case name: updates judged
	probs map[string][]string
	src   map[string]string
}

func newKeyedIDs() *keyedIDs {
	return &keyedIDs{known: map[string]bool{}, last: map[string]string{}, n: map[string]int{}, probs: map[string][]string{}, src: map[string]string{}}
}

// see judges one session/update of proc, negotiated at version.
func (k *keyedIDs) see(proc string, version int, f *frame) {
	var p struct {
		SessionID string                     `json:"sessionId"`
		Update    map[string]json.RawMessage `json:"update"`
	}
	if json.Unmarshal(f.Params, &p) != nil {
		return
	}
	kind := str(p.Update["sessionUpdate"])
	at := proc + "\x00" + p.SessionID + "\x00"
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, r := range keyedRules {
		id := string(p.Update[r.member])
		switch {
		case r.protocol != version || id == "":
		case kind == r.intro:
			k.known[at+r.kind+"\x00"+id] = true
		case kind == r.kind:
			name := r.kind + " names an id its session's " + r.intro + " introduced"
			k.judge(name, r.source, k.known[at+r.kind+"\x00"+id], fmt.Sprintf("%s %s of session %q: no earlier %s", r.member, id, p.SessionID, r.intro))
		}
	}
	if version == 1 && (strings.HasSuffix(kind, "_message_chunk") || kind == "agent_thought_chunk") {
		k.chunk(at+kind, str(p.Update["messageId"]), p.SessionID)
	}
}

// chunk judges a v1 message chunk's messageId against the earlier ones of
// its kind in the session.
func (k *keyedIDs) chunk(at, id, session string) {
	if id == "" {
		return
	}
	cur, seen := k.last[at], k.known[at+"\x00"+id]
	k.judge(chunkCase, chunkSource, cur == id || !seen, fmt.Sprintf("messageId %s of session %q came back after %s", id, session, cur))
	k.last[at], k.known[at+"\x00"+id] = id, true
}

func (k *keyedIDs) judge(name, source string, ok bool, problem string) {
	k.n[name]++
	k.src[name] = source
	if !ok && len(k.probs[name]) < 8 {
		k.probs[name] = append(k.probs[name], problem)
	}
}

// reset forgets what a session sent before the checker loads or resumes it:
// the replay names its ids again.
func (k *keyedIDs) reset(proc, session string) {
	at := proc + "\x00" + session + "\x00"
	k.mu.Lock()
	defer k.mu.Unlock()
	for key := range k.last {
		if strings.HasPrefix(key, at) {
			delete(k.last, key)
		}
	}
	for key := range k.known {
		if strings.HasPrefix(key, at) {
			delete(k.known, key)
		}
	}
}

// results is one SHOULD case per rule that judged an update.
func (k *keyedIDs) results() []Result {
	k.mu.Lock()
	defer k.mu.Unlock()
	names := make([]string, 0, len(k.n))
	for name := range k.n {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Result
	for _, name := range names {
		r := shouldCase("frames: "+name, fmt.Sprintf("%s (%d)", name, k.n[name]), k.src[name], "ids that name what the session introduced")
		r.Verdict, r.Observed = Pass, "all valid"
		if len(k.probs[name]) > 0 {
			r.Verdict, r.Observed = Fail, strings.Join(k.probs[name], "; ")
		}
		out = append(out, r)
	}
	return out
}
