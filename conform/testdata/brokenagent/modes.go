package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
)

// Modes beside the defects, each a correct behaviour conform must not fail:
//
//	-auth        lists the auth method "conform-key" and answers session/new
//	             with -32000 (authentication required) until authenticate
//	             names it
//	-chatty      sends session_info_update and available_commands_update
//	             after every prompt's response (session-level updates)
//	-late        sends an agent_message_chunk after the prompt's response
//	             (turn output after the turn: a defect)
//	-modes       advertises the modes "ask" and "code" and the config option
//	             "effort" in session/new; set_mode and set_config_option
//	             accept those and answer -32602 for anything else
//	-negotiate=N answers an initialize asking for more than 1 with version
//	             N and a v2 InitializeResponse body (invalid under v1)
var (
	authMode   = hasArg("-auth")
	chattyMode = hasArg("-chatty")
	lateMode   = hasArg("-late")
	modesMode  = hasArg("-modes")
	negotiate  = argValue("-negotiate=")
)

var authenticated bool

func hasArg(a string) bool { return slices.Contains(os.Args[1:], a) }

func argValue(prefix string) string {
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v
		}
	}
	return ""
}

// initResult is the initialize result for the requested version.
func initResult(requested int) any {
	if negotiate != "" && requested > 1 {
		var v int
		_ = json.Unmarshal([]byte(negotiate), &v)
		return map[string]any{"protocolVersion": v, "info": map[string]any{"name": "brokenagent", "version": "0"},
			"capabilities": map[string]any{}, "authMethods": []any{map[string]any{"type": "agent", "methodId": "conform-key", "name": "Key"}}}
	}
	res := map[string]any{"protocolVersion": 1, "agentCapabilities": capabilities()}
	if authMode {
		res["authMethods"] = []any{map[string]any{"id": "conform-key", "name": "Key"}}
	}
	return res
}

// login handles authenticate's method id.
func login(methodID string) {
	if methodID == "conform-key" {
		authenticated = true
	}
}

// refused answers a session/new the agent will not serve yet.
func refused(id json.RawMessage) bool {
	if authMode && !authenticated {
		fail(id, -32000, "Authentication required", nil)
		return true
	}
	return false
}

// sessionState is what session/new's result advertises besides the id.
func sessionState(res map[string]any) map[string]any {
	if modesMode {
		res["modes"] = map[string]any{"currentModeId": "ask", "availableModes": []any{
			map[string]any{"id": "ask", "name": "Ask"}, map[string]any{"id": "code", "name": "Code"}}}
		res["configOptions"] = []any{map[string]any{"id": "effort", "name": "Effort", "type": "select", "currentValue": "low",
			"options": []any{map[string]any{"value": "low", "name": "Low"}, map[string]any{"value": "high", "name": "High"}}}}
	}
	return res
}

// setState answers set_mode and set_config_option: known ids succeed.
func setState(id json.RawMessage, method string, params json.RawMessage) {
	var p struct {
		ModeID   string `json:"modeId"`
		ConfigID string `json:"configId"`
		Value    string `json:"value"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case !modesMode:
		fail(id, -32601, "Method not found", method)
	case method == "session/set_mode" && (p.ModeID == "ask" || p.ModeID == "code"):
		reply(id, map[string]any{})
	case method == "session/set_config_option" && p.ConfigID == "effort" && (p.Value == "low" || p.Value == "high"):
		reply(id, map[string]any{"configOptions": sessionState(map[string]any{})["configOptions"]})
	default:
		fail(id, -32602, "Invalid params", "unknown id")
	}
}

// afterTurn sends what the modes add once a prompt has been answered.
func afterTurn(sid string) {
	if chattyMode {
		update(sid, map[string]any{"sessionUpdate": "session_info_update", "title": "conformance"})
		update(sid, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []any{}})
	}
	if lateMode {
		update(sid, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "late"}})
	}
}

func update(sid string, u map[string]any) {
	send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sid, "update": u}})
}
