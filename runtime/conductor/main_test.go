package conductor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/proxy"
)

// The test binary doubles as the chain's components, chosen by its first
// argument:
//
//	-component=proxy:NAME           a proxy that forwards everything
//	-component=proxy:NAME:stubborn  the same, which does not exit when its
//	                                stdin ends
//	-component=proxy:NAME:rust      the same, speaking only the Rust SDK's
//	                                names (_proxy/initialize, _proxy/successor)
//	-component=proxy:NAME:rustwrap  the same, taking the schema's
//	                                proxy/initialize but wrapping in, and
//	                                taking only, _proxy/successor
//	-component=acpgen               runtime/proxy as a Proxy Chains component
//	-component=agent                a small v1 agent (agentMain)
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "-component=") {
		os.Exit(runComponentMode(strings.TrimPrefix(os.Args[1], "-component=")))
	}
	code := m.Run()
	if exampleDir != "" {
		os.RemoveAll(exampleDir)
	}
	os.Exit(code)
}

func runComponentMode(mode string) int {
	kind, rest, _ := strings.Cut(mode, ":")
	switch kind {
	case "proxy":
		name, flag, _ := strings.Cut(rest, ":")
		return proxyMain(name, flag)
	case "acpgen":
		return acpgenProxyMain()
	case "agent":
		return agentMain()
	}
	fmt.Fprintln(os.Stderr, "unknown component", mode)
	return 2
}

// msg is any JSON-RPC message, as the test components read and write it.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// wire is the test components' stdio.
type stdio struct {
	sc *bufio.Scanner
	w  *bufio.Writer
}

func newStdio() *stdio {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	return &stdio{sc: sc, w: bufio.NewWriter(os.Stdout)}
}

func (s *stdio) send(m msg) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	s.w.Write(append(b, '\n'))
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// testProxy forwards as the Proxy Chains text says: its predecessor's
// messages through proxy/successor (with an envelope _meta of its own),
// its successor's plainly; its own requests carry ids "NAME-N". It answers
// proxy/initialize with its successor's initialize result, its name added
// to _meta["test/chain"]; it refuses a plain initialize. A $/cancel_request
// of a request it forwarded cancels its own request, and it says so on
// stderr. "_test/raw" sends params.envelope as a proxy/successor request's
// params, answering with what comes back.
type testProxy struct {
	*stdio
	name    string
	init    []string // the proxy/initialize names it takes
	succ    string   // the proxy/successor name it takes and sends
	next    int
	pending map[string]pendingCall // by its own id
	mine    map[string]string      // an inbound request's id -> its own id
}

type pendingCall struct {
	orig json.RawMessage
	init bool
}

func proxyMain(name, flag string) int {
	p := &testProxy{stdio: newStdio(), name: name, pending: map[string]pendingCall{}, mine: map[string]string{},
		init: []string{"proxy/initialize"}, succ: "proxy/successor"}
	switch flag {
	case "rust":
		p.init, p.succ = []string{"_proxy/initialize"}, "_proxy/successor"
	case "rustwrap":
		p.succ = "_proxy/successor"
	}
	stubborn := flag == "stubborn"
	for p.sc.Scan() {
		var m msg
		if err := json.Unmarshal(p.sc.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "%s: bad line %q\n", name, p.sc.Bytes())
			continue
		}
		p.handle(m)
		if p.w.Flush() != nil {
			return 1
		}
	}
	for stubborn {
		time.Sleep(time.Hour)
	}
	return 0
}

func (p *testProxy) handle(m msg) {
	switch {
	case m.Method == "":
		p.answered(m)
	case slices.Contains(p.init, m.Method):
		p.call(m.ID, true, p.succ, p.envelope("initialize", m.Params))
	case m.Method == "initialize":
		p.send(msg{ID: m.ID, Error: raw(map[string]any{"code": -32600, "message": p.name + ": a proxy wants proxy/initialize"})})
	case strings.HasSuffix(m.Method, "proxy/initialize") || strings.HasSuffix(m.Method, "proxy/successor") && m.Method != p.succ:
		// The other dialect's names are unknown methods here.
		fmt.Fprintf(os.Stderr, "%s: unknown method %s\n", p.name, m.Method)
		if m.ID != nil {
			p.send(msg{ID: m.ID, Error: raw(map[string]any{"code": -32601, "message": "Method not found: " + m.Method})})
		}
	case m.Method == p.succ:
		var inner struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(m.Params, &inner)
		p.forward(m.ID, inner.Method, inner.Params)
	case m.Method == "$/cancel_request":
		p.cancel(m.Params)
	case m.Method == "_test/raw":
		var r struct{ Envelope json.RawMessage }
		json.Unmarshal(m.Params, &r)
		p.call(m.ID, false, p.succ, r.Envelope)
	default:
		p.forward(m.ID, p.succ, p.envelope(m.Method, m.Params))
	}
}

// envelope wraps a message for the successor, with an envelope _meta that
// must never reach it.
func (p *testProxy) envelope(method string, params json.RawMessage) json.RawMessage {
	e := map[string]any{"method": method, "_meta": map[string]string{"hop": p.name}}
	if params != nil {
		e["params"] = params
	}
	return raw(e)
}

// forward sends a request (id set) or notification on.
func (p *testProxy) forward(id json.RawMessage, method string, params json.RawMessage) {
	if id == nil {
		p.send(msg{Method: method, Params: params})
		return
	}
	p.call(id, false, method, params)
}

func (p *testProxy) call(orig json.RawMessage, init bool, method string, params json.RawMessage) {
	p.next++
	own := raw(fmt.Sprintf("%s-%d", p.name, p.next))
	p.pending[string(own)] = pendingCall{orig: orig, init: init}
	p.mine[string(orig)] = string(own)
	p.send(msg{ID: own, Method: method, Params: params})
}

func (p *testProxy) answered(m msg) {
	c, ok := p.pending[string(m.ID)]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: response to no request %s\n", p.name, m.ID)
		return
	}
	delete(p.pending, string(m.ID))
	delete(p.mine, string(c.orig))
	if c.init && m.Result != nil {
		m.Result = withChain(m.Result, p.name)
	}
	p.send(msg{ID: c.orig, Result: m.Result, Error: m.Error})
}

func (p *testProxy) cancel(params json.RawMessage) {
	var c struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(params, &c)
	own, ok := p.mine[string(c.RequestID)]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: cancel of an unknown request %s\n", p.name, c.RequestID)
		return
	}
	fmt.Fprintf(os.Stderr, "%s: cancelled %s as %s\n", p.name, c.RequestID, own)
	p.send(msg{Method: "$/cancel_request", Params: raw(map[string]json.RawMessage{"requestId": json.RawMessage(own)})})
}

// acpgenProxyMain runs runtime/proxy, intercepting nothing, as a Proxy
// Chains component on stdio.
func acpgenProxyMain() int {
	pred, succ := proxy.Component(proxy.Stream(os.Stdin, os.Stdout))
	if err := proxy.New(proxy.Options{}).Run(context.Background(), pred, succ); err != nil {
		fmt.Fprintln(os.Stderr, "acpgen proxy:", err)
		return 1
	}
	return 0
}

// withChain adds name in front of result._meta["test/chain"].
func withChain(result json.RawMessage, name string) json.RawMessage {
	var r map[string]json.RawMessage
	json.Unmarshal(result, &r)
	var meta map[string]json.RawMessage
	json.Unmarshal(r["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	var chain []string
	json.Unmarshal(meta["test/chain"], &chain)
	meta["test/chain"] = raw(append([]string{name}, chain...))
	r["_meta"] = raw(meta)
	return raw(r)
}

// exampleAgent builds examples/agent once.
var (
	exampleDir   string
	exampleOnce  sync.Once
	exampleBuilt string
	exampleErr   error
)

func exampleAgent(t *testing.T) string {
	exampleOnce.Do(func() {
		exampleDir, exampleErr = os.MkdirTemp("", "conductor-agent")
		if exampleErr != nil {
			return
		}
		exampleBuilt = filepath.Join(exampleDir, "agent")
		out, err := exec.Command("go", "build", "-o", exampleBuilt, "github.com/acpgen/acpgen/examples/agent").CombinedOutput()
		if err != nil {
			exampleErr = fmt.Errorf("building examples/agent: %v\n%s", err, out)
		}
	})
	if exampleErr != nil {
		t.Fatal(exampleErr)
	}
	return exampleBuilt
}
