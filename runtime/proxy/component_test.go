package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/acpgen/acpgen/runtime/wire"
)

// conductor is a minimal Proxy Chains conductor for one proxy between an
// editor and an agent, on raw frames, written from the schema's text: the
// editor's initialize goes to the proxy as proxy/initialize; what the
// proxy wraps in proxy/successor goes to the agent unwrapped; what the
// agent sends goes to the proxy wrapped, under ids of the conductor's
// own. It records what it sent the proxy and the agent. It speaks one
// dialect of the method names (names) and takes no other: a successor
// message in the other one is an error.
type conductor struct {
	t                   *testing.T
	names               proxychain.Dialect
	editor, proxy, agen link
	mu                  sync.Mutex
	toProxy, toAgent    []string
	wrapped             map[string]bool   // ids of proxy/successor requests the proxy sent
	unwrapped           int               // successor messages from the proxy
	agentIDs            map[string]string // conductor id -> the agent's id
	n                   int
}

func (c *conductor) send(l link, line string, log *[]string) {
	c.mu.Lock()
	*log = append(*log, line)
	c.mu.Unlock()
	io.WriteString(l.w, line+"\n")
}

// pump reads l and hands each line to route until l ends.
func (c *conductor) pump(l link, route func(string, jsonrpc.Envelope)) {
	br := bufio.NewReader(l.r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSpace(line)
		env, err := jsonrpc.PeekEnvelope([]byte(line))
		if err != nil {
			c.t.Errorf("conductor got %q: %v", line, err)
			return
		}
		route(line, env)
	}
}

func (c *conductor) fromEditor(line string, env jsonrpc.Envelope) {
	if env.Name == "initialize" {
		line = strings.Replace(line, `"method":"initialize"`, `"method":"`+c.names.Name(proxychain.Initialize)+`"`, 1)
	}
	var sink []string
	c.send(c.proxy, line, &sink)
}

func (c *conductor) fromProxy(line string, env jsonrpc.Envelope) {
	var sink []string
	m, d := proxychain.Of(env.Name)
	switch {
	case m != proxychain.None && d != c.names:
		// As a conductor of the other dialect would: an unknown method.
		c.t.Errorf("a %s-dialect conductor got %s", c.names, line)
		if env.ID != nil {
			b, _ := jsonrpc.AppendError(nil, env.ID, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"})
			c.send(c.proxy, strings.TrimSpace(string(b)), &sink)
		}
	case m == proxychain.Successor:
		var inner struct {
			Method string   `json:"method"`
			Params wire.Raw `json:"params"`
		}
		if err := jsonUnmarshal(env.Params, &inner); err != nil {
			c.t.Errorf("proxy/successor params %s: %v", env.Params, err)
			return
		}
		c.mu.Lock()
		c.unwrapped++
		if env.ID != nil {
			c.wrapped[string(env.ID)] = true
		}
		c.mu.Unlock()
		c.send(c.agen, string(frame(env.ID, inner.Method, inner.Params)), &c.toAgent)
	case env.Name == "$/cancel_request":
		id, _ := requestIDOf(env.Params)
		c.mu.Lock()
		toAgent := c.wrapped[id]
		c.mu.Unlock()
		if toAgent {
			c.send(c.agen, line, &c.toAgent) // the conductor cancels its own request to the agent
		} else {
			c.send(c.editor, line, &sink)
		}
	case env.Method == nil && strings.HasPrefix(string(env.ID), `"c-`):
		c.mu.Lock()
		id := c.agentIDs[string(env.ID)]
		c.mu.Unlock()
		c.send(c.agen, strings.Replace(line, `"id":`+string(env.ID), `"id":`+id, 1), &c.toAgent)
	default:
		c.send(c.editor, line, &sink)
	}
}

func (c *conductor) fromAgent(line string, env jsonrpc.Envelope) {
	if env.Method == nil { // an answer to a proxy/successor request of the proxy's
		c.send(c.proxy, line, &c.toProxy)
		return
	}
	params := `{"method":` + string(env.Method)
	if env.Params != nil {
		params += `,"params":` + string(env.Params)
	}
	params += `,"_meta":{"hop":"conductor"}}`
	var id wire.Raw
	if env.ID != nil {
		c.mu.Lock()
		c.n++
		id = wire.Raw(fmt.Sprintf(`"c-%d"`, c.n))
		c.agentIDs[string(id)] = string(env.ID)
		c.mu.Unlock()
	}
	c.send(c.proxy, string(frame(id, c.names.Name(proxychain.Successor), wire.Raw(params))), &c.toProxy)
}

// startComponent runs p as a Proxy Chains component under a test
// conductor, between a Go client and the Go agent a.
func startComponent(t *testing.T, p *proxy.Proxy, a *agent) (*chain, *conductor) {
	t.Helper()
	return startComponentWith(t, p, a, proxychain.Schema, proxy.ComponentOptions{})
}

// startComponentWith is startComponent with a conductor speaking names and
// the component's options o.
func startComponentWith(t *testing.T, p *proxy.Proxy, a *agent, names proxychain.Dialect, o proxy.ComponentOptions) (*chain, *conductor) {
	t.Helper()
	clientEnd, editorEnd := pipes()
	proxyEnd, compEnd := pipes()
	agentEnd, aEnd := pipes()
	c := &conductor{t: t, names: names, editor: editorEnd, proxy: proxyEnd, agen: agentEnd, wrapped: map[string]bool{}, agentIDs: map[string]string{}}
	go c.pump(editorEnd, c.fromEditor)
	go c.pump(proxyEnd, c.fromProxy)
	go c.pump(agentEnd, c.fromAgent)
	ctx, cancel := context.WithCancel(context.Background())
	ch := &chain{client: &client{}, run: make(chan error, 1)}
	a.conn = acp.NewAgentConn(a, aEnd.r, aEnd.w, acp.ConnOptions{})
	ch.cc = acp.NewClientConn(ch.client, clientEnd.r, clientEnd.w, acp.ConnOptions{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.conn.Run(ctx) })
	wg.Go(func() { _ = ch.cc.Run(ctx) })
	pred, succ := proxy.ComponentWith(proxy.Stream(compEnd.r, compEnd.w), o)
	go func() { ch.run <- p.Run(ctx, pred, succ) }()
	t.Cleanup(func() {
		cancel()
		for _, l := range []link{clientEnd, editorEnd, proxyEnd, compEnd, agentEnd, aEnd} {
			l.r.Close()
			l.w.Close()
		}
		wg.Wait()
	})
	return ch, c
}

// As a Proxy Chains component the proxy answers proxy/initialize after
// forwarding initialize through proxy/successor, relays a turn both ways
// through the conductor with its updates in order, and its interceptors
// work as in a transparent proxy: here terminal/create, wrapped by the
// conductor, is refused. Under a conductor speaking the Rust SDK's names
// (_proxy/initialize, _proxy/successor) it answers in those, whatever its
// options chose before the conductor spoke; the test conductor takes no
// message in the other dialect.
func TestComponentUnderConductor(t *testing.T) {
	for _, c := range []struct {
		name  string
		names proxychain.Dialect
		o     proxy.ComponentOptions
	}{
		{"schema", proxychain.Schema, proxy.ComponentOptions{}},
		{"rust", proxychain.Rust, proxy.ComponentOptions{}},
		{"schema conductor, rust option", proxychain.Schema, proxy.ComponentOptions{Names: proxychain.Rust}},
		{"rust conductor, rust option", proxychain.Rust, proxy.ComponentOptions{Names: proxychain.Rust}},
	} {
		t.Run(c.name, func(t *testing.T) { componentUnderConductor(t, c.names, c.o) })
	}
}

func componentUnderConductor(t *testing.T, names proxychain.Dialect, o proxy.ComponentOptions) {
	p := proxy.New(proxy.Options{})
	var initialized []string
	proxy.Request(p, acp.AgentMethods.Initialize, func(ctx context.Context, req *acp.InitializeRequest, next func(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error)) (*acp.InitializeResponse, error) {
		initialized = append(initialized, "down")
		res, err := next(ctx, req)
		initialized = append(initialized, "up")
		return res, err
	})
	proxy.Request(p, acp.ClientMethods.TerminalCreate, func(context.Context, *acp.CreateTerminalRequest, func(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error)) (*acp.CreateTerminalResponse, error) {
		return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "refused"}
	})
	a := &agent{updates: 30}
	ch, c := startComponentWith(t, p, a, names, o)
	res := ch.initialize(t)
	if res.ProtocolVersion != acp.CurrentProtocolVersion || !slices.Equal(initialized, []string{"down", "up"}) {
		t.Errorf("initialize: %+v, interceptor %v", res, initialized)
	}
	if got := a.methods(); len(got) == 0 || got[0] != "initialize" {
		t.Errorf("the agent got %v, want initialize first", got)
	}
	if _, err := ch.prompt(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if got := ch.client.updates(); !slices.Equal(got, wantUpdates(30)) {
		t.Errorf("updates: %v", got)
	}
	raw, err := a.conn.Send(context.Background(), acp.MethodTerminalCreate, wire.Raw(`{"sessionId":"s1","command":"ls"}`))
	if err == nil || err.Error() != "refused" {
		t.Errorf("terminal/create: %s, %v; want refused", raw, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.toAgent {
		if strings.Contains(l, "proxy/") || strings.Contains(l, `"hop"`) {
			t.Errorf("the agent got %s: an envelope or its _meta leaked", l)
		}
	}
	if c.unwrapped == 0 {
		t.Errorf("the proxy sent no %s", names.Name(proxychain.Successor))
	}
}
