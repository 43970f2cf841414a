// Command brokenagent is an ACP agent with three defects seen in real
// agents, for the conform tests: it answers invalid params with -32603 and
// the validator's text as data, it accepts a text block without text, and it
// does not exit when stdin closes. Everything else follows the protocol.
// With -rfd it has four more, against the RFD overlays (rfd.go); modes.go
// lists the other flags: defects of one rule each, and correct behaviours
// conform must not fail.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

var (
	out       = json.NewEncoder(os.Stdout)
	outMu     sync.Mutex
	cancelled = map[string]chan struct{}{}
	mu        sync.Mutex
)

func send(v any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = out.Encode(v)
}

func reply(id json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": replyID(id), "result": result})
}

func fail(id json.RawMessage, code int, message string, data any) {
	if id == nil {
		id = json.RawMessage("null")
	}
	obj := map[string]any{"code": code, "message": message, "data": data}
	if noMessage {
		delete(obj, "message")
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": replyID(id), "error": obj}
	if resultAndError {
		msg["result"] = nil
	}
	send(msg)
}

// check decodes and validates params like a conforming agent would, but
// reports a failure as an internal error (the first defect).
func check[T any, P interface {
	*T
	Validate() error
}](id, params json.RawMessage) (*T, bool) {
	var v T
	err := wire.DecodeWith(params, P(&v), acp.TableOf(P(&v)), wire.Lenient)
	if err == nil {
		err = P(&v).Validate()
	}
	if err != nil {
		fail(id, -32603, "Internal error", []string{err.Error()})
		return nil, false
	}
	return &v, true
}

// textless gives every text block without text an empty one (the second
// defect), so validation passes.
func textless(params json.RawMessage) json.RawMessage {
	var p map[string]any
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	blocks, _ := p["prompt"].([]any)
	for _, b := range blocks {
		if m, ok := b.(map[string]any); ok && m["type"] == "text" {
			if _, ok := m["text"]; !ok {
				m["text"] = ""
			}
		}
	}
	b, _ := json.Marshal(p)
	return b
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	initialized, sessions := false, 0
	for sc.Scan() {
		var m msg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			parseError()
			continue
		}
		if m.Method == "" && (m.Result != nil || m.Error != nil) {
			continue // the client's answer to a request of duringTurn
		}
		if (m.JSONRPC != "2.0" && !ignoreJSONRPC) || m.Method == "" {
			fail(m.ID, -32600, "Invalid request", nil)
			continue
		}
		if m.ID == nil {
			if m.Method == acp.MethodSessionCancel {
				var p struct {
					SessionID string `json:"sessionId"`
				}
				_ = json.Unmarshal(m.Params, &p)
				mu.Lock()
				if ch, ok := cancelled[p.SessionID]; ok {
					close(ch)
					delete(cancelled, p.SessionID)
				}
				mu.Unlock()
			} else {
				if crashExtNote && strings.HasPrefix(m.Method, "_") {
					crash("unknown notification " + m.Method)
				}
				notification(m.Method)
			}
			continue
		}
		if !initialized && m.Method != acp.MethodInitialize {
			fail(m.ID, -32600, "Invalid request", "initialize first")
			continue
		}
		if len(m.Params) > 0 && m.Params[0] != '{' && m.Params[0] != '[' {
			if crashNonObject {
				crash("params is not an object: " + string(m.Params))
			}
			fail(m.ID, -32600, "Invalid request", nil)
			continue
		}
		switch m.Method {
		case acp.MethodInitialize:
			if p, ok := check[acp.InitializeRequest](m.ID, m.Params); ok && refuseFuture && p.ProtocolVersion > 1 {
				fail(m.ID, -32602, "Invalid params", "unsupported protocol version")
			} else if ok {
				initialized = true
				beforeInitAnswer()
				reply(m.ID, withTerminalAuth(initResult(int(p.ProtocolVersion)), m.Params))
			}
		case acp.MethodAuthenticate:
			if p, ok := check[acp.AuthenticateRequest](m.ID, m.Params); ok {
				login(string(p.MethodID))
				reply(m.ID, map[string]any{})
			}
		case acp.MethodSessionNew:
			if p, ok := check[acp.NewSessionRequest](m.ID, absolutize(m.Params)); ok && !refused(m.ID, m.Method) {
				sessions++
				sid := "s" + strings.Repeat("1", sessions)
				if sameSession {
					sid = "s1"
				}
				remember(sid, p)
				reply(m.ID, sessionState(map[string]any{"sessionId": sid}))
			}
		case acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption:
			setState(m.ID, m.Method, m.Params)
		case acp.MethodSessionPrompt:
			if imageRefused && strings.Contains(string(m.Params), `"type":"image"`) {
				fail(m.ID, -32602, "Invalid params", "images are not taken")
				continue
			}
			if p, ok := check[acp.PromptRequest](m.ID, textless(m.Params)); ok && !refused(m.ID, m.Method) {
				record(p)
				go prompt(m.ID, p, echoInvalid && textlessPrompt(m.Params))
			}
		case acp.MethodSessionLoad:
			if p, ok := check[acp.LoadSessionRequest](m.ID, absolutize(m.Params)); ok && rfdMode {
				load(m.ID, p)
			}
		case acp.MethodSessionList:
			if _, ok := check[acp.ListSessionsRequest](m.ID, absolutize(m.Params)); ok && (rfdMode || deleteListedOnly) {
				list(m.ID)
			}
		case acp.MethodSessionResume:
			if p, ok := check[acp.ResumeSessionRequest](m.ID, m.Params); ok && resumeMode {
				resume(m.ID, string(p.SessionID))
			}
		case acp.MethodLogout:
			if _, ok := check[acp.LogoutRequest](m.ID, m.Params); ok && logoutRefused {
				fail(m.ID, -32603, "Internal error", "logout failed")
			} else if ok && logoutMode {
				authenticated = false
				reply(m.ID, map[string]any{})
			} else if ok {
				unknownMethod(m.ID, m.Method)
			}
		case acp.MethodSessionDelete:
			if p, ok := check[acp.DeleteSessionRequest](m.ID, m.Params); ok && deleteListedOnly {
				deleteSession(m.ID, string(p.SessionID))
			}
		default:
			unknownMethod(m.ID, m.Method)
		}
	}
	for { // the third defect: stdin closed, still running
		time.Sleep(time.Hour)
	}
}

// prompt echoes one chunk; a prompt containing "wait" holds the turn until
// session/cancel. With echo the chunk is the prompt's text-less block as
// the agent accepted it.
func prompt(id json.RawMessage, p *acp.PromptRequest, echo bool) {
	sid := string(p.SessionID)
	wait := false
	for _, b := range p.Prompt {
		if b.Text != nil && strings.Contains(b.Text.Text, holdWord) {
			wait = true
		}
	}
	// The turn is cancellable before its first update goes out: the checker
	// sends session/cancel as soon as it sees one.
	ch := make(chan struct{})
	if wait {
		mu.Lock()
		cancelled[sid] = ch
		mu.Unlock()
	}
	named := sid
	if foreignUpdate {
		named = sid + "-other"
	}
	chunk := map[string]any{"sessionUpdate": "agent_message_chunk", "content": chunkContent()}
	if echo {
		chunk["content"] = map[string]any{"type": "text"}
	}
	if keyedMode {
		chunk["messageId"] = "m-1"
	}
	said(sid, chunk)
	sendUpdate(map[string]any{"sessionId": named, "update": chunk})
	duringTurn(sid)
	flushUpdates()
	if !wait {
		if promptError {
			fail(id, -32603, "Internal error", "prompt failed")
			return
		}
		reply(id, map[string]any{"stopReason": "end_turn"})
		afterTurn(sid)
		afterTurnNote()
		flushUpdates()
		return
	}
	<-ch
	reply(id, map[string]any{"stopReason": cancelledReason()})
	afterTurn(sid)
	afterTurnNote()
	flushUpdates()
}
