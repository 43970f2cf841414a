package interop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/conductor"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// settledLine is what a component prints on stderr once every request it
// cancelled downstream has been answered.
const settledLine = "interop component: every request cancelled downstream answered"

// componentMain runs the test binary as a Proxy Chains component on stdin
// and stdout: arg is ROLE:FILE, ROLE "policy" (the policy proxy) or
// "transparent". Its links are recorded and written to FILE when the chain
// ends.
func componentMain(arg string) int {
	role, file, _ := strings.Cut(arg, ":")
	h := newHop(role)
	switch role {
	case "policy":
		policy(h)
	case "transparent":
	default:
		fmt.Fprintln(os.Stderr, "unknown component role", role)
		return 2
	}
	changed := make(chan struct{}, 1)
	pred, succ := proxy.Component(proxy.Stream(os.Stdin, os.Stdout))
	h.pred, h.succ = recording(pred, changed), recording(succ, changed)
	go func() {
		for range changed {
			if h.succ.cancelCount() > 0 && h.settled() {
				fmt.Fprintln(os.Stderr, settledLine)
				return
			}
		}
	}()
	err := h.p.Run(context.Background(), h.pred, h.succ)
	if derr := h.dump(file); derr != nil {
		fmt.Fprintln(os.Stderr, "writing the record:", derr)
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		return 1
	}
	return 0
}

// lineWatch is the conductor's stderr: it keeps every line and closes
// settled once want components have printed settledLine.
type lineWatch struct {
	mu      sync.Mutex
	all     bytes.Buffer
	part    []byte
	want    int
	settled chan struct{}
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.part = append(w.part, p...)
	for {
		line, rest, found := bytes.Cut(w.part, []byte("\n"))
		if !found {
			return len(p), nil
		}
		w.part = rest
		if bytes.HasSuffix(line, []byte(settledLine)) {
			if w.want--; w.want == 0 {
				close(w.settled)
			}
		}
	}
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// heldEOF is the editor's output as the conductor reads it: its end waits
// for release (or ctx's end).
type heldEOF struct {
	r       io.Reader
	release <-chan struct{}
	ctx     context.Context
}

func (h heldEOF) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err == io.EOF {
		select {
		case <-h.release:
		case <-h.ctx.Done():
		}
	}
	return n, err
}

// The TypeScript SDK's client is the editor of a Proxy Chain that
// runtime/conductor runs: two Go proxies in component mode (the policy
// proxy, then a transparent one: this test binary), then the TypeScript
// agent or examples/agent. The client's whole flow runs as through the
// same proxies run transparently, each proxy relays what it does not claim
// as the same bytes in the same order, and session/cancel and
// $/cancel_request end a turn through every hop.
func TestTypeScriptClientThroughConductor(t *testing.T) {
	requireSDK(t)
	agentBin, _ := binaries(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range v1Agents(agentBin) {
		t.Run(a.name, func(t *testing.T) {
			dir := t.TempDir()
			files := []string{filepath.Join(dir, "policy.json"), filepath.Join(dir, "transparent.json")}
			components := [][]string{
				{self, "-component=policy:" + files[0]},
				{self, "-component=transparent:" + files[1]},
				a.argv,
			}
			out := runConducted(t, components, len(files), proxyClientArgs(t, a)...)
			checkProxyClient(t, out, a, expectedSteps(a, proxyChains[1]))
			for i, f := range files {
				h, err := loadHop(f)
				if err != nil {
					t.Fatalf("component %d left no record: %v", i+1, err)
				}
				checkHop(t, h, i == 0)
			}
		})
	}
}

// The shipped examples/proxy, twice as Proxy Chains components under the
// conductor, in front of the TypeScript agent and examples/agent, with the
// TypeScript SDK's client as the editor: the flow runs as through two
// transparent proxies, but for $/cancel_request, which the first proxy
// answers itself (it intercepts session/prompt to count tokens).
func TestTypeScriptClientThroughExampleProxies(t *testing.T) {
	requireSDK(t)
	agentBin, _ := binaries(t)
	proxyBin := exampleProxy(t)
	for _, a := range v1Agents(agentBin) {
		t.Run(a.name, func(t *testing.T) {
			components := [][]string{{proxyBin, "-component"}, {proxyBin, "-component"}, a.argv}
			out := runConducted(t, components, 0, proxyClientArgs(t, a)...)
			want := expectedSteps(a, proxyChains[2])
			want["$/cancel_request"] = "answered error -32800"
			checkProxyClient(t, out, a, want)
		})
	}
}

var (
	proxyOnce sync.Once
	proxyErr  error
)

// exampleProxy builds examples/proxy beside the other example binaries.
func exampleProxy(t *testing.T) string {
	t.Helper()
	binaries(t)
	bin := filepath.Join(binDir, "proxy")
	proxyOnce.Do(func() {
		if out, err := exec.Command("go", "build", "-o", bin, "../examples/proxy").CombinedOutput(); err != nil {
			proxyErr = fmt.Errorf("go build examples/proxy: %v\n%s", err, out)
		}
	})
	if proxyErr != nil {
		t.Fatal(proxyErr)
	}
	return bin
}

// runConducted runs node with args as the editor of the conductor's chain
// of components and returns node's output. proxies components print
// settledLine; the editor's end of input reaches the conductor once they
// have.
func runConducted(t *testing.T, components [][]string, proxies int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chainWait)
	defer cancel()
	node := startNode(ctx, t, args...)
	stderr := &lineWatch{want: proxies, settled: make(chan struct{})}
	if proxies == 0 {
		close(stderr.settled)
	}
	type result struct {
		res *conductor.Result
		err error
	}
	ran := make(chan result, 1)
	go func() {
		res, err := conductor.Run(ctx, conductor.Options{
			Components: components,
			Stdin:      heldEOF{r: node.in, release: stderr.settled, ctx: ctx},
			Stdout:     node.out,
			Stderr:     stderr,
			Grace:      chainWait / 4,
		})
		node.out.Close()
		node.in.Close()
		ran <- result{res, err}
	}()
	nodeErr := node.cmd.Wait()
	if nodeErr != nil {
		cancel()
	}
	select {
	case r := <-ran:
		checkExits(t, r.res, r.err, nodeErr == nil)
	case <-time.After(chainWait):
		t.Fatal("the conductor did not return")
	}
	select {
	case <-stderr.settled:
	default:
		t.Errorf("the proxies' cancelled requests were not all answered")
	}
	return node.finish(t, nodeErr, stderr)
}

// checkExits checks that the editor ended the chain and every component
// exited 0 on its own.
func checkExits(t *testing.T, res *conductor.Result, err error, editorOK bool) {
	t.Helper()
	if err != nil || !editorOK {
		if err != nil {
			t.Errorf("conductor: %v", err)
		}
		return
	}
	if res.Ended != nil {
		t.Errorf("component %v ended the chain", res.Ended)
	}
	for _, e := range res.Exits {
		if e.Status != 0 || e.Killed {
			t.Errorf("component %v", e)
		}
	}
}
