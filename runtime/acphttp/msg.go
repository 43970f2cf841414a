package acphttp

import (
	"bytes"
	"encoding/json"
)

// peek is what routing needs to know of a message, read without decoding
// the rest of it.
type peek struct {
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	session string          // params.sessionId, or result.sessionId of a response
}

// peekMessage reads msg's shape; ok is false unless msg is one JSON object.
func peekMessage(msg []byte) (p peek, ok bool) {
	t := bytes.TrimLeft(msg, " \t\r\n")
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(msg, &p) != nil {
		return peek{}, false
	}
	if p.Method != nil {
		p.session = sessionIDOf(p.Params)
	} else {
		p.session = sessionIDOf(p.Result)
	}
	return p, true
}

func sessionIDOf(obj json.RawMessage) string {
	if len(obj) == 0 || obj[0] != '{' {
		return ""
	}
	var v struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if json.Unmarshal(obj, &v) != nil || len(v.SessionID) == 0 || v.SessionID[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(v.SessionID, &s) != nil {
		return ""
	}
	return s
}

func (p *peek) isRequest() bool {
	return p.Method != nil && len(p.ID) > 0 && !bytes.Equal(p.ID, []byte("null"))
}
func (p *peek) isNotification() bool { return p.Method != nil && len(p.ID) == 0 }
func (p *peek) isResponse() bool     { return p.Method == nil && (len(p.Result) > 0 || len(p.Error) > 0) }
func (p *peek) method() string {
	if p.Method == nil {
		return ""
	}
	return *p.Method
}

// idKey is a request id as a map key: its JSON text, which tells 1 from "1".
func (p *peek) idKey() string { return string(bytes.TrimSpace(p.ID)) }

// sessionScoped lists the client methods whose POST must carry
// Acp-Session-Id, as the TypeScript SDK does.
var sessionScoped = map[string]bool{
	"session/cancel": true, "session/close": true, "session/delete": true, "session/fork": true,
	"session/load": true, "session/prompt": true, "session/resume": true,
	"session/set_config_option": true, "session/set_mode": true, "session/set_model": true,
}

const (
	methodInitialize  = "initialize"
	methodSessionLoad = "session/load"
)
