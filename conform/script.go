package conform

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// script is the scripted agent of one run: it answers the client's
// requests from the schema's examples, echoes prompts as agent_message_chunk
// updates (a prompt word "wait" holds the turn until session/cancel, as
// examples/agent does), and in the probing run sends the client its own
// requests and every kind of session/update during the first turn.
type script struct {
	run       *clientRun
	tag       string
	label     string
	init      json.RawMessage // the initialize result it answers with
	judgeInit bool            // record the initialize cases
	probe     bool            // send requests and notifications
	hangup    bool            // end stdout after answering initialize
	pe        *peer
	conn      net.Conn

	active atomic.Int32 // requests being answered
	mu     sync.Mutex
	first  *frame          // the client's first request
	client json.RawMessage // the client's initialize params
	// sessions counts session/new; cwds holds each session's cwd;
	// cancels holds each waiting turn.
	sessions int
	cwds     map[string]string
	cancels  map[string]chan struct{}
	probed   bool
	hung     bool
}

func (s *script) onFrame(f *frame) {
	if f.Bad != "" || f.Method == "" {
		return
	}
	if len(f.ID) == 0 {
		if f.Method == "session/cancel" {
			s.mu.Lock()
			if ch := s.cancels[sessionOf(f)]; ch != nil {
				close(ch)
				delete(s.cancels, sessionOf(f))
			}
			s.mu.Unlock()
		}
		return
	}
	s.mu.Lock()
	if s.first == nil {
		s.first = f
	}
	s.mu.Unlock()
	s.active.Add(1)
	go func() {
		defer s.active.Add(-1)
		res, rerr := s.answer(f)
		_ = s.pe.write(replyFrame(f.ID, res, rerr))
		if s.hangup && f.Method == "initialize" {
			s.mu.Lock()
			s.hung = true
			s.mu.Unlock()
			_ = s.conn.Close()
		}
	}()
}

func rpcErr(code int, msg string) *rpcError { return &rpcError{Code: &code, Message: &msg} }

func (s *script) answer(f *frame) (any, *rpcError) {
	p := s.run.p
	m := p.Method(f.Method)
	if m == nil || m.Side != "agent" || m.Notification {
		return nil, rpcErr(-32601, "method not found: "+f.Method)
	}
	if c := gatedFor(p, m, true, s.init, json.RawMessage(`{}`)); c != "" {
		return nil, rpcErr(-32601, f.Method+": not offered without "+c)
	}
	params := f.Params
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	if vs, err := p.Violations(m.Params.Def, params); err != nil || len(vs) > 0 {
		msg := "invalid params"
		if len(vs) > 0 {
			msg += ": /params" + vs[0].Pointer + ": " + vs[0].Reason
		}
		return nil, rpcErr(-32602, msg)
	}
	switch f.Method {
	case "initialize":
		s.mu.Lock()
		s.client = f.Params
		s.mu.Unlock()
		return s.init, nil
	case "session/new":
		s.mu.Lock()
		s.sessions++
		id := fmt.Sprintf("conform-%s-%d", s.tag, s.sessions)
		var np struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(f.Params, &np)
		if s.cwds == nil {
			s.cwds = map[string]string{}
		}
		s.cwds[id] = np.Cwd
		s.mu.Unlock()
		var res map[string]any
		_ = json.Unmarshal(p.example(m.Result.Def), &res)
		res["sessionId"] = id
		return res, nil
	case "session/prompt":
		return s.prompt(f), nil
	}
	return json.RawMessage(p.example(m.Result.Def)), nil
}

// prompt runs one turn: probes first (once), then the echo.
func (s *script) prompt(f *frame) any {
	var pr struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
		RuntimeContext []struct {
			Title *string `json:"title"`
		} `json:"runtimeContext"`
	}
	_ = json.Unmarshal(f.Params, &pr)
	cancel := make(chan struct{})
	s.mu.Lock()
	s.cancels[pr.SessionID] = cancel
	probe := s.probe && !s.probed
	s.probed = true
	s.mu.Unlock()
	if probe {
		s.probes(pr.SessionID)
	}
	if len(pr.RuntimeContext) > 0 {
		titles := make([]string, len(pr.RuntimeContext))
		for i, c := range pr.RuntimeContext {
			titles[i] = "untitled"
			if c.Title != nil {
				titles[i] = *c.Title
			}
		}
		s.chunk(pr.SessionID, "context: "+strings.Join(titles, ", ")+"\n")
	}
	sep := ""
	for _, b := range pr.Prompt {
		for _, w := range strings.Fields(b.Text) {
			if w == "wait" {
				select {
				case <-cancel:
					return map[string]any{"stopReason": "cancelled"}
				case <-s.pe.eof:
				case <-time.After(s.run.o.Timeout):
				}
				return map[string]any{"stopReason": "end_turn"}
			}
			s.chunk(pr.SessionID, sep+w)
			sep = " "
		}
	}
	return map[string]any{"stopReason": "end_turn"}
}

func (s *script) chunk(session, text string) {
	b, _ := json.Marshal(map[string]any{"sessionId": session,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}})
	_ = s.pe.notify("session/update", b)
}

// drive waits until the client closes the agent's stdin, exits, or has
// been idle (nothing sent, nothing being answered) for a case's timeout.
func (s *script) drive() {
	for {
		s.pe.mu.Lock()
		ch := s.pe.changed
		s.pe.mu.Unlock()
		select {
		case <-s.pe.eof:
			return
		case <-s.pe.exited:
			return
		case <-ch:
		case <-time.After(s.run.o.Timeout):
			if s.active.Load() == 0 {
				return
			}
		}
	}
}

// judge records the cases this run owns once it is over.
func (s *script) judge() {
	r := s.run
	if s.judgeInit {
		r.add(s.initFirst())
		r.add(s.initValid())
	}
	if s.hangup {
		res := Result{Category: "exit", Case: "exits when the agent's stdout ends", Level: Should, Source: "ACP transports: stdio",
			Expected: fmt.Sprintf("process exits within %s, without a crash", r.o.Timeout)}
		s.mu.Lock()
		hung := s.hung
		s.mu.Unlock()
		select {
		case <-s.pe.exited:
			res.Observed, res.Verdict = "exited", Pass
			if e := s.pe.stderr.String(); strings.Contains(e, "panic:") || strings.Contains(e, "fatal error:") {
				res.Observed, res.Verdict = "crashed: "+lastLine(e), Fail
			}
		default:
			res.Observed, res.Verdict = "still running (process group killed)", Fail
		}
		if !hung {
			res.Observed, res.Verdict = "the client sent no initialize to answer", Fail
		}
		r.add(res)
	}
}

func (s *script) initFirst() Result {
	res := Result{Category: "initialize", Case: "initialize is the first request", Level: Must, Source: "ACP initialization",
		Expected: "initialize before any other request"}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.first == nil:
		res.Observed, res.Verdict = "no request", Fail
	case s.first.Method != "initialize":
		res.Observed, res.Verdict = "first request: "+s.first.Method, Fail
	default:
		res.Observed, res.Verdict = "initialize", Pass
	}
	return res
}

func (s *script) initValid() Result {
	res := Result{Category: "initialize", Case: "initialize offers a protocolVersion", Level: Must,
		Source:   "ACP initialization: version negotiation; schema $defs/InitializeRequest",
		Expected: fmt.Sprintf("valid InitializeRequest with an integer protocolVersion (this profile: %d)", s.run.p.Protocol)}
	s.mu.Lock()
	first := s.first
	s.mu.Unlock()
	if first == nil || first.Method != "initialize" {
		res.Observed, res.Verdict = "no initialize", Fail
		return res
	}
	var v struct {
		ProtocolVersion *json.Number `json:"protocolVersion"`
	}
	_ = json.Unmarshal(first.Params, &v)
	vs, err := s.run.p.Violations("InitializeRequest", first.Params)
	switch {
	case err != nil:
		res.Observed, res.Verdict = err.Error(), Fail
	case len(vs) > 0:
		res.Observed, res.Verdict = "/params"+vs[0].Pointer+": "+vs[0].Reason, Fail
	case v.ProtocolVersion == nil:
		res.Observed, res.Verdict = "no protocolVersion", Fail
	default:
		res.Observed, res.Verdict = "protocolVersion "+v.ProtocolVersion.String(), Pass
	}
	return res
}

// probes runs during the first turn of the probing run: every kind of
// session/update the client granted, an unknown variant and an extension
// notification, then every agent->client request, then unknown methods.
// The client answering those requests shows it survived the notifications.
func (s *script) probes(session string) {
	r := s.run
	s.mu.Lock()
	granted := s.client
	s.mu.Unlock()
	sent := s.notifications(session, granted)
	seq := s.pe.seq()
	s.requests(session, granted)
	res := Result{Category: "notifications", Case: fmt.Sprintf("accepts %d session/update kinds, an unknown variant, an _ notification", sent),
		Level: Must, Source: "ACP prompt turn; ACP extensibility; schema $defs/SessionNotification",
		Expected: "no failure: the next requests are answered"}
	answered := 0
	for _, f := range s.pe.since(seq) {
		if f.isResponse() {
			answered++
		}
	}
	switch {
	case answered > 0:
		res.Observed, res.Verdict = fmt.Sprintf("%d later requests answered", answered), Pass
	case isClosed(s.pe.exited):
		res.Observed, res.Verdict = "the client exited: "+lastLine(s.pe.stderr.String()), Fail
	default:
		res.Observed, res.Verdict = "no later request answered", Fail
	}
	r.add(res)
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// notifications sends one session/update per variant (its full example,
// else its minimal one, whichever the client's capabilities allow), apart
// from agent_message_chunk, which the echo sends. It returns how many.
func (s *script) notifications(session string, granted json.RawMessage) int {
	p := s.run.p
	m := p.Method("session/update")
	if m == nil {
		return 0
	}
	exs := p.examples["SessionUpdate"]
	var names []string
	for n := range exs {
		if strings.HasPrefix(n, "variant:") && !strings.HasSuffix(n, "/minimal") && n != "variant:agent_message_chunk" {
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
	unknown, _ := json.Marshal(map[string]any{"sessionId": session,
		"update": map[string]any{"sessionUpdate": "acpgen_conform_unknown", "note": "a variant of a later schema"}})
	_ = s.pe.notify("session/update", unknown)
	_ = s.pe.notify("_acpgen/conform_note", json.RawMessage(`{}`))
	return sent
}

// requests sends every agent->client request whose capability the client
// granted, its example filled in, and checks the answers.
func (s *script) requests(session string, granted json.RawMessage) {
	r := s.run
	file := s.probeFile(session)
	defer os.Remove(file)
	terminal := ""
	for _, m := range r.p.Model.Methods {
		if m.Side != "client" || m.Notification {
			continue
		}
		params := fillClient(r.p.example(m.Params.Def), session, file, terminal)
		src := "schema $defs/" + m.Params.Def + ", " + m.Result.Def
		if c := gatedFor(r.p, m, false, granted, params); c != "" {
			r.add(Result{Category: "requests", Case: m.Wire, Level: Must, Source: "capability " + c,
				Expected: "not sent: the client does not advertise it", Observed: "-", Verdict: Skipped})
			continue
		}
		res := Result{Category: "requests", Case: m.Wire, Level: Must, Source: src,
			Expected: "result valid against " + m.Result.Def}
		f, err := s.request(m.Wire, params)
		switch {
		case err != nil:
			res.Observed, res.Verdict = err.Error(), Fail
		case codeIs(f, -32601):
			res.Observed, res.Verdict = describe(f)+" (the method is the client's, and granted)", Fail
		case f.Error != nil:
			// A refusal (a path outside the workspace, a denied
			// command) is the client's to make.
			res.Observed, res.Verdict = describe(f), Warn
		default:
			res.Observed, res.Verdict = describe(f), Pass
			if vs, _ := r.p.Violations(m.Result.Def, f.Result); len(vs) > 0 {
				res.Observed, res.Verdict = fmt.Sprintf("/result%s: %s", vs[0].Pointer, vs[0].Reason), Fail
			}
			var t struct {
				TerminalID string `json:"terminalId"`
			}
			if m.Wire == "terminal/create" && json.Unmarshal(f.Result, &t) == nil {
				terminal = t.TerminalID
			}
		}
		r.add(res)
	}
	r.unknownRequests(s.request)
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
