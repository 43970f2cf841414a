package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/acpgen/acpgen/gen/acp"
)

// With -rfd the agent also advertises session/load, session/list,
// additionalDirectories and runtimeContext, with three defects against the
// RFD overlays: it resolves relative or empty roots against its own folder
// instead of refusing them, it records runtimeContext with the prompt and
// replays it on session/load, and session/list ignores its filters and
// leaves out an empty additionalDirectories, which it must send once
// advertised.
var rfdMode = has("-rfd")

type stored struct {
	cwd   string
	dirs  []string
	texts []string
	// history is the conversation as session/load replays it: the user's
	// texts and the agent's replies, in order.
	history []map[string]any
}

// said records a session/update of the conversation for session/load.
func said(sid string, u map[string]any) {
	storeMu.Lock()
	defer storeMu.Unlock()
	if s := store[sid]; s != nil {
		s.history = append(s.history, u)
	}
}

var (
	storeMu sync.Mutex
	store   = map[string]*stored{}
	order   []string
)

func capabilities() map[string]any {
	if logoutMode {
		return map[string]any{"auth": map[string]any{"logout": map[string]any{}}}
	}
	if deleteListedOnly {
		return map[string]any{"sessionCapabilities": map[string]any{"list": map[string]any{}, "delete": map[string]any{}}}
	}
	if imageMode {
		return map[string]any{"promptCapabilities": map[string]any{"image": true}}
	}
	if resumeMode {
		return map[string]any{"sessionCapabilities": map[string]any{"resume": map[string]any{}}}
	}
	if !rfdMode {
		return map[string]any{}
	}
	return map[string]any{"loadSession": true, "sessionCapabilities": map[string]any{
		"list": map[string]any{}, "additionalDirectories": map[string]any{}, "runtimeContext": map[string]any{}}}
}

// absolutize is the first RFD defect: roots made absolute, never refused.
func absolutize(params json.RawMessage) json.RawMessage {
	if !rfdMode {
		return params
	}
	var p map[string]any
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	wd, _ := os.Getwd()
	abs := func(v any) any {
		if s, ok := v.(string); ok && !filepath.IsAbs(s) {
			return filepath.Join(wd, s)
		}
		return v
	}
	if _, ok := p["cwd"]; ok {
		p["cwd"] = abs(p["cwd"])
	}
	if dirs, ok := p["additionalDirectories"].([]any); ok {
		for i := range dirs {
			dirs[i] = abs(dirs[i])
		}
	}
	b, _ := json.Marshal(p)
	return b
}

func remember(id string, p *acp.NewSessionRequest) {
	storeMu.Lock()
	defer storeMu.Unlock()
	store[id] = &stored{cwd: p.Cwd, dirs: append([]string{}, p.AdditionalDirectories...)}
	order = append(order, id)
}

// record is the second RFD defect: runtimeContext is stored with the turn.
func record(p *acp.PromptRequest) {
	storeMu.Lock()
	defer storeMu.Unlock()
	s := store[string(p.SessionID)]
	if s == nil {
		return
	}
	var texts []string
	for _, b := range p.Prompt {
		if b.Text != nil {
			texts = append(texts, b.Text.Text)
		}
	}
	for _, c := range p.RuntimeContext {
		texts = append(texts, c.Text)
	}
	s.texts = append(s.texts, texts...)
	for _, t := range texts {
		s.history = append(s.history, map[string]any{"sessionUpdate": "user_message_chunk", "content": map[string]any{"type": "text", "text": t}})
	}
}

func load(id json.RawMessage, p *acp.LoadSessionRequest) {
	storeMu.Lock()
	s := store[string(p.SessionID)]
	var history []map[string]any
	if s != nil {
		history = append(history, s.history...)
	}
	storeMu.Unlock()
	if s == nil {
		fail(id, -32002, "Resource not found", nil)
		return
	}
	if loadFirst {
		reply(id, map[string]any{})
	}
	for _, u := range history {
		if replayUserOnly && u["sessionUpdate"] != "user_message_chunk" {
			continue
		}
		send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": p.SessionID, "update": u}})
	}
	if !loadFirst {
		reply(id, map[string]any{})
	}
}

// list has the last two RFD defects: every session, whatever the filters
// say, and no additionalDirectories when there are none.
func list(id json.RawMessage) {
	storeMu.Lock()
	defer storeMu.Unlock()
	sessions := []any{}
	for _, sid := range order {
		s := store[sid]
		if deleteListedOnly && len(s.texts) == 0 {
			continue // listed once it has history
		}
		info := map[string]any{"sessionId": sid, "cwd": s.cwd}
		if len(s.dirs) > 0 {
			info["additionalDirectories"] = s.dirs
		}
		sessions = append(sessions, info)
	}
	reply(id, map[string]any{"sessions": sessions})
}

// deleteSession deletes a session session/list returns; any other is not
// found (-32002).
func deleteSession(id json.RawMessage, sid string) {
	storeMu.Lock()
	defer storeMu.Unlock()
	s := store[sid]
	if s == nil || len(s.texts) == 0 {
		fail(id, -32002, "Resource not found", sid)
		return
	}
	delete(store, sid)
	order = slices.DeleteFunc(order, func(o string) bool { return o == sid })
	reply(id, map[string]any{})
}

// resume resumes a known session; with resumeReplays it first replays the
// session's prompts, as session/load would.
func resume(id json.RawMessage, sid string) {
	storeMu.Lock()
	s := store[sid]
	var texts []string
	if s != nil {
		texts = append(texts, s.texts...)
	}
	storeMu.Unlock()
	if s == nil {
		fail(id, -32002, "Resource not found", sid)
		return
	}
	for _, t := range texts {
		if resumeReplays {
			update(sid, map[string]any{"sessionUpdate": "user_message_chunk", "content": map[string]any{"type": "text", "text": t}})
		}
	}
	flushUpdates()
	reply(id, map[string]any{})
}
