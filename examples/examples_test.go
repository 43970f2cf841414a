// Package examples holds example programs built on the generated package
// gen/acp; this test runs them against each other. interop/ runs each of
// them against the official TypeScript SDK.
package examples

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
)

func TestGoClientDrivesGoAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	bin := t.TempDir()
	for _, name := range []string{"agent", "client"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./"+name).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", name, err, out)
		}
	}
	base := t.TempDir()
	cwd, lib := filepath.Join(base, "work"), filepath.Join(base, "lib")
	os.Mkdir(cwd, 0o755)
	os.Mkdir(lib, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// lib twice and cwd once more: the client's DedupeAdditionalDirectories
	// leaves lib alone.
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), "-echo", "-cwd", cwd, "-add-dir", lib, "-add-dir", cwd, "-add-dir", lib, filepath.Join(bin, "agent"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	want := []string{
		"ok initialize: protocolVersion=1 agent=acpgen-example-agent additionalDirectories=true runtimeContext=true",
		"ok session/new: sessionId=SESSION roots=" + cwd + "," + lib,
		`ok session/prompt: stopReason=end_turn chunks=4 said="context: editor\nhello streamed world"`,
		`ok session/cancel: stopReason=cancelled after streaming "before"`,
		"ok invalid params: session/prompt without text answered -32602",
		"ok history: 2 turns recorded, none with runtimeContext",
		"ok exit: agent exited with status 0",
	}
	// Session ids are 128 random bits.
	got := sessionIDs.ReplaceAllString(strings.TrimSpace(string(out)), "SESSION")
	if got != strings.Join(want, "\n") {
		t.Errorf("client printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

var sessionIDs = regexp.MustCompile(`sess-[0-9a-f]{32}`)

// examples/client judges an agent that is not examples/agent by the
// protocol and prints what it said: examples/minimal streams each prompt
// back in one chunk and does not wait for a cancel, both correct. -echo
// holds it to examples/agent's behaviour, which it does not have.
func TestClientJudgesByProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	bin := t.TempDir()
	for _, name := range []string{"minimal", "client"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./"+name).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", name, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), append(append([]string{"-cwd", t.TempDir()}, args...), filepath.Join(bin, "minimal"))...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, errOut, err := client()
	if err != nil {
		t.Fatalf("client against examples/minimal: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	mustLines(t, out,
		`ok session/prompt: stopReason=end_turn chunks=1 said="hello streamed world"`,
		"ok session/cancel: stopReason=", // end_turn: the turn had ended
		"ok invalid params: session/prompt without text answered -32602",
		"ok history: not offered by this agent",
		"ok exit: agent exited with status 0")
	if !strings.Contains(out, `after streaming "before wait after"`) {
		t.Errorf("the cancelled turn's text is not printed:\n%s", out)
	}
	out, errOut, err = client("-echo")
	if err == nil || !strings.Contains(errOut, `FAIL session/cancel: stopReason end_turn, streamed "before wait after"; want cancelled, "before"`) {
		t.Errorf("client -echo against examples/minimal: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
}

// mustLines fails unless each of prefixes starts a line of out.
func mustLines(t *testing.T, out string, prefixes ...string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, p := range prefixes {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, p)
		}
		if !found {
			t.Errorf("no line starting %q in:\n%s", p, out)
		}
	}
}

// echoClient collects the agent's message chunks.
type echoClient struct {
	acp.UnimplementedClientHandler
	text strings.Builder
}

func (c *echoClient) SessionUpdate(ctx context.Context, n *acp.SessionNotification) {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.text.WriteString(m.Content.Text.Text)
	}
}

// The minimal agent of docs/generated-go.md, as a process: initialize, two sessions, a
// prompt echoed back as agent_message_chunk, end_turn.
func TestMinimalAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binary")
	}
	bin := filepath.Join(t.TempDir(), "minimal")
	if out, err := exec.Command("go", "build", "-o", bin, "./minimal").CombinedOutput(); err != nil {
		t.Fatalf("go build ./minimal: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	cl := &echoClient{}
	conn := acp.NewClientConn(cl, stdout, stdin, acp.ConnOptions{})
	go conn.Run(ctx)
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	var ids []acp.SessionID
	for range 2 {
		s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.SessionID)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two sessions share the id %q", ids[0])
	}
	r, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: ids[1], Prompt: []acp.ContentBlock{acp.TextBlock("ping "), acp.TextBlock("pong")}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn || cl.text.String() != "ping pong" {
		t.Fatalf("prompt: %v %v, streamed %q", r, err, cl.text.String())
	}
}

// minimalDeps links the minimal agent once and returns the linker's
// dependency graph (-dumpdep), one "from -> to" edge a line.
var minimalDeps = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "minimal")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "minimal"), "-ldflags=-dumpdep", "./minimal")
	var deps strings.Builder
	cmd.Stderr = &deps
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./minimal: %v\n%s", err, deps.String())
	}
	if !strings.Contains(deps.String(), "main.main") {
		return "", fmt.Errorf("go build printed no dependency graph:\n%s", deps.String())
	}
	return deps.String(), nil
})

// TestMinimalAgentKeepsMethodDeadCode asks the linker (-dumpdep) whether the
// minimal agent reaches a function that enumerates methods through
// reflection. One such function makes the linker keep every exported method
// of every type stored in an interface, a fifth of the binary.
func TestMinimalAgentKeepsMethodDeadCode(t *testing.T) {
	if testing.Short() {
		t.Skip("links the minimal agent")
	}
	deps, err := minimalDeps()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(deps, "\n") {
		if strings.Contains(line, "<ReflectMethod>") {
			t.Errorf("the linker keeps every exported method: %s", line)
		}
	}
}

// TestMinimalAgentLinksNoRegexp asks the linker whether the minimal agent
// reaches the regexp packages' code (about 0.35 MB with the Unicode tables
// it keeps): gen/acp's session/new cwd pattern runs as a wire.Pattern, and no
// format the agent's rules name needs a regexp.
func TestMinimalAgentLinksNoRegexp(t *testing.T) {
	if testing.Short() {
		t.Skip("links the minimal agent")
	}
	deps, err := minimalDeps()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(deps, "\n") {
		from, to, ok := strings.Cut(line, " -> ")
		// Importing regexp (runtime/wire's regex format) leaves its tiny
		// init, which is all it may keep.
		inRegexp := strings.HasPrefix(from, "regexp") || strings.HasPrefix(from, "go:main.inittasks")
		// The linker shares identical stack-object records between
		// packages, so another package's function may name regexp's.
		shared := strings.HasSuffix(to, ".stkobj")
		if ok && strings.HasPrefix(to, "regexp") && !inRegexp && !shared {
			t.Errorf("the minimal agent links regexp: %s", line)
		}
	}
}

// TestMinimalAgentLinksOnlyWhatItSends asks the linker whether the minimal
// agent reaches a message type of a client method it never calls (every one
// but session/update): the type's code, its type data or its table. Gate
// rows name their message types, so a table of every method's rows that
// initialize reaches would link them all, and net/url with elicitation's
// url mode.
func TestMinimalAgentLinksOnlyWhatItSends(t *testing.T) {
	if testing.Short() {
		t.Skip("links the minimal agent")
	}
	deps, err := minimalDeps()
	if err != nil {
		t.Fatal(err)
	}
	unsent, seen := unsentTypes(t), map[string]bool{}
	for _, line := range strings.Split(deps, "\n") {
		_, to, ok := strings.Cut(line, " -> ")
		if !ok {
			continue
		}
		if strings.HasPrefix(to, "net/url.") {
			t.Errorf("the minimal agent links net/url: %s", line)
		}
		if m := unsent.FindStringSubmatch(to); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			t.Errorf("the minimal agent links %s, which only a call it never makes uses: %s", m[1], line)
		}
	}
}

// unsentTypes matches the symbols of the message types of the client
// methods the minimal agent does not call: a type's descriptor, its methods
// and its table, not the records the linker shares between functions of
// one shape (another function may name one of theirs).
func unsentTypes(t *testing.T) *regexp.Regexp {
	const pkg = "github.com/acpgen/acpgen/gen/acp."
	var names []string
	v := reflect.ValueOf(acp.ClientMethods)
	for i := range v.NumField() {
		if v.Type().Field(i).Name == "SessionUpdate" {
			continue
		}
		// A descriptor's type names its messages: *dispatch.Request[*acp.P,*acp.R].
		for _, m := range regexp.MustCompile(regexp.QuoteMeta(pkg)+`(\w+)`).FindAllStringSubmatch(v.Field(i).Type().String(), -1) {
			names = append(names, m[1])
		}
	}
	if len(names) < 2 {
		t.Fatalf("no message types in acp.ClientMethods' descriptors (%d)", len(names))
	}
	alt := strings.Join(names, "|")
	return regexp.MustCompile(`^(?:type:\*?)?` + regexp.QuoteMeta(pkg) + `(?:\(\*)?(?:object)?(` + alt + `)(?:\)?\.\w+)?$`)
}
