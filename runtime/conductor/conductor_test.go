package conductor

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// A prompt turn through two proxies to examples/agent: each proxy got
// proxy/initialize and the agent initialize (each proxy added its name to
// the answer the editor gets, the first one's); the turn's updates arrive
// in order, all before its response.
func TestPromptTurnThroughTwoProxies(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b"), {exampleAgent(t)}}})
	init := e.initialize()
	var r struct {
		AgentInfo struct{ Name string }
		Meta      struct {
			Chain []string `json:"test/chain"`
		} `json:"_meta"`
	}
	json.Unmarshal(init, &r)
	if !reflect.DeepEqual(r.Meta.Chain, []string{"a", "b"}) || r.AgentInfo.Name != "acpgen-example-agent" {
		t.Fatalf("initialize result %s: want the chain [a b] in front of the example agent", init)
	}
	const words = 200
	var prompt []string
	for i := range words {
		prompt = append(prompt, fmt.Sprintf("w%d", i))
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":` + e.session + `,"prompt":[{"type":"text","text":"` + strings.Join(prompt, " ") + `"}]}}`)
	for i := range words {
		m := e.next()
		want := fmt.Sprintf("w%d", i)
		if i > 0 {
			want = " " + want
		}
		if m.Method != "session/update" || chunkText(m) != want {
			t.Fatalf("message %d of the turn: %s %s %s, want the update %q", i, m.Method, m.Params, m.Result, want)
		}
	}
	if m := e.response("2"); !strings.Contains(string(m.Result), `"end_turn"`) {
		t.Fatalf("prompt response %s", m.Result)
	}
	if o := e.end(); o.err != nil || o.res.Ended != nil {
		t.Fatalf("after the editor's end: %+v, %v", o.res, o.err)
	}
}

// started waits for the running turn's "go" update.
func (e *editor) started() {
	e.t.Helper()
	if m := e.next(); m.Method != "session/update" || chunkText(m) != "go" {
		e.t.Fatalf("got %+v, want the turn's first update", m)
	}
}

func chunkText(m msg) string {
	var p struct {
		Update struct {
			Content struct{ Text string }
		}
	}
	json.Unmarshal(m.Params, &p)
	return p.Update.Content.Text
}

// The editor's $/cancel_request of a prompt is cancelled hop by hop: each
// proxy gets a cancel for the id the conductor gave the request on its
// connection (never the editor's string id), cancels its own, and the
// agent's -32800 comes back unchanged. session/cancel travels as an
// ordinary notification and ends the turn with stopReason cancelled.
func TestCancelEveryHop(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b"), {exampleAgent(t)}}})
	e.initialize()
	sid := e.session
	// "go" streams an update before the turn waits: the cancel is sent once
	// the turn runs.
	prompt := `{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":` + sid + `,"prompt":[{"type":"text","text":"go wait"}]}}`
	e.send(prompt)
	e.started()
	e.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p1"}}`)
	if got := errorOf(t, e.response(`"p1"`)); got.Code != -32800 {
		t.Fatalf("cancelled prompt: %+v, want -32800", got)
	}
	stderr := e.stderr.String()
	for _, hop := range []string{"] a: cancelled ", "] b: cancelled "} {
		if !strings.Contains(stderr, hop) {
			t.Errorf("no %q on stderr: a hop did not cancel its own request:\n%s", hop, stderr)
		}
	}
	if strings.Contains(stderr, "cancel of an unknown request") {
		t.Errorf("a hop got a cancel for an id not its own:\n%s", stderr)
	}
	e.send(strings.Replace(prompt, `"p1"`, `"p2"`, 1))
	e.started()
	e.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":` + sid + `}}`)
	if m := e.response(`"p2"`); !strings.Contains(string(m.Result), `"cancelled"`) {
		t.Fatalf("prompt after session/cancel: %s %s, want stopReason cancelled", m.Result, m.Error)
	}
	e.end()
}

// A request of the agent's to the client (session/request_permission)
// crosses both proxies to the editor as itself, and the editor's answer
// goes back to the agent.
func TestAgentRequestThroughChain(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b"), self(t, "agent")}})
	e.initialize()
	e.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"ask"}]}}`)
	req := e.next()
	var p struct {
		SessionID string
		ToolCall  struct{ ToolCallID string }
	}
	json.Unmarshal(req.Params, &p)
	if req.Method != "session/request_permission" || req.ID == nil || p.SessionID != "s1" || p.ToolCall.ToolCallID != "t1" {
		t.Fatalf("got %+v, want the agent's session/request_permission", req)
	}
	e.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	if m := e.next(); chunkText(m) != "chose allow" {
		t.Fatalf("got %+v, want the update naming the chosen option", m)
	}
	if m := e.response("2"); !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("prompt response %+v", m)
	}
	e.end()
}

// The proxy/successor envelope's _meta is hop-local: the agent gets the
// editor's params exactly, though each proxy put a _meta of its own on its
// envelope.
func TestEnvelopeMetaHopLocal(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b"), self(t, "agent")}})
	e.initialize()
	params := `{"x":[1,2],"_meta":{"inner":true}}`
	e.send(`{"jsonrpc":"2.0","id":2,"method":"_test/echo","params":` + params + `}`)
	if m := e.response("2"); !jsonEqual(m.Result, []byte(params)) {
		t.Fatalf("the agent got %s, want %s", m.Result, params)
	}
	e.end()
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// A component that exits ends the chain: every request of the editor's
// still waiting gets the conductor's error naming the component and its
// status; a proxy that ignores the end of its stdin is killed; Run reports
// which component ended the chain. Components' stderr arrives prefixed.
func TestComponentExitEndsChain(t *testing.T) {
	e := startChain(t, Options{Grace: time.Second,
		Components: [][]string{self(t, "proxy:a:stubborn"), self(t, "agent")}})
	e.initialize()
	e.send(`{"jsonrpc":"2.0","id":"hang","method":"_test/hang","params":{}}`)
	e.send(`{"jsonrpc":"2.0","id":"die","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"die"}]}}`)
	got := map[string]rpcError{}
	for range 2 {
		m := e.next()
		got[string(m.ID)] = errorOf(t, m)
	}
	for _, id := range []string{`"hang"`, `"die"`} {
		err := got[id]
		var data struct{ Component, ExitStatus int }
		json.Unmarshal(err.Data, &data)
		if err.Code != -32603 || !strings.Contains(err.Message, "component 2 (") || !strings.Contains(err.Message, "exited with status 7") ||
			data.Component != 2 || data.ExitStatus != 7 {
			t.Errorf("request %s: %+v, want -32603 naming component 2 and status 7", id, err)
		}
	}
	o := e.wait()
	if o.err != nil || o.res.Ended == nil || o.res.Ended.Component != 2 || o.res.Ended.Status != 7 {
		t.Fatalf("Run: %+v, %v; want the chain ended by component 2", o.res, o.err)
	}
	if a := o.res.Exits[0]; !a.Killed {
		t.Errorf("the stubborn proxy: %+v, want killed", a)
	}
	if !strings.Contains(e.stderr.String(), "[2 conductor.test] agent: dying\n") {
		t.Errorf("stderr lacks the agent's prefixed line:\n%s", e.stderr)
	}
}

// Bad proxy/successor envelopes are answered with the conductor's own
// -32602 (params that are not even JSON-RPC params with -32600, and
// proxy/successor from the agent, which has no successor, with -32601); the
// chain goes on.
func TestBadEnvelope(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "agent")}})
	e.initialize()
	e.send(`{"jsonrpc":"2.0","id":9,"method":"_test/raw","params":{"envelope":"x"}}`)
	if err := errorOf(t, e.response("9")); err.Code != -32600 {
		t.Errorf("envelope \"x\": %+v, want -32600", err)
	}
	for i, envelope := range []string{
		`null`,
		`{"params":{}}`,
		`{"method":5}`,
		`{"method":"_x","params":5}`,
		`{"method":"proxy/initialize","params":{}}`,
		`{"method":"$/cancel_request","params":{"requestId":1}}`,
	} {
		e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_test/raw","params":{"envelope":%s}}`, 10+i, envelope))
		err := errorOf(t, e.response(fmt.Sprint(10+i)))
		if err.Code != -32602 || !strings.Contains(err.Message, "proxy/successor") {
			t.Errorf("envelope %s: %+v, want the conductor's -32602", envelope, err)
		}
	}
	e.send(`{"jsonrpc":"2.0","id":20,"method":"_test/successor","params":{}}`)
	var got rpcError
	if m := e.response("20"); json.Unmarshal(m.Result, &got) != nil || got.Code != -32601 {
		t.Errorf("proxy/successor from the agent: %s, want -32601", m.Result)
	}
	e.send(`{"jsonrpc":"2.0","id":21,"method":"_test/echo","params":{"still":"here"}}`)
	if m := e.response("21"); !jsonEqual(m.Result, []byte(`{"still":"here"}`)) {
		t.Errorf("after the bad envelopes: %+v", m)
	}
	e.end()
}

// Frames that are not JSON-RPC are answered as a jsonrpc.Conn answers them.
func TestBadFrames(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "agent")}})
	for _, c := range []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
		{`[1]`, -32600, "null"},
		{`{"jsonrpc":"1.0","id":1,"method":"x"}`, -32600, "1"},
		{`{"jsonrpc":"2.0","id":3,"method":"x","params":5}`, -32600, "3"},
		{`{"jsonrpc":"2.0","id":3,"result":1,"error":{}}`, -32600, "null"},
	} {
		e.send(c.line)
		m := e.next()
		if got := errorOf(t, m); got.Code != c.code || string(m.ID) != c.id {
			t.Errorf("%s: answered %s %+v, want %d with id %s", c.line, m.ID, got, c.code, c.id)
		}
	}
	e.end()
}

// Past jsonrpc.MaxAwaited unanswered requests on one connection, a request is
// refused with jsonrpc.CodeOverloaded instead of growing the tables.
func TestPendingBounded(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "agent")}})
	for i := range jsonrpc.MaxAwaited + 1 {
		e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_test/hang","params":{}}`, i))
	}
	m := e.response(fmt.Sprint(jsonrpc.MaxAwaited))
	if got := errorOf(t, m); got.Code != int(jsonrpc.CodeOverloaded) {
		t.Fatalf("request %d: %+v, want overloaded", jsonrpc.MaxAwaited, got)
	}
	e.end()
}

// A component that cannot start stops the ones started, and Run says
// which.
func TestStartFailure(t *testing.T) {
	_, err := Run(t.Context(), Options{Components: [][]string{self(t, "agent"), {"/nonexistent/agent"}}})
	if err == nil || !strings.Contains(err.Error(), "component 2 (agent)") {
		t.Fatalf("Run: %v, want an error naming component 2", err)
	}
}

// The editor cannot speak as a component's successor or as the conductor:
// proxy/successor and proxy/initialize from the editor are answered
// -32601 by the conductor, as an agent answers a method it does not have,
// and reach no component (a proxy would take the first for a message of
// its successor's).
func TestEditorProxyMethodsRefused(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "agent")}})
	e.initialize()
	for i, line := range []string{
		`"method":"proxy/successor","params":{"method":"_test/echo","params":{"forged":true}}`,
		`"method":"proxy/initialize","params":{"protocolVersion":1,"clientCapabilities":{}}`,
	} {
		e.send(`{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":{}}}`)
		e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, 30+i, line))
		err := errorOf(t, e.response(fmt.Sprint(30+i)))
		if err.Code != -32601 || !strings.Contains(err.Message, "proxy/") {
			t.Errorf("%s from the editor: %+v, want the conductor's -32601", line, err)
		}
	}
	e.send(`{"jsonrpc":"2.0","id":40,"method":"_test/echo","params":{"still":"here"}}`)
	if m := e.response("40"); !jsonEqual(m.Result, []byte(`{"still":"here"}`)) {
		t.Errorf("after the refusals: %+v", m)
	}
	if s := e.stderr.String(); strings.Contains(s, "response to no request") {
		t.Errorf("a component got a refused message:\n%s", s)
	}
	e.end()
}

// A component that refuses proxy/initialize is most likely not running as
// a Proxy Chains component (a proxy started as if it fronted an agent, or
// an agent placed before the last position): its error reaches the editor
// unchanged, and the conductor's log says what to check.
func TestProxyInitializeRefusalExplained(t *testing.T) {
	log := &syncBuffer{}
	e := startChain(t, Options{Components: [][]string{self(t, "agent"), self(t, "agent")},
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	e.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if err := errorOf(t, e.response("0")); err.Code != -32601 || !strings.Contains(err.Message, "proxy/initialize") {
		t.Errorf("initialize: %+v, want the first component's own -32601", err)
	}
	e.end()
	name := filepath.Base(self(t, "agent")[0])
	for _, want := range []string{"component 1 (" + name + ") refused proxy/initialize", "Proxy Chains component", "-component"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the conductor's log lacks %q:\n%s", want, log)
		}
	}
}

// A request whose id is longer than jsonrpc.MaxIDLength is refused -32600 (id
// null) and goes no further: the conductor keeps every forwarded request's
// id until its answer, so unbounded ids would make jsonrpc.MaxAwaited no bound.
func TestLongIDRefused(t *testing.T) {
	e := startChain(t, Options{Components: [][]string{self(t, "agent")}})
	long := `"` + strings.Repeat("i", jsonrpc.MaxIDLength) + `"`
	e.send(`{"jsonrpc":"2.0","id":` + long + `,"method":"_test/echo","params":{}}`)
	m := e.next()
	if err := errorOf(t, m); err.Code != -32600 || string(m.ID) != "null" || !strings.Contains(string(err.Data), "id") {
		t.Errorf("a %d-byte id: %s %+v, want -32600 with id null", len(long), m.ID, err)
	}
	fits := `"` + strings.Repeat("i", jsonrpc.MaxIDLength-2) + `"`
	e.send(`{"jsonrpc":"2.0","id":` + fits + `,"method":"_test/echo","params":{"ok":1}}`)
	if m := e.response(fits); !jsonEqual(m.Result, []byte(`{"ok":1}`)) {
		t.Errorf("a %d-byte id: %+v, want the echo", len(fits), m)
	}
	e.end()
}
