package inspect

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/refschema"
	"github.com/acpgen/acpgen/runtime/proxychain"
)

// receiver is the side that handles what is sent in dir.
func receiver(dir Direction) string {
	if dir == ToAgent {
		return "agent"
	}
	return "client"
}

// call judges a request or notification.
func (c *Checker) call(j *judgement, e envelope, read *paramsRead) {
	method, ok := stringValue(e.Method)
	if !ok {
		j.msg.Kind = "invalid"
		j.add(ruleLines, "/method", "method is not a string")
		return
	}
	j.msg.Kind, j.msg.Method = "notification", method
	if e.ID != nil {
		j.msg.Kind, j.msg.ID = "request", e.ID
	}
	// The Rust SDK's Proxy Chains names are judged as the schema's.
	method = proxychain.Canonical(method)
	switch {
	case read != nil && method == "session/update":
		j.msg.Session, j.msg.Update = read.sessionAndKind(e.Params)
	case method == "session/update":
		j.msg.Session, j.msg.Update = sessionAndKind(e.Params)
	case read != nil:
		j.msg.Session = read.sessionIn(e.Params)
	default:
		j.msg.Session = sessionIn(e.Params)
	}
	if isInitialize(method) && j.dir == ToAgent {
		c.clientInit = keepRaw(e.Params)
		e.Method = json.RawMessage(`"initialize"`) // as the router reads it
		c.ver.requested(mustMarshal(e))
	}
	req := &request{method: method, at: c.now(), session: j.msg.Session}
	if p := c.ver.profile(j); p != nil {
		c.callSchema(j, p, req, e.Params)
	}
	c.lifecycleCall(j, req, e.Params)
	c.mcpCall(j, method, e.ID, e.Params)
	if key := idKey(e.ID); key != "" {
		c.pending[j.dir].put(key, req)
	}
}

// callSchema judges a call's method and params against profile p.
func (c *Checker) callSchema(j *judgement, p *conform.Profile, req *request, params json.RawMessage) {
	m := methodOf(p, req.method, j.msg.Kind == "notification")
	switch {
	case m == nil && proxychain.Reserved(req.method):
		// A Proxy Chains method on a hop whose schema lacks them (stable):
		// known by name, not judged.
		req.unknown, req.ext = true, true
		return
	case m == nil && strings.HasPrefix(req.method, "_"):
		req.unknown, req.ext = true, true
		return
	case m == nil:
		req.unknown = true
		j.add(ruleUnknownSent, "/method", req.method+": not a method of this schema")
		return
	case m.Side == "proxy":
		// Conductor and proxy both send proxy/successor; proxy/initialize
		// reaches a proxy where an agent would be.
	case m.Side != receiver(j.dir):
		req.unknown = true
		j.add(ruleUnknownSent, "/method", fmt.Sprintf("%s: handled by the %s, not the %s", req.method, m.Side, receiver(j.dir)))
		return
	}
	if m.Params != nil && c.validate(j, p, m.Params.Def, params, "/params") {
		c.gates(j, p, m, false, params)
	} else if m.Params != nil {
		req.invalid = true
	}
}

// response judges a response in dir: an answer to a request sent the
// other way.
func (c *Checker) response(j *judgement, e envelope) {
	j.msg.Kind, j.msg.ID = "response", e.ID
	if e.Result != nil && e.Error != nil {
		j.add(ruleResultOrErr, "", "both result and error")
	}
	if e.Error != nil {
		errorObject(j, e.Error)
	}
	key := idKey(e.ID)
	if key == "z" {
		return // the answer to a frame that was not a request
	}
	req, ok := c.pending[other(j.dir)].get(key)
	if !ok {
		why := "answers no outstanding request"
		if done, _ := c.answered[j.dir].get(key); done {
			why = "answers a request already answered"
		}
		j.add(ruleIDs, "/id", fmt.Sprintf("id %s %s", e.ID, why))
		return
	}
	c.pending[other(j.dir)].del(key)
	c.answered[j.dir].put(key, true)
	j.msg.Method, j.msg.Session = req.method, req.session
	j.msg.LatencyMS = float64(c.now().Sub(req.at).Microseconds()) / 1000
	answerRules(j, req, e)
	if req.method == methodMCP {
		c.mcpAnswer(j, e)
	}
	if e.Result == nil {
		c.lifecycleError(j, req)
		return
	}
	if isInitialize(req.method) && j.dir == ToClient {
		c.agentInit = keepRaw(e.Result)
		c.ver.answered(e.Result)
	}
	if j.msg.Session == "" {
		j.msg.Session = sessionIn(e.Result)
	}
	if p := c.ver.profile(j); p != nil && !req.unknown {
		if m := methodOf(p, req.method, false); m != nil && m.Result != nil && c.validate(j, p, m.Result.Def, e.Result, "/result") {
			c.gates(j, p, m, true, e.Result)
		}
	}
	c.lifecycleResult(j, req, e.Result)
}

// isInitialize reports initialize, or proxy/initialize: a proxy's
// initialize on a Proxy Chains hop.
func isInitialize(method string) bool {
	return method == "initialize" || method == proxychain.SchemaInitialize
}

// methodOf is the method named name in profile p: its request or its
// notification as notification says, when the name is both
// (proxy/successor); else the one of that name.
func methodOf(p *conform.Profile, name string, notification bool) *ir.Method {
	var first *ir.Method
	for _, m := range p.Model.Methods {
		if m.Wire != name {
			continue
		}
		if m.Notification == notification {
			return m
		}
		if first == nil {
			first = m
		}
	}
	return first
}

// answerRules judges how a request of an unknown method or with invalid
// params was answered. An unknown method answered with a result is not
// judged here: the receiver may speak a wider schema (its sending is).
// Extension methods are the receiver's own: any answer goes.
func answerRules(j *judgement, req *request, e envelope) {
	code, hasCode := errorCode(e.Error)
	switch {
	case req.ext:
	case req.unknown && e.Error != nil && code != -32601:
		j.add(ruleUnknownReq, "/error/code", "answered "+answer(e, hasCode, code)+", want error -32601")
	case req.invalid && (!hasCode || code != -32602):
		j.add(ruleParamsCode, "", "invalid params answered "+answer(e, hasCode, code)+", want error -32602")
	}
}

func answer(e envelope, hasCode bool, code int) string {
	if hasCode {
		return fmt.Sprintf("error %d", code)
	}
	if e.Error != nil {
		return "an error without a code"
	}
	return "with a result"
}

func errorCode(raw json.RawMessage) (int, bool) {
	var e struct {
		Code *int `json:"code"`
	}
	if raw == nil || json.Unmarshal(raw, &e) != nil || e.Code == nil {
		return 0, false
	}
	return *e.Code, true
}

// errorObject judges a JSON-RPC error object's shape.
func errorObject(j *judgement, raw json.RawMessage) {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil {
		j.add(ruleErrorObjects, "/error", "not an object")
		return
	}
	var n int
	if json.Unmarshal(e.Code, &n) != nil {
		j.add(ruleErrorObjects, "/error/code", "missing or not an integer")
	}
	var s string
	if json.Unmarshal(e.Message, &s) != nil {
		j.add(ruleErrorObjects, "/error/message", "missing or not a string")
	}
}

// validate judges payload against def; false when it breaks it.
func (c *Checker) validate(j *judgement, p *conform.Profile, def string, payload json.RawMessage, at string) bool {
	if payload == nil {
		payload = json.RawMessage("null")
	}
	vs, err := p.Violations(def, payload)
	if err != nil {
		j.add(ruleSchema, at, "cannot judge against "+def+": "+err.Error())
		return false
	}
	for _, v := range specific(vs) {
		j.add(ruleSchema, at+v.Pointer, def+": "+v.Reason)
	}
	return len(vs) == 0
}

// specific drops the violations that only say a combination (oneOf, allOf,
// anyOf) failed when a violation inside it says why, so one defect gives
// one finding.
func specific(vs []refschema.Violation) []refschema.Violation {
	var out []refschema.Violation
	for _, v := range vs {
		if !strings.HasPrefix(v.Reason, "Must validate") {
			out = append(out, v)
		}
	}
	if len(out) == 0 && len(vs) > 0 {
		out = vs[:1]
	}
	return out
}

// gates judges a valid payload of m against what each side advertised.
func (c *Checker) gates(j *judgement, p *conform.Profile, m *ir.Method, inResult bool, payload json.RawMessage) {
	sender, recv := c.clientInit, c.agentInit
	if j.dir.fromAgent() {
		sender, recv = c.agentInit, c.clientInit
	}
	at := "/params"
	if inResult {
		at = "/result"
	}
	for _, u := range c.ver.p.gatesOf(p).Uses(m, inResult, j.dir.fromAgent(), payload, sender, recv) {
		r := ruleGates
		if u.Overlay != "" {
			r = overlayRule(u.Overlay)
		}
		detail := u.Capability + " not granted"
		if u.Pointer == "" && !u.Require {
			detail = m.Wire + " needs " + u.Capability + ", not granted"
		}
		if u.Require {
			detail = fmt.Sprintf("%s advertised, so %s is required", u.Capability, u.Member)
		}
		j.add(r, at+u.Pointer, detail)
	}
}

// sessionInJSON is sessionIn read with encoding/json.
func sessionInJSON(raw json.RawMessage) string {
	var p struct {
		SessionID any `json:"sessionId"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	if s, ok := p.SessionID.(string); ok {
		return s
	}
	return ""
}

// updateKindJSON is updateKind read with encoding/json.
func updateKindJSON(params json.RawMessage) string {
	var p struct {
		Update struct {
			Kind string `json:"sessionUpdate"`
		} `json:"update"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Update.Kind
}

// mustMarshal re-encodes an envelope for the router (it reads whole
// frames); only the initialize request goes this way.
func mustMarshal(e envelope) []byte {
	m := map[string]json.RawMessage{"jsonrpc": e.JSONRPC, "id": e.ID, "method": e.Method, "params": e.Params}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(m)
	return b
}
