package conform

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// script is the scripted agent of one run: it answers the client's
// requests from the schema's examples, echoes prompts as agent_message_chunk
// updates (a prompt word "wait" holds the turn until session/cancel, as
// examples/agent does), and in the probing run sends the client its own
// requests and every kind of session/update during the first turn. A v1
// turn ends with the prompt's response (its stopReason); a v2 turn runs on
// after the response (which says the prompt was inserted) and ends with a
// state_update idle carrying the stop reason.
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

	active atomic.Int32 // requests being answered, turns running
	// busy holds them too, so that a run is judged only once the probes
	// have recorded their cases (a client that dies ends the run early).
	busy   sync.WaitGroup
	mu     sync.Mutex
	first  *frame          // the client's first request
	initRq *frame          // its first initialize request
	client json.RawMessage // the client's initialize params
	// sessions counts session/new; cwds holds each session's cwd and
	// mcpACP the serverId of each ACP-transport MCP server it declares;
	// cancels holds each running turn's; messages counts v2 prompts.
	sessions int
	cwds     map[string]string
	mcpACP   map[string][]string
	cancels  map[string]chan struct{}
	messages int
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
	if s.initRq == nil && f.Method == "initialize" {
		s.initRq = f
	}
	s.mu.Unlock()
	s.active.Add(1)
	s.busy.Add(1)
	go func() {
		defer s.busy.Done()
		defer s.active.Add(-1)
		res, rerr, then := s.answer(f)
		_ = s.pe.write(replyFrame(f.ID, res, rerr))
		if then != nil {
			then() // a v2 turn, after its response
		}
		if s.hangup && f.Method == "initialize" {
			s.mu.Lock()
			s.hung = true
			s.mu.Unlock()
			_ = s.conn.Close()
		}
	}()
}

func rpcErr(code int, msg string) *rpcError { return &rpcError{Code: &code, Message: &msg} }

// answer is the scripted agent's response to a request, and what it does
// once the response is out (a v2 turn), if anything.
func (s *script) answer(f *frame) (any, *rpcError, func()) {
	p := s.run.p
	m := p.Method(f.Method)
	if m == nil || m.Side != "agent" || m.Notification {
		return nil, rpcErr(-32601, "method not found: "+f.Method), nil
	}
	if c := gatedFor(p, m, true, s.init, json.RawMessage(`{}`)); c != "" {
		return nil, rpcErr(-32601, f.Method+": not offered without "+c), nil
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
		return nil, rpcErr(-32602, msg), nil
	}
	switch f.Method {
	case "initialize":
		s.mu.Lock()
		s.client = f.Params
		s.mu.Unlock()
		return s.init, nil, nil
	case "session/new":
		return s.newSession(f), nil, nil
	case "session/prompt":
		if endsInResponse(p.Model.Turn) {
			return map[string]any{"stopReason": s.turn(f, "")}, nil, nil
		}
		res, turn := s.promptV2(f)
		return res, nil, turn
	}
	return json.RawMessage(p.example(m.Result.Def)), nil, nil
}

func (s *script) newSession(f *frame) any {
	s.mu.Lock()
	s.sessions++
	id := fmt.Sprintf("conform-%s-%d", s.tag, s.sessions)
	var np struct {
		Cwd        string `json:"cwd"`
		MCPServers []struct {
			Type     string `json:"type"`
			ServerID string `json:"serverId"`
		} `json:"mcpServers"`
	}
	_ = json.Unmarshal(f.Params, &np)
	if s.cwds == nil {
		s.cwds, s.mcpACP = map[string]string{}, map[string][]string{}
	}
	s.cwds[id] = np.Cwd
	for _, srv := range np.MCPServers {
		if srv.Type == "acp" && srv.ServerID != "" {
			s.mcpACP[id] = append(s.mcpACP[id], srv.ServerID)
		}
	}
	s.mu.Unlock()
	var res map[string]any
	_ = json.Unmarshal(s.run.p.example(s.run.p.Method("session/new").Result.Def), &res)
	res["sessionId"] = id
	return res
}

// promptParams is what the script reads of a session/prompt.
type promptParams struct {
	SessionID string            `json:"sessionId"`
	Prompt    []json.RawMessage `json:"prompt"`
	Context   []struct {
		Title *string `json:"title"`
	} `json:"runtimeContext"`
}

// promptV2 answers a v2 prompt as inserted (its messageId) and returns the
// turn to run after the response: the user message echoed with that id,
// running, the turn, then idle with its stop reason.
func (s *script) promptV2(f *frame) (any, func()) {
	var pr promptParams
	_ = json.Unmarshal(f.Params, &pr)
	s.mu.Lock()
	s.messages++
	user, agent := fmt.Sprintf("conform-user-%s-%d", s.tag, s.messages), fmt.Sprintf("conform-agent-%s-%d", s.tag, s.messages)
	s.mu.Unlock()
	var res map[string]any
	_ = json.Unmarshal(s.run.p.example(s.run.p.Model.Turn.Prompt.Result.Def), &res)
	res["messageId"] = user
	return res, func() {
		s.update(pr.SessionID, map[string]any{"sessionUpdate": "user_message", "messageId": user, "content": pr.Prompt})
		s.update(pr.SessionID, map[string]any{"sessionUpdate": "state_update", "state": "running"})
		stop := s.turn(f, agent)
		s.update(pr.SessionID, map[string]any{"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})
	}
}

// turn runs one prompt turn and returns its stop reason: probes first (once
// per run), then the echo; messageID names the agent's message (v2).
func (s *script) turn(f *frame, messageID string) string {
	var pr promptParams
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
	say := func(text string) { s.chunk(pr.SessionID, messageID, text) }
	if len(pr.Context) > 0 {
		titles := make([]string, len(pr.Context))
		for i, c := range pr.Context {
			titles[i] = "untitled"
			if c.Title != nil {
				titles[i] = *c.Title
			}
		}
		say("context: " + strings.Join(titles, ", ") + "\n")
	}
	sep := ""
	for _, raw := range pr.Prompt {
		var b struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &b)
		for _, w := range strings.Fields(b.Text) {
			if w == "wait" {
				select {
				case <-cancel:
					return "cancelled"
				case <-s.pe.eof:
				case <-time.After(s.run.o.Timeout):
				}
				return "end_turn"
			}
			say(sep + w)
			sep = " "
		}
	}
	return "end_turn"
}

// chunk streams text as an agent_message_chunk (v2: of message messageID).
func (s *script) chunk(session, messageID, text string) {
	u := map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}
	if messageID != "" {
		u["messageId"] = messageID
	}
	s.update(session, u)
}

func (s *script) update(session string, u map[string]any) {
	b, _ := json.Marshal(map[string]any{"sessionId": session, "update": u})
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
	if s.judgeInit {
		s.run.add(s.initFirst())
		s.run.add(s.initValid())
	}
	if s.hangup {
		s.run.add(s.exitCase())
	}
}

// exitCase: ACP says nothing of a client whose agent's stdout ends, so the
// case is informational.
func (s *script) exitCase() Result {
	r := s.run
	res := Result{Category: "exit", Case: "exits when the agent's stdout ends", Level: Info, Source: srcStdio + " (silent)",
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
	return res
}

func (s *script) initFirst() Result {
	res := mustCase(kindClientInitFirst, "", "initialize is the first request", "initialize before any other request")
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
	res := mustCase(kindClientInitParams, "", "initialize offers a protocolVersion",
		fmt.Sprintf("valid InitializeRequest with an integer protocolVersion (this profile: %d)", s.run.p.Protocol))
	s.mu.Lock()
	rq := s.initRq
	s.mu.Unlock()
	if rq == nil {
		res.Observed, res.Verdict = "no initialize", Fail
		return res
	}
	var v struct {
		ProtocolVersion *json.Number `json:"protocolVersion"`
	}
	_ = json.Unmarshal(rq.Params, &v)
	params := rq.Params
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	vs, err := s.run.p.Violations("InitializeRequest", params)
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
