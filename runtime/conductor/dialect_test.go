package conductor

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/proxychain"
)

// turnThrough runs initialize, then a turn in which the agent asks the
// editor for permission: the editor's messages go down the chain wrapped
// by each proxy, the agent's request comes up wrapped by the conductor
// toward each proxy. chain is the proxies' names initialize's answer must
// carry. No component may have met a method name it does not take.
func turnThrough(t *testing.T, e *editor, chain []string) {
	t.Helper()
	init := e.initialize()
	var r struct {
		Meta struct {
			Chain []string `json:"test/chain"`
		} `json:"_meta"`
	}
	json.Unmarshal(init, &r)
	if !reflect.DeepEqual(r.Meta.Chain, chain) {
		t.Fatalf("initialize result %s: want the chain %v", init, chain)
	}
	e.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":` + e.session + `,"prompt":[{"type":"text","text":"ask"}]}}`)
	req := e.next()
	if req.Method != "session/request_permission" || req.ID == nil {
		t.Fatalf("got %+v, want the agent's session/request_permission", req)
	}
	e.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
	if m := e.next(); chunkText(m) != "chose allow" {
		t.Fatalf("got %+v, want the update naming the chosen option", m)
	}
	if m := e.response("2"); !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("prompt response %+v", m)
	}
	if o := e.end(); o.err != nil || o.res.Ended != nil {
		t.Fatalf("after the editor's end: %+v, %v", o.res, o.err)
	}
	if s := e.stderr.String(); strings.Contains(s, "unknown method") {
		t.Errorf("a component met a name of the other dialect:\n%s", s)
	}
}

// With Names set to the Rust SDK's dialect, the conductor initializes each
// proxy with _proxy/initialize and wraps in _proxy/successor: a chain of
// proxies that know only those names (as the Rust SDK's do) carries a
// turn both ways. The editor cannot use those names either.
func TestRustDialectProxies(t *testing.T) {
	e := startChain(t, Options{Names: proxychain.Rust,
		Components: [][]string{self(t, "proxy:a:rust"), self(t, "proxy:b:rust"), self(t, "agent")}})
	for i, name := range []string{"_proxy/successor", "_proxy/initialize"} {
		e.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"method":"_test/echo","params":{}}}`, 30+i, name))
		if err := errorOf(t, e.response(fmt.Sprint(30+i))); err.Code != -32601 {
			t.Errorf("%s from the editor: %+v, want the conductor's -32601", name, err)
		}
	}
	turnThrough(t, e, []string{"a", "b"})
}

// Under the default (the schema's names), a proxy that takes
// proxy/initialize but speaks _proxy/successor gets what the conductor
// wraps for it in _proxy/successor, while the proxy before it gets
// proxy/successor: the conductor answers each in the dialect it used.
// Under the Rust names, acpgen's own proxy (runtime/proxy, default
// options) and a Rust-only proxy share a chain.
func TestMixedDialectChain(t *testing.T) {
	t.Run("schema conductor", func(t *testing.T) {
		e := startChain(t, Options{Components: [][]string{self(t, "proxy:a"), self(t, "proxy:b:rustwrap"), self(t, "agent")}})
		turnThrough(t, e, []string{"a", "b"})
	})
	t.Run("rust conductor", func(t *testing.T) {
		e := startChain(t, Options{Names: proxychain.Rust,
			Components: [][]string{self(t, "acpgen"), self(t, "proxy:b:rust"), self(t, "agent")}})
		turnThrough(t, e, []string{"b"})
	})
	t.Run("schema conductor, acpgen proxy", func(t *testing.T) {
		e := startChain(t, Options{Components: [][]string{self(t, "acpgen"), self(t, "proxy:b"), self(t, "agent")}})
		turnThrough(t, e, []string{"b"})
	})
}
