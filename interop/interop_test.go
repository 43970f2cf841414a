package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// sdkVersion is the TypeScript SDK release the harness pins, the one whose
// schema gen/ is generated from.
const sdkVersion = "2.4.0"

// runTimeout bounds one node or example process; a whole run takes about a
// second once the binaries are built.
const runTimeout = 45 * time.Second

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// TestMain also runs the test binary as a Proxy Chains component when its
// first argument is -component=ROLE:FILE (componentMain).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "-component=") {
		os.Exit(componentMain(strings.TrimPrefix(os.Args[1], "-component=")))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// requireSDK fails (never skips) when node or the pinned SDK is missing, so
// that a machine without them cannot pass the interop tests silently.
func requireSDK(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs node and builds the example binaries")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on the PATH: the interop tests run the official TypeScript SDK with Node.js")
	}
	data, err := os.ReadFile(filepath.Join("node_modules", "@agentclientprotocol", "sdk", "package.json"))
	if err != nil {
		t.Fatalf("the TypeScript SDK is not installed: run `npm ci --prefix interop` (./test.sh does): %v", err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Version != sdkVersion {
		t.Fatalf("interop/node_modules has @agentclientprotocol/sdk %q, want %s: run `npm ci --prefix interop`", pkg.Version, sdkVersion)
	}
}

// binaries builds examples/agent and examples/client once per test run.
func binaries(t *testing.T) (agent, client string) {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "acpgen-interop-")
		if binErr != nil {
			return
		}
		for _, name := range []string{"agent", "client"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), "../examples/"+name)
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build examples/%s: %v\n%s", name, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "agent"), filepath.Join(binDir, "client")
}

// roots returns an absolute cwd and two additional directories.
func roots(t *testing.T) (cwd string, dirs []string) {
	base := t.TempDir()
	for _, d := range []string{"work", "lib", "docs"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(base, "work"), []string{filepath.Join(base, "lib"), filepath.Join(base, "docs")}
}

// run runs a command with the time limit and returns its stdout; stderr is
// logged on failure.
func run(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %v in %v", filepath.Base(name), strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return stdout.String(), err
}

// wantSteps checks that out has an "ok STEP: ..." line for every step, in
// order, and returns the lines by step.
func wantSteps(t *testing.T, out string, steps ...string) map[string]string {
	t.Helper()
	lines := map[string]string{}
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		step, rest, found := strings.Cut(strings.TrimPrefix(l, "ok "), ": ")
		if !strings.HasPrefix(l, "ok ") || !found {
			t.Errorf("unexpected output line %q", l)
			continue
		}
		if _, dup := lines[step]; !dup {
			order = append(order, step)
		}
		lines[step] += rest
	}
	if strings.Join(order, "|") != strings.Join(steps, "|") {
		t.Errorf("steps passed:\n  %s\nwant:\n  %s", strings.Join(order, ", "), strings.Join(steps, ", "))
	}
	return lines
}

// The TypeScript SDK's client drives the Go example agent.
func TestTypeScriptClientDrivesGoAgent(t *testing.T) {
	requireSDK(t)
	agent, _ := binaries(t)
	cwd, dirs := roots(t)
	out, err := run(t, "node", append([]string{"ts-client.mjs", agent, cwd}, dirs...)...)
	if err != nil {
		t.Fatalf("ts-client.mjs: %v", err)
	}
	got := wantSteps(t, out, "before initialize", "initialize", "relative roots", "session/new",
		"session/prompt", "session/prompt plain", "session/cancel", "invalid params", "unknown method",
		"history", "exit")
	if want := "roots=" + strings.Join(append([]string{cwd}, dirs...), ","); !strings.Contains(got["session/new"], want) {
		t.Errorf("session/new: %q, want %q", got["session/new"], want)
	}
	if want := `chunks=["context: editor\n","hello"," streamed"," world"]`; !strings.Contains(got["session/prompt"], want) {
		t.Errorf("session/prompt: %q, want %q", got["session/prompt"], want)
	}
	if !strings.Contains(got["history"], "3 turns recorded, none with runtimeContext") {
		t.Errorf("history: %q", got["history"])
	}
}

// The Go example client drives an agent written with the TypeScript SDK.
func TestGoClientDrivesTypeScriptAgent(t *testing.T) {
	requireSDK(t)
	_, client := binaries(t)
	cwd, dirs := roots(t)
	out, err := run(t, client, "-echo", "-cwd", cwd, "-add-dir", dirs[0], "-add-dir", dirs[1], "node", "ts-agent.mjs")
	if err != nil {
		t.Fatalf("examples/client against ts-agent.mjs: %v", err)
	}
	got := wantSteps(t, out, "initialize", "session/new", "gate", "session/prompt", "session/cancel",
		"invalid params", "history", "exit")
	if want := "agent=typescript-sdk-agent additionalDirectories=true runtimeContext=false"; !strings.Contains(got["initialize"], want) {
		t.Errorf("initialize: %q, want %q", got["initialize"], want)
	}
	if want := "roots=" + strings.Join(append([]string{cwd}, dirs...), ","); !strings.Contains(got["session/new"], want) {
		t.Errorf("session/new: %q, want %q", got["session/new"], want)
	}
	// runtimeContext was not advertised: the generated ClientConn refused it
	// before sending.
	if want := "runtimeContext refused locally: session/prompt /runtimeContext needs agentCapabilities.sessionCapabilities.runtimeContext"; got["gate"] != want {
		t.Errorf("gate: %q, want %q", got["gate"], want)
	}
	if !strings.Contains(got["history"], "2 turns recorded") {
		t.Errorf("history: %q", got["history"])
	}
}

// acceptCase is one frame fed to both SDKs' dispatchers.
type acceptCase struct {
	Name  string `json:"name"`
	Side  string `json:"side"` // "agent" or "client": whose dispatcher receives it
	Init  bool   `json:"init"` // complete initialize first (agent side; the Go client side too)
	Frame string `json:"frame"`
	// Go and TS are the expected verdicts: "ok" or "error CODE" for requests,
	// "handled" or "dropped" for notifications. interop/README.md explains
	// every case where they differ.
	Go, TS string `json:"-"`
}

type acceptResult struct {
	Name    string          `json:"name"`
	Verdict string          `json:"verdict"`
	Seen    json.RawMessage `json:"seen"`
}

func req(method, params string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
}

func note(method, params string) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
}

func update(u string) string {
	return note("session/update", `{"sessionId":"s","update":`+u+`}`)
}

const chunk = `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`

// acceptCases: keep in step with the table in README.md.
var acceptCases = []acceptCase{
	{Name: "session/new valid", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[]}`), Go: "ok", TS: "ok"},
	{Name: "_meta is a string", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"_meta":"garbage"}`), Go: "ok", TS: "ok"},
	{Name: "mcpServers null", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":null}`), Go: "ok", TS: "ok"},
	{Name: "unknown member", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"x-extra":1}`), Go: "ok", TS: "ok"},
	{Name: "cwd missing", Side: "agent", Init: true, Frame: req("session/new", `{"mcpServers":[]}`), Go: "error -32602", TS: "error -32602"},
	{Name: "params missing", Side: "agent", Init: true, Frame: `{"jsonrpc":"2.0","id":7,"method":"session/new"}`, Go: "error -32602", TS: "error -32602"},
	{Name: "cwd relative", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"work","mcpServers":[]}`), Go: "error -32602", TS: "ok"},
	{Name: "additionalDirectories relative", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"additionalDirectories":["lib"]}`), Go: "error -32602", TS: "ok"},
	{Name: "additionalDirectories empty string", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"additionalDirectories":[""]}`), Go: "error -32602", TS: "ok"},
	{Name: "additionalDirectories null", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"additionalDirectories":null}`), Go: "error -32602", TS: "ok"},
	{Name: "additionalDirectories non-string item", Side: "agent", Init: true, Frame: req("session/new", `{"cwd":"/w","mcpServers":[],"additionalDirectories":["/a",5]}`), Go: "error -32602", TS: "error -32602"},
	{Name: "prompt text without text", Side: "agent", Init: true, Frame: req("session/prompt", `{"sessionId":"s","prompt":[{"type":"text"}]}`), Go: "error -32602", TS: "error -32602"},
	{Name: "prompt unknown block type", Side: "agent", Init: true, Frame: req("session/prompt", `{"sessionId":"s","prompt":[{"type":"video","uri":"x"}]}`), Go: "ok", TS: "error -32602"},
	{Name: "prompt null", Side: "agent", Init: true, Frame: req("session/prompt", `{"sessionId":"s","prompt":null}`), Go: "error -32602", TS: "error -32602"},
	{Name: "image without promptCapabilities.image", Side: "agent", Init: true, Frame: req("session/prompt", `{"sessionId":"s","prompt":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`), Go: "error -32602", TS: "ok"},
	{Name: "runtimeContext not advertised", Side: "agent", Init: true, Frame: req("session/prompt", `{"sessionId":"s","prompt":[],"runtimeContext":[{"text":"t"}]}`), Go: "error -32602", TS: "ok"},
	{Name: "protocolVersion as string", Side: "agent", Frame: req("initialize", `{"protocolVersion":"1"}`), Go: "error -32602", TS: "error -32602"},
	{Name: "request before initialize", Side: "agent", Frame: req("session/new", `{"cwd":"/w","mcpServers":[]}`), Go: "error -32600", TS: "error -32600"},
	{Name: "fractional id", Side: "agent", Init: true, Frame: `{"jsonrpc":"2.0","id":1.5,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, Go: "ok", TS: "ok"},
	{Name: "params an array", Side: "agent", Init: true, Frame: `{"jsonrpc":"2.0","id":7,"method":"session/new","params":[]}`, Go: "error -32602", TS: "error -32602"},
	{Name: "unknown method", Side: "agent", Init: true, Frame: req("session/telepathy", `{}`), Go: "error -32601", TS: "error -32601"},
	{Name: "unknown extension method", Side: "agent", Init: true, Frame: req("_vendor/thing", `{}`), Go: "error -32601", TS: "error -32601"},
	{Name: "not JSON", Side: "agent", Init: true, Frame: `{"jsonrpc":"2.0",`, Go: "error -32700", TS: "error -32700"},
	{Name: "batch", Side: "agent", Init: true, Frame: `[` + req("session/new", `{"cwd":"/w","mcpServers":[]}`) + `]`, Go: "array [ok]", TS: "error -32600"},
	{Name: "session/cancel valid", Side: "agent", Init: true, Frame: note("session/cancel", `{"sessionId":"s"}`), Go: "handled", TS: "handled"},
	{Name: "session/cancel without sessionId", Side: "agent", Init: true, Frame: note("session/cancel", `{}`), Go: "dropped", TS: "dropped"},
	{Name: "session/cancel before initialize", Side: "agent", Frame: note("session/cancel", `{"sessionId":"s"}`), Go: "dropped", TS: "handled"},
	{Name: "update valid", Side: "client", Init: true, Frame: update(chunk), Go: "handled", TS: "handled"},
	{Name: "update unknown sessionUpdate", Side: "client", Init: true, Frame: update(`{"sessionUpdate":"telepathy","content":{"type":"text","text":"hi"}}`), Go: "handled", TS: "dropped"},
	{Name: "update content _meta a string", Side: "client", Init: true, Frame: update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","_meta":"garbage"}}`), Go: "handled", TS: "handled"},
	{Name: "update unknown member", Side: "client", Init: true, Frame: update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"x-extra":true}`), Go: "handled", TS: "handled"},
	{Name: "update unknown content type", Side: "client", Init: true, Frame: update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"video"}}`), Go: "handled", TS: "dropped"},
	{Name: "update without sessionId", Side: "client", Init: true, Frame: note("session/update", `{"update":`+chunk+`}`), Go: "dropped", TS: "dropped"},
	{Name: "update before initialize", Side: "client", Frame: update(chunk), Go: "dropped", TS: "handled"},
}

// TestAcceptance feeds the same frames to the TypeScript SDK and to the
// generated Go dispatcher and checks both verdicts against the table.
func TestAcceptance(t *testing.T) {
	requireSDK(t)
	file := filepath.Join(t.TempDir(), "cases.json")
	data, _ := json.Marshal(acceptCases)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "node", "ts-accept.mjs", file)
	if err != nil {
		t.Fatalf("ts-accept.mjs: %v", err)
	}
	var tsResults []acceptResult
	if err := json.Unmarshal([]byte(out), &tsResults); err != nil || len(tsResults) != len(acceptCases) {
		t.Fatalf("ts-accept.mjs printed %d results (%v):\n%s", len(tsResults), err, out)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-40s | %-13s | %-13s\n", "case", "acpgen (Go)", "TypeScript SDK")
	for i, c := range acceptCases {
		goRes := acceptGo(t, c)
		ts := tsResults[i]
		fmt.Fprintf(&table, "%-40s | %-13s | %-13s\n", c.Name, goRes.Verdict, ts.Verdict)
		if goRes.Verdict == ts.Verdict && (goRes.Verdict == "ok" || goRes.Verdict == "handled") {
			var tsSeen bytes.Buffer
			json.Compact(&tsSeen, ts.Seen)
			fmt.Fprintf(&table, "    Go handler saw %s\n    TS handler saw %s\n", goRes.Seen, tsSeen.Bytes())
		}
		if goRes.Verdict != c.Go {
			t.Errorf("%s: Go dispatcher %s, want %s (seen %s)", c.Name, goRes.Verdict, c.Go, goRes.Seen)
		}
		if ts.Verdict != c.TS {
			t.Errorf("%s: TypeScript SDK %s, want %s (seen %s)", c.Name, ts.Verdict, c.TS, ts.Seen)
		}
		// Unknown members: kept by the Go types (they re-encode), stripped by zod.
		if strings.Contains(c.Frame, "x-extra") {
			if !bytes.Contains(goRes.Seen, []byte("x-extra")) || bytes.Contains(ts.Seen, []byte("x-extra")) {
				t.Errorf("%s: Go handler saw %s, TS handler saw %s; want the member kept by Go only", c.Name, goRes.Seen, ts.Seen)
			}
		}
	}
	t.Logf("verdicts:\n%s", table.String())
}

// record keeps what a handler received.
type record struct {
	mu     sync.Mutex
	method string
	seen   []byte
	marked chan struct{}
}

func (r *record) set(method string, params []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.method, r.seen = method, params
}

func (r *record) result() (string, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.method, r.seen
}

// marker is the barrier notification: notifications are handled in order,
// so once it is handled every earlier one has been.
const marker = "_acpgen/marker"

type acceptAgent struct {
	acp.UnimplementedAgentHandler
	rec *record
}

func (a *acceptAgent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{
		SessionCapabilities: &acp.SessionCapabilities{AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{}},
	}}, nil
}

func (a *acceptAgent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	a.rec.set(acp.MethodSessionNew, p.AppendJSON(nil))
	return &acp.NewSessionResponse{SessionID: "s"}, nil
}

func (a *acceptAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.rec.set(acp.MethodSessionPrompt, p.AppendJSON(nil))
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *acceptAgent) SessionCancel(ctx context.Context, p *acp.CancelNotification) {
	b, _ := p.MarshalJSON()
	a.rec.set(acp.MethodSessionCancel, b)
}

func (a *acceptAgent) ExtRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found: " + method}
}

func (a *acceptAgent) ExtNotification(ctx context.Context, method string, params wire.Raw) {
	if method == marker {
		close(a.rec.marked)
	}
}

type acceptClient struct {
	acp.UnimplementedClientHandler
	rec *record
}

func (c *acceptClient) SessionUpdate(ctx context.Context, p *acp.SessionNotification) {
	c.rec.set(acp.MethodSessionUpdate, p.AppendJSON(nil))
}

func (c *acceptClient) ExtRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found: " + method}
}

func (c *acceptClient) ExtNotification(ctx context.Context, method string, params wire.Raw) {
	if method == marker {
		close(c.rec.marked)
	}
}

// acceptGo feeds one case to a fresh generated AgentConn or ClientConn.
func acceptGo(t *testing.T, c acceptCase) acceptResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := &record{marked: make(chan struct{})}
	in, toConn := io.Pipe()
	fromConn, out := io.Pipe()
	defer toConn.Close()
	defer out.Close()
	lines := bufio.NewReader(fromConn)
	readRaw := func() []byte {
		type line struct {
			b   []byte
			err error
		}
		got := make(chan line, 1)
		go func() {
			b, err := lines.ReadBytes('\n')
			got <- line{b, err}
		}()
		select {
		case l := <-got:
			if l.err != nil {
				t.Fatalf("%s: reading a frame: %q %v", c.Name, l.b, l.err)
			}
			return l.b
		case <-ctx.Done():
			t.Fatalf("%s: no frame from the Go dispatcher", c.Name)
			return nil
		}
	}
	readLine := func() map[string]any {
		b := readRaw()
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			t.Fatalf("%s: a frame that is not a JSON object: %q", c.Name, b)
		}
		return m
	}
	write := func(frame string) {
		if _, err := io.WriteString(toConn, frame+"\n"); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
	}
	// Dropped notifications are reported in order too, so the marker is a
	// barrier whether it is handled or dropped (before initialize).
	opts := acp.ConnOptions{
		RPC: jsonrpc.Options{Logger: slog.New(slog.DiscardHandler)},
		OnDrop: func(method string, _ error) {
			if method == marker {
				close(rec.marked)
			}
		},
	}
	var (
		run func(context.Context) error
		cc  *acp.ClientConn
	)
	switch c.Side {
	case "agent":
		run = acp.NewAgentConn(&acceptAgent{rec: rec}, in, out, opts).Run
	case "client":
		cc = acp.NewClientConn(&acceptClient{rec: rec}, in, out, opts)
		run = cc.Run
	}
	runDone := make(chan struct{})
	go func() { run(ctx); close(runDone) }()
	defer func() { cancel(); <-runDone }()

	switch {
	case c.Init && c.Side == "agent":
		write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
		if m := readLine(); m["result"] == nil {
			t.Fatalf("%s: initialize answered %v", c.Name, m)
		}
	case c.Init && c.Side == "client":
		// Play the agent's part of initialize.
		done := make(chan error, 1)
		go func() {
			_, err := cc.Initialize(ctx, &acp.InitializeRequest{})
			done <- err
		}()
		id, _ := json.Marshal(readLine()["id"])
		write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"protocolVersion":1}}`)
		if err := <-done; err != nil {
			t.Fatalf("%s: initialize: %v", c.Name, err)
		}
	}
	write(c.Frame)
	var frame map[string]any
	isNote := json.Unmarshal([]byte(c.Frame), &frame) == nil && frame != nil && !hasKey(frame, "id")
	res := acceptResult{Name: c.Name}
	if isNote {
		write(`{"jsonrpc":"2.0","method":"` + marker + `","params":{}}`)
		select {
		case <-rec.marked:
		case <-ctx.Done():
			t.Fatalf("%s: the marker notification was neither handled nor dropped", c.Name)
		}
		method, seen := rec.result()
		res.Verdict, res.Seen = "dropped", seen
		if method != "" {
			res.Verdict = "handled"
		}
		return res
	}
	raw := readRaw()
	var batch []map[string]any
	if json.Unmarshal(raw, &batch) == nil {
		// A batch's answer: the verdict on each response, in order.
		verdicts := make([]string, len(batch))
		for i, m := range batch {
			verdicts[i] = verdictOf(m)
		}
		res.Verdict = "array [" + strings.Join(verdicts, ", ") + "]"
	} else {
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			t.Fatalf("%s: a frame that is not JSON-RPC: %q", c.Name, raw)
		}
		res.Verdict = verdictOf(m)
	}
	_, res.Seen = rec.result()
	return res
}

// verdictOf is "ok" for a response with a result, "error CODE" for an error.
func verdictOf(m map[string]any) string {
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	return "ok"
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// listen starts a server process that prints "listening on URL" on stdout
// and returns the URL; the process is killed at cleanup.
func listen(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", filepath.Base(name), stderr.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	url, found := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !found {
		t.Fatalf("%s printed %q (%v), want \"listening on URL\"", name, line, err)
	}
	return url
}

// The TypeScript SDK's WebSocket and Streamable HTTP clients drive the Go
// example agent served by runtime/acphttp: the v1 client reconnecting to load
// the session, and the experimental v2 client, on the same endpoint, which
// runtime/router hands to the v2 agent.
func TestTypeScriptRemoteClientsDriveGoAgent(t *testing.T) {
	requireSDK(t)
	agent, _ := binaries(t)
	url := listen(t, agent, "-listen", "127.0.0.1:0", "-token", "interop-token")
	for _, profile := range []string{"ws", "http"} {
		t.Run(profile+"/v1", func(t *testing.T) {
			cwd, dirs := roots(t)
			out, err := run(t, "node", append([]string{"ts-remote-client.mjs", profile, url, "interop-token", cwd}, dirs...)...)
			if err != nil {
				t.Fatalf("ts-remote-client.mjs: %v", err)
			}
			got := wantSteps(t, out, "initialize", "session/new", "session/prompt", "session/cancel", "invalid params", "session/load", "exit")
			if want := "roots=" + strings.Join(append([]string{cwd}, dirs...), ","); !strings.Contains(got["session/new"], want) {
				t.Errorf("session/new: %q, want %q", got["session/new"], want)
			}
			if want := `chunks=["hello"," streamed"," world"]`; !strings.Contains(got["session/prompt"], want) {
				t.Errorf("session/prompt: %q, want %q", got["session/prompt"], want)
			}
		})
		t.Run(profile+"/v2", func(t *testing.T) {
			cwd, dirs := roots(t)
			out, err := run(t, "node", append([]string{"ts-v2-client.mjs", profile, url, "interop-token", cwd}, dirs...)...)
			if err != nil {
				t.Fatalf("ts-v2-client.mjs: %v", err)
			}
			got := wantSteps(t, out, "initialize", "session/new", "session/prompt", "session/prompt text",
				"session/cancel", "invalid params", "exit")
			if want := "protocolVersion=2 agent=acpgen-example-agent"; !strings.Contains(got["initialize"], want) {
				t.Errorf("initialize: %q, want %q", got["initialize"], want)
			}
			want := `messageId=user-1 updates=["user_message user-1 text:hello streamed world","running","chunk:hello","chunk: streamed","chunk: world","idle:end_turn"]`
			if got["session/prompt"] != want {
				t.Errorf("session/prompt: %q, want %q", got["session/prompt"], want)
			}
		})
	}
}

// The Go example client drives the TypeScript SDK's AcpServer over both
// profiles, reconnecting to load the session.
func TestGoRemoteClientDrivesTypeScriptAgent(t *testing.T) {
	requireSDK(t)
	_, client := binaries(t)
	url := listen(t, "node", "ts-agent.mjs", "--listen", "--token", "interop-token")
	for _, profile := range []string{"websocket", "streamable-http"} {
		t.Run(profile, func(t *testing.T) {
			cwd, dirs := roots(t)
			out, err := run(t, client, "-echo", "-connect", url, "-profile", profile, "-token", "interop-token",
				"-cwd", cwd, "-add-dir", dirs[0], "-add-dir", dirs[1])
			if err != nil {
				t.Fatalf("examples/client -connect: %v", err)
			}
			got := wantSteps(t, out, "connect", "initialize", "session/new", "gate", "session/prompt", "session/cancel",
				"invalid params", "history", "session/load", "exit")
			if got["connect"] != "profile="+profile {
				t.Errorf("connect: %q, want profile=%s", got["connect"], profile)
			}
			if want := "roots=" + strings.Join(append([]string{cwd}, dirs...), ","); !strings.Contains(got["session/new"], want) {
				t.Errorf("session/new: %q, want %q", got["session/new"], want)
			}
		})
	}
}
