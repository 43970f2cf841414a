package conform

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
)

// probes runs during the first turn of the probing run: every
// agent->client request the client granted, in the order an agent uses
// them; the unknown requests; then every kind of session/update the client
// granted, an unknown variant and an extension notification, each group
// followed by a request the client must still answer.
func (s *script) probes(session string) {
	s.mu.Lock()
	granted := s.client
	s.mu.Unlock()
	s.requests(session, granted)
	s.mcpBinding(session)
	s.run.unknownRequests(s.request)
	sent := s.notifications(session, granted)
	res := mustCase(kindKeepsRunning, "notifications", fmt.Sprintf("answers after %d session/update kinds", sent),
		"the next request answered")
	res.Verdict, res.Observed = s.ping()
	s.run.add(res)

	unknown := Result{Category: "notifications", Case: "answers after an unknown session/update variant", Level: Info,
		Source: srcClosedUpdate, Expected: "the next request answered"}
	if s.run.p.Protocol >= 2 {
		unknown.Level, unknown.Source = Should, srcV2OtherUpdate
	}
	b, _ := json.Marshal(map[string]any{"sessionId": session,
		"update": map[string]any{"sessionUpdate": "acpgen_conform_unknown", "note": "a variant of a later schema"}})
	_ = s.pe.notify("session/update", b)
	unknown.Verdict, unknown.Observed = s.ping()
	s.run.add(unknown)

	ext := Result{Category: "notifications", Case: "answers after an _ notification", Level: Should, Source: srcExtension,
		Expected: "the next request answered"}
	_ = s.pe.notify("_acpgen/conform_note", json.RawMessage(`{}`))
	ext.Verdict, ext.Observed = s.ping()
	s.run.add(ext)
}

// ping sends a request of a method nobody defines: any answer shows the
// client still reads and answers (its code is the unknown-method cases').
func (s *script) ping() (Verdict, string) {
	f, err := s.request("acpgen/conform_ping", json.RawMessage(`{}`))
	switch {
	case err != nil && isClosed(s.pe.exited):
		return Fail, "the client exited: " + lastLine(s.pe.stderr.String())
	case err != nil:
		return Fail, err.Error()
	}
	return Pass, "answered: " + describe(f)
}

// notifications sends one session/update per variant (its full example,
// else its minimal one, whichever the client's capabilities allow), apart
// from those the turn sends itself. It returns how many.
func (s *script) notifications(session string, granted json.RawMessage) int {
	p := s.run.p
	m := p.Method("session/update")
	if m == nil {
		return 0
	}
	exs := p.examples["SessionUpdate"]
	var names []string
	for n := range exs {
		if strings.HasPrefix(n, "variant:") && !strings.HasSuffix(n, "/minimal") && !turnSends[strings.TrimPrefix(n, "variant:")] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	sent := 0
	for _, n := range names {
		for _, ex := range [][]byte{exs[n], exs[n+"/minimal"]} {
			b, _ := json.Marshal(map[string]any{"sessionId": session, "update": json.RawMessage(ex)})
			if gatedFor(p, m, false, granted, b) != "" {
				continue
			}
			if vs, err := p.Violations(m.Params.Def, b); err != nil || len(vs) > 0 {
				continue
			}
			_ = s.pe.notify("session/update", b)
			sent++
			break
		}
	}
	return sent
}

// turnSends are the session/update kinds the scripted turn sends itself:
// the echo, and v2's state updates, whose idle would end the turn.
var turnSends = map[string]bool{"agent_message_chunk": true, "state_update": true}

// clientLifecycle orders the agent->client requests the way an agent uses
// them: a terminal is created, read, waited for and killed before it is
// released (after terminal/release its id names nothing); the others keep
// the schema's order.
func clientLifecycle(methods []*ir.Method) []*ir.Method {
	rank := map[string]int{"terminal/create": 1, "terminal/output": 2, "terminal/wait_for_exit": 3, "terminal/kill": 4, "terminal/release": 5}
	out := append([]*ir.Method(nil), methods...)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Wire] < rank[out[j].Wire] })
	return out
}

// requests sends every agent->client request whose capability the client
// granted, its example filled in, and checks the answers.
func (s *script) requests(session string, granted json.RawMessage) {
	r := s.run
	file := s.probeFile(session)
	defer os.Remove(file)
	terminal := ""
	for _, m := range clientLifecycle(r.p.Model.Methods) {
		if m.Side != "client" || m.Notification {
			continue
		}
		params := fillClient(r.p.example(m.Params.Def), session, file, terminal)
		if c := gatedFor(r.p, m, false, granted, params); c != "" {
			r.add(Result{Category: "requests", Case: m.Wire, Level: Must, Source: srcCapability + " " + c,
				Expected: "not sent: the client does not advertise it", Observed: "-", Verdict: Skipped})
			continue
		}
		res := mustCase(kindClientResults, "", m.Wire, "result valid against "+m.Result.Def)
		var missing string
		params, missing = s.declared(m, params, session, terminal)
		if missing != "" {
			res.Verdict, res.Observed = Skipped, "not sent: "+missing
			r.add(res)
			continue
		}
		f, err := s.request(m.Wire, params)
		res.Verdict, res.Observed = resultVerdict(r.p, m, f, err)
		if res.Verdict == Pass && m.Wire == "terminal/create" {
			var t struct {
				TerminalID string `json:"terminalId"`
			}
			_ = json.Unmarshal(f.Result, &t)
			terminal = t.TerminalID
		}
		r.add(res)
	}
}

// declared fills the members of a request that must name something the
// client created or declared: a terminal (terminal/create's), an
// ACP-transport MCP server (mcp/message: one the session's mcpServers
// declare). It says what is missing when there is nothing to name.
func (s *script) declared(m *ir.Method, params json.RawMessage, session, terminal string) (json.RawMessage, string) {
	if m.Params.Member("terminalId") != nil && terminal == "" {
		return params, "terminal/create gave no terminal"
	}
	if m.Params.Member("serverId") != nil {
		s.mu.Lock()
		servers := s.mcpACP[session]
		s.mu.Unlock()
		if len(servers) == 0 {
			return params, "the session declares no ACP-transport MCP server (mcpServers type acp)"
		}
		id, _ := json.Marshal(servers[0])
		params = withRaw(params, "serverId", id)
	}
	return params, ""
}

// resultVerdict judges a client's answer to a request it granted: a result
// valid against the method's result def. -32601 fails (the method is the
// client's, and granted); another error warns: a refusal (a path outside
// the workspace, a denied command) is the client's to make.
func resultVerdict(p *Profile, m *ir.Method, f *frame, err error) (Verdict, string) {
	switch {
	case err != nil:
		return Fail, err.Error()
	case codeIs(f, -32601):
		return Fail, describe(f) + " (the method is the client's, and granted)"
	case f.Error != nil:
		return Warn, describe(f)
	}
	if vs, _ := p.Violations(m.Result.Def, f.Result); len(vs) > 0 {
		return Fail, fmt.Sprintf("/result%s: %s", vs[0].Pointer, vs[0].Reason)
	}
	return Pass, describe(f)
}

// probeFile writes the file the fs requests name: in the session's cwd, so
// that a client enforcing the session's roots may serve it (removed after
// the probes), else in the checker's own folder.
func (s *script) probeFile(session string) string {
	s.mu.Lock()
	cwd := s.cwds[session]
	s.mu.Unlock()
	text := []byte("conformance check\n")
	if st, err := os.Stat(cwd); err == nil && st.IsDir() && filepath.IsAbs(cwd) {
		file := filepath.Join(cwd, ".acpgen-conform-"+s.tag+".txt")
		if os.WriteFile(file, text, 0o644) == nil {
			return file
		}
	}
	file := filepath.Join(s.run.dir, "conform.txt")
	_ = os.WriteFile(file, text, 0o644)
	return file
}

func (s *script) request(method string, params json.RawMessage) (*frame, error) {
	seq := s.pe.seq()
	// Logged before it goes out: a response read at once finds its method.
	id, err := s.pe.sendLogged(method, params, func(id string) { s.run.log.expect(s.tag, id, method) })
	if err != nil {
		return nil, err
	}
	return s.pe.response(s.run.ctx, s.run.o.Timeout, seq, id)
}

// fillClient makes an agent->client example usable: the live session, a
// file the checker wrote, the terminal the client created.
func fillClient(example []byte, session, file, terminal string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(example, &obj) != nil {
		return example
	}
	set := func(k, v string) {
		if _, ok := obj[k]; ok {
			obj[k], _ = json.Marshal(v)
		}
	}
	set("sessionId", session)
	set("path", file)
	if terminal != "" {
		set("terminalId", terminal)
	}
	if _, ok := obj["command"]; ok {
		obj["command"], _ = json.Marshal("true")
	}
	b, _ := json.Marshal(obj)
	return b
}
