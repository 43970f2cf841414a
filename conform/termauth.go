package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Sources of the terminal auth cases.
const (
	// v1's env is an object: a name given twice is a member given twice.
	srcJSONNames = "RFC 8259 §4 (\"The names within an object SHOULD be unique\")"
	// v2's env is a list of EnvVariable.
	srcV2EnvNames = "schema v2: AuthMethodTerminal env (\"Names MUST be unique\")"
)

// terminalAuthGrant returns the checker's initialize params granting the
// capability that lets an agent list terminal auth methods (v1
// clientCapabilities.auth.terminal, v2 capabilities.auth.terminal), and
// its path; nil when the profile gates no terminal auth method.
func (r *agentRun) terminalAuthGrant() (json.RawMessage, string) {
	for _, g := range r.log.gates.gates {
		if g.Method.Wire != "initialize" || !g.Row.Result || g.Row.Variant != "terminal" || len(g.Cap.Tokens) == 0 {
			continue
		}
		// A boolean flag (v1) or a present object (v2): the one the
		// schema takes.
		for _, v := range []any{true, map[string]any{}} {
			params := setPath(r.params, g.Cap.Tokens, v)
			if vs, err := r.p.Violations("InitializeRequest", params); err == nil && len(vs) == 0 {
				return params, g.Cap.Path
			}
		}
	}
	return nil, ""
}

// setPath sets the member at path (created as objects on the way) to v.
func setPath(params json.RawMessage, path []string, v any) json.RawMessage {
	var doc map[string]any
	if json.Unmarshal(params, &doc) != nil {
		return params
	}
	obj := doc
	for _, tok := range path[:len(path)-1] {
		next, ok := obj[tok].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[tok] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
	b, _ := json.Marshal(doc)
	return b
}

// terminalAuth initializes an agent process as a client that can run
// terminal auth methods, so the agent may list them, and expects each
// listed terminal method's env names unique: MUST on v2 (its schema says
// so), SHOULD on v1, whose env is an object (RFC 8259: member names
// unique). Its gates are judged against what this process was granted.
func (r *agentRun) terminalAuth(c *proc) {
	params, path := r.terminalAuthGrant()
	if params == nil {
		return
	}
	g := newGateCheck(r.p, false)
	g.overlay, g.label = r.log.gates.overlay, "client advertises "+path
	g.grant(params)
	r.log.mu.Lock()
	if r.log.procGates == nil {
		r.log.procGates = map[string]*gateCheck{}
	}
	r.log.procGates[c.tag] = g
	r.log.mu.Unlock()

	name := "terminal auth methods' env names unique (client advertises " + path + ")"
	res := shouldCase(kindEnvNamesV1, name, "", "each env name once in each terminal auth method")
	if r.p.Protocol >= 2 {
		res = mustCase(kindV2EnvNames, "", name, res.Expected)
	}
	f, err := c.request("initialize", params)
	if err != nil || f.Error != nil {
		res.Verdict, res.Observed = Fail, "initialize gave "+errOr(err, f)
		r.add(res)
		return
	}
	var out struct {
		AuthMethods []json.RawMessage `json:"authMethods"`
	}
	_ = json.Unmarshal(f.Result, &out)
	methods, dups := 0, []string{}
	for _, m := range out.AuthMethods {
		var am struct {
			Type string          `json:"type"`
			Env  json.RawMessage `json:"env"`
		}
		if json.Unmarshal(m, &am) != nil || am.Type != "terminal" {
			continue
		}
		methods++
		dups = append(dups, envDuplicates(am.Env)...)
	}
	switch {
	case methods == 0:
		res.Verdict, res.Observed = Skipped, "not exercised: the agent lists no terminal auth method"
	case len(dups) > 0:
		res.Verdict, res.Observed = Fail, "env names given twice: "+strings.Join(dups, ", ")
	default:
		res.Verdict, res.Observed = Pass, fmt.Sprintf("%s, env names unique", plural(methods, "terminal method"))
	}
	r.add(res)
}

// envDuplicates lists the names a terminal method's env gives twice: the
// names of a v2 list of EnvVariable, or the members of a v1 object (read
// token by token, since decoding an object keeps one of each).
func envDuplicates(env json.RawMessage) []string {
	seen, dups := map[string]bool{}, []string{}
	see := func(n string) {
		if seen[n] && !contains(dups, n) {
			dups = append(dups, n)
		}
		seen[n] = true
	}
	var list []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(env, &list) == nil {
		for _, v := range list {
			see(v.Name)
		}
		return dups
	}
	dec := json.NewDecoder(bytes.NewReader(env))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return dups
		}
		if k, ok := t.(string); ok {
			see(k)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return dups
		}
	}
	return dups
}
