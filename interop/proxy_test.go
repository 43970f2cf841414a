package interop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// policy makes h a proxy that edits what passes: the agent's loadSession
// capability removed from initialize (a proxy that cannot load sessions
// keeps the client's gates truthful), a text block "proxied" added to
// every prompt, and allow_always options removed from permission requests.
func policy(h *hop) *hop {
	intercept(h, acp.AgentMethods.Initialize, func(ctx context.Context, req *acp.InitializeRequest, next func(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error)) (*acp.InitializeResponse, error) {
		res, err := next(ctx, req)
		if err == nil && res.AgentCapabilities != nil {
			res.AgentCapabilities.LoadSession = nil
		}
		return res, err
	})
	intercept(h, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest, next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		req.Prompt = append(req.Prompt, acp.TextBlock("proxied"))
		return next(ctx, req)
	})
	intercept(h, acp.ClientMethods.SessionRequestPermission, func(ctx context.Context, req *acp.RequestPermissionRequest, next func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)) (*acp.RequestPermissionResponse, error) {
		req.Options = slices.DeleteFunc(req.Options, func(o acp.PermissionOption) bool { return o.Kind == acp.PermissionOptionKindAllowAlways })
		return next(ctx, req)
	})
	return h
}

// policyV2 makes h a v2 proxy that marks every session it sees created:
// "acpgen/proxy" added to session/new's _meta.
func policyV2(h *hop) *hop {
	intercept(h, acp2.AgentMethods.SessionNew, func(ctx context.Context, req *acp2.NewSessionRequest, next func(context.Context, *acp2.NewSessionRequest) (*acp2.NewSessionResponse, error)) (*acp2.NewSessionResponse, error) {
		res, err := next(ctx, req)
		if err == nil {
			if res.Meta == nil {
				res.Meta = map[string]wire.Raw{}
			}
			res.Meta["acpgen/proxy"] = wire.Raw(`"policy"`)
		}
		return res, err
	})
	return h
}

// nodeClient is a node script speaking ACP on its file descriptors 3
// (in) and 4 (out).
type nodeClient struct {
	cmd            *exec.Cmd
	in             *os.File // what the script writes
	out            *os.File // what the script reads
	stdout, stderr bytes.Buffer
}

func startNode(ctx context.Context, t *testing.T, args ...string) *nodeClient {
	t.Helper()
	toNode, out := pipe(t)
	in, fromNode := pipe(t)
	n := &nodeClient{cmd: exec.CommandContext(ctx, "node", args...), in: in, out: out}
	n.cmd.ExtraFiles = []*os.File{toNode, fromNode}
	n.cmd.Stdout, n.cmd.Stderr = &n.stdout, &n.stderr
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toNode.Close()
	fromNode.Close()
	return n
}

// finish logs what the script printed when it or the test failed, stops
// the test when the script did, and returns its output.
func (n *nodeClient) finish(t *testing.T, err error, agentErr fmt.Stringer) string {
	t.Helper()
	if err != nil || t.Failed() {
		t.Logf("node %s: %v\nstdout:\n%s\nstderr:\n%s\nagent stderr:\n%s", strings.Join(n.cmd.Args[1:], " "), err, &n.stdout, &n.stderr, agentErr)
	}
	if err != nil {
		t.FailNow()
	}
	return n.stdout.String()
}

func pipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// runChain runs node with args through hops in series, the last one
// starting the agent, and returns node's output. The client's end of input
// reaches the first hop only once every hop's successor has answered the
// requests the hop cancelled: those answers are then known to come from
// the agent's handling of the cancel, not from the end of the chain.
func runChain(t *testing.T, hops []*hop, agent []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chainWait)
	defer cancel()
	node := startNode(ctx, t, args...)
	var agentErr bytes.Buffer
	changed := make(chan struct{}, 1)
	pred := proxy.Stream(node.in, node.out)
	for i, h := range hops {
		h.pred = recording(pred, changed)
		var succ proxy.Link
		if i < len(hops)-1 {
			up, upW := io.Pipe()
			down, downW := io.Pipe()
			succ, pred = proxy.Stream(up, downW), proxy.Stream(down, upW)
		} else {
			cmd := exec.Command(agent[0], agent[1:]...)
			cmd.Stderr = &agentErr
			var err error
			if succ, err = proxy.Command(cmd); err != nil {
				t.Fatal(err)
			}
		}
		h.succ = recording(succ, changed)
	}
	hops[0].pred.gate = func() { awaitSettled(ctx, t, hops, changed) }
	ran := make([]chan error, len(hops))
	for i, h := range hops {
		ran[i] = make(chan error, 1)
		go func() { ran[i] <- h.p.Run(ctx, h.pred, h.succ) }()
	}
	nodeErr := node.cmd.Wait()
	if nodeErr != nil {
		cancel()
	}
	for i, h := range hops {
		select {
		case err := <-ran[i]:
			if err != nil && nodeErr == nil {
				t.Errorf("%s: Run: %v", h.name, err)
			}
		case <-time.After(chainWait):
			t.Fatalf("%s: Run did not return", h.name)
		}
	}
	return node.finish(t, nodeErr, &agentErr)
}

// awaitSettled waits until every hop's cancelled requests are answered.
func awaitSettled(ctx context.Context, t *testing.T, hops []*hop, changed <-chan struct{}) {
	for {
		if !slices.ContainsFunc(hops, func(h *hop) bool { return !h.settled() }) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Errorf("a request cancelled downstream was never answered")
			return
		}
	}
}

// v1Agent is an agent the v1 flow runs against.
type v1Agent struct {
	name  string
	argv  []string
	tools bool // it asks for permission and reads files
	// cancelled is how it answers a session/prompt cancelled with
	// $/cancel_request, as ts-proxy-client.mjs prints it.
	cancelled string
}

// v1Agents are the TypeScript agent and examples/agent (agentBin).
func v1Agents(agentBin string) []v1Agent {
	return []v1Agent{
		{name: "ts-agent", argv: []string{"node", "ts-agent.mjs"}, tools: true, cancelled: "stopReason=cancelled"},
		{name: "examples-agent", argv: []string{agentBin}, cancelled: "error -32800"},
	}
}

// proxyChain is a chain of hops; policy is whether its first hop is the
// policy proxy.
type proxyChain struct {
	name   string
	hops   func() []*hop
	policy bool
}

var proxyChains = []proxyChain{
	{"policy", func() []*hop { return []*hop{policy(newHop("policy"))} }, true},
	{"policy+transparent", func() []*hop { return []*hop{policy(newHop("policy")), newHop("transparent")} }, true},
	{"transparent+transparent", func() []*hop { return []*hop{newHop("first"), newHop("second")} }, false},
}

// The TypeScript SDK's client drives the TypeScript agent and
// examples/agent through one and two Go proxies: every message a proxy does
// not intercept arrives as the same bytes in the same order (updates before
// the response of their turn, across hops), the intercepted ones modified,
// the agent's permission and file requests reach the client, and both
// session/cancel and $/cancel_request end a turn through every hop.
func TestTypeScriptClientThroughProxies(t *testing.T) {
	requireSDK(t)
	agentBin, _ := binaries(t)
	for _, a := range v1Agents(agentBin) {
		for _, c := range proxyChains {
			t.Run(a.name+"/"+c.name, func(t *testing.T) { throughProxies(t, a, c) })
		}
	}
}

const notes = "notes from the editor"

func throughProxies(t *testing.T, a v1Agent, c proxyChain) {
	hops := c.hops()
	out := runChain(t, hops, a.argv, proxyClientArgs(t, a)...)
	checkProxyClient(t, out, a, expectedSteps(a, c))
	for i, h := range hops {
		checkHop(t, h, c.policy && i == 0)
	}
}

// proxyClientArgs is node's command line for ts-proxy-client.mjs against
// agent a, with fresh roots.
func proxyClientArgs(t *testing.T, a v1Agent) []string {
	cwd, dirs := roots(t)
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"ts-proxy-client.mjs"}
	if a.tools {
		args = append(args, "--tools")
	}
	return append(append(args, cwd), dirs...)
}

// checkProxyClient checks what ts-proxy-client.mjs printed against agent a
// through chain c.
func checkProxyClient(t *testing.T, out string, a v1Agent, want map[string]string) {
	t.Helper()
	steps := []string{"initialize", "session/new", "session/prompt", "burst", "$/cancel_request", "session/cancel", "exit"}
	if a.tools {
		steps = slices.Insert(steps, 4, "permission and read")
	}
	got := wantSteps(t, out, steps...)
	for step, w := range want {
		if got[step] != w {
			t.Errorf("%s: %q\nwant %q", step, got[step], w)
		}
	}
}

// checkHop checks what crossed h in a run of ts-proxy-client.mjs.
func checkHop(t *testing.T, h *hop, intercepting bool) {
	t.Helper()
	tr := h.traffic()
	if n := tr.checkRelayed(t); n < 500 {
		t.Errorf("%s relayed %d session/update notifications, want the turns' (more than 500)", h.name, n)
	}
	checkCancels(t, tr, intercepting)
}

// expectedSteps is what ts-proxy-client.mjs prints through chain c.
func expectedSteps(a v1Agent, c proxyChain) map[string]string {
	loadSession, offered, added, cancelled := "true", "allow_once,allow_always,reject_once", "", a.cancelled
	if c.policy {
		loadSession, offered, added, cancelled = "absent", "allow_once,reject_once", `," proxied"`, "error -32800"
	}
	name := map[bool]string{true: "typescript-sdk-agent", false: "acpgen-example-agent"}[a.tools]
	want := map[string]string{
		"initialize":       "protocolVersion=1 agent=" + name + " loadSession=" + loadSession,
		"session/prompt":   `stopReason=end_turn chunks=["hello"," streamed"," world"` + added + `]`,
		"burst":            `500 updates in order before the response, then [` + strings.TrimPrefix(added, ",") + `] stopReason=end_turn`,
		"$/cancel_request": "answered " + cancelled,
		"session/cancel":   `stopReason=cancelled chunks=["before"]`,
	}
	if a.tools {
		want["permission and read"] = `offered=["` + offered + `"] chunks=["permission:allow-once"," read:` + notes + `"` + added + `]`
	}
	return want
}

// checkCancels checks a hop's $/cancel_request traffic: the one the client
// sent, for a request the hop intercepted (policy) or relayed. An
// intercepting hop cancels its own request downstream, under its own id;
// a relaying hop passes the cancel on as it is.
func checkCancels(t *testing.T, tr *traffic, intercepting bool) {
	t.Helper()
	read, written := tr.cancels()
	if len(read) != 1 || len(written) != 1 {
		t.Fatalf("%s: $/cancel_request for %q read, %q written; want one each", tr.h.name, read, written)
	}
	switch {
	case intercepting && !(tr.claimed[0][read[0]] && tr.own[written[0]]):
		t.Errorf("%s: cancel of %s, an intercepted request, passed on for %s, want for the proxy's own request", tr.h.name, read[0], written[0])
	case !intercepting && read[0] != written[0]:
		t.Errorf("%s: cancel of %s passed on for %s, want the same id", tr.h.name, read[0], written[0])
	}
}

// The TypeScript SDK's experimental v2 client drives examples/agent through
// a Go proxy typed on the v2 package, and through two transparent ones;
// the router behind the proxies picks v2 from initialize.
func TestTypeScriptV2ClientThroughProxies(t *testing.T) {
	requireSDK(t)
	agentBin, _ := binaries(t)
	chains := []proxyChain{
		{"policy", func() []*hop { return []*hop{policyV2(newHop("policy"))} }, true},
		{"transparent+transparent", func() []*hop { return []*hop{newHop("first"), newHop("second")} }, false},
	}
	for _, c := range chains {
		t.Run(c.name, func(t *testing.T) {
			cwd, dirs := roots(t)
			hops := c.hops()
			out := runChain(t, hops, []string{agentBin}, append([]string{"ts-v2-client.mjs", "fd", cwd}, dirs...)...)
			got := wantSteps(t, out, "initialize", "session/new", "session/prompt", "session/prompt text",
				"session/cancel", "invalid params", "exit")
			if want := "protocolVersion=2 agent=acpgen-example-agent"; !strings.Contains(got["initialize"], want) {
				t.Errorf("initialize: %q, want %q", got["initialize"], want)
			}
			meta := map[bool]string{true: "meta=acpgen/proxy,acpgen/roots", false: "meta=acpgen/roots"}[c.policy]
			if !strings.HasSuffix(got["session/new"], meta) {
				t.Errorf("session/new: %q, want %q", got["session/new"], meta)
			}
			want := `messageId=user-1 updates=["user_message user-1 text:hello streamed world","running","chunk:hello","chunk: streamed","chunk: world","idle:end_turn"]`
			if got["session/prompt"] != want {
				t.Errorf("session/prompt: %q, want %q", got["session/prompt"], want)
			}
			for _, h := range hops {
				if n := h.traffic().checkRelayed(t); n < 10 {
					t.Errorf("%s relayed %d session/update notifications, want the turns'", h.name, n)
				}
			}
		})
	}
}
