package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/generator/scaffold"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// goIn runs the go command in dir. Modules come from the module cache and
// the environment's GOPROXY; github.com/acpgen/acpgen from this checkout,
// through a replace directive.
func goIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// Both starters scaffold into modules of their own, build, vet, and talk to
// each other: the client runs the agent and prints its reply.
func TestScaffoldStartersBuildAndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command")
	}
	repo := repoRoot(t)
	dir := t.TempDir()
	for _, kind := range []string{"agent", "client"} {
		out, err := run(t, "scaffold", kind, "--out", filepath.Join(dir, "my-"+kind), "--replace", repo)
		if err != nil {
			t.Fatalf("scaffold %s: %v\n%s", kind, err, out)
		}
		mustContain(t, out, "wrote a starter ACP "+kind, "go mod tidy")
		mod, err := os.ReadFile(filepath.Join(dir, "my-"+kind, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, string(mod), "module my-"+kind+"\n", "go "+scaffold.GoVersion, "require github.com/acpgen/acpgen v0.0.0", "replace github.com/acpgen/acpgen => "+repo)
		src, _ := os.ReadFile(filepath.Join(dir, "my-"+kind, kind+".go"))
		mustContain(t, string(src), "acp.Unimplemented"+strings.ToUpper(kind[:1])+kind[1:]+"Handler")
		goIn(t, filepath.Join(dir, "my-"+kind), "build", "-o", kind, ".")
		goIn(t, filepath.Join(dir, "my-"+kind), "vet", "./...")
		// The session store is opt-in (scaffold agent --store): a first
		// build compiles no SQL driver.
		for _, dep := range strings.Fields(goIn(t, filepath.Join(dir, "my-"+kind), "list", "-deps", ".")) {
			if dep == "database/sql/driver" || strings.HasPrefix(dep, "github.com/acpgen/acpgen/store") {
				t.Errorf("the %s starter without --store depends on %s", kind, dep)
			}
		}
		// The starter's test: its handler has no method CheckHandler takes for a typo.
		if out := goIn(t, filepath.Join(dir, "my-"+kind), "test", "./..."); !strings.Contains(out, "ok") {
			t.Fatalf("go test in my-%s: %s", kind, out)
		}
	}
	cmd := exec.Command(filepath.Join(dir, "my-client", "client"), "-prompt", "ping pong", filepath.Join(dir, "my-agent", "agent"))
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "You said: ping pong" || !strings.Contains(stderr.String(), "stop reason: end_turn") {
		t.Fatalf("starter client against starter agent: %v\nstdout: %q\nstderr: %s", err, out, stderr.String())
	}
}

// Inside an existing module the starter joins it (no go.mod), and --unstable
// builds on the unstable channel.
func TestScaffoldJoinsEnclosingModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	repo := repoRoot(t)
	host := t.TempDir()
	mod := "module example.com/host\n\ngo 1.26.0\n\nrequire github.com/acpgen/acpgen v0.0.0\n\nreplace github.com/acpgen/acpgen => " + repo + "\n"
	if err := os.WriteFile(filepath.Join(host, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "scaffold", "agent", "--unstable", "--out", filepath.Join(host, "cmd", "unstable-agent"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "joins the module at "+host, "gen/acp/unstable")
	if _, err := os.Stat(filepath.Join(host, "cmd", "unstable-agent", "go.mod")); err == nil {
		t.Error("a starter inside a module got a go.mod of its own")
	}
	goIn(t, host, "build", "./...")
	goIn(t, host, "vet", "./...")

	// Flags for a new go.mod make no sense when joining a module.
	if out, err := run(t, "scaffold", "client", "--out", filepath.Join(host, "cmd", "c"), "--replace", repo); err == nil || !strings.Contains(err.Error(), "joins the module") {
		t.Errorf("--replace while joining a module: %v\n%s", err, out)
	}
}

func TestScaffoldRefusals(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	os.Mkdir(full, 0o755)
	keep := filepath.Join(full, "main.go")
	os.WriteFile(keep, []byte("package main\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scaffold", "agent", "--out", full}, "is not empty: scaffold never overwrites"},
		{[]string{"scaffold", "client", "--out", filepath.Join(dir, "x"), "--unstable", "--import", "example.com/acp"}, "give one or the other"},
		{[]string{"scaffold", "agent", "--out", filepath.Join(dir, "x"), "--import", `bad"path`}, "is not an import path"},
		{[]string{"scaffold", "agent", "--out", filepath.Join(dir, "x"), "--module", "bad module"}, "is not a module path"},
		{[]string{"scaffold", "agent", "--out", filepath.Join(dir, "x y")}, "not a usable program name"},
		{[]string{"scaffold", "agent", "--out", filepath.Join(dir, "x"), "extra"}, "takes no arguments"},
		{[]string{"scaffold", "client", "--mcp", "--out", filepath.Join(dir, "x")}, "--mcp applies to agents"},
	} {
		out, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q\n%s", tc.args, err, tc.want, out)
		}
	}
	if data, _ := os.ReadFile(keep); string(data) != "package main\n" {
		t.Error("scaffold changed a file in a non-empty folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused scaffold created its folder")
	}
}

// Without --replace or a version, and with no module in reach that has
// acpgen, go.mod has no requirement and the output says how to add it.
func TestScaffoldWithoutVersion(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the test binary is a development build: no version of its own
	out, err := run(t, "scaffold", "agent", "--out", filepath.Join(dir, "a"), "--module", "example.com/a")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "go mod edit -require=github.com/acpgen/acpgen@v0.0.0 -replace=github.com/acpgen/acpgen=")
	mustLack(t, out, "@latest")
	mod, _ := os.ReadFile(filepath.Join(dir, "a", "go.mod"))
	if string(mod) != "module example.com/a\n\ngo "+scaffold.GoVersion+"\n" {
		t.Errorf("go.mod:\n%s", mod)
	}
	out, err = run(t, "scaffold", "client", "--out", filepath.Join(dir, "c"), "--acpgen-version", "v1.2.3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mod, _ = os.ReadFile(filepath.Join(dir, "c", "go.mod"))
	mustContain(t, string(mod), "module c\n", "require github.com/acpgen/acpgen v1.2.3\n")
}

// Run from acpgen's checkout (`go run ./cmd/acpgen scaffold ...`, here from
// cmd/acpgen, below the checkout's acpgen.json), a starter outside it
// requires acpgen through a replace directive for the checkout, since this
// build has no version.
func TestScaffoldFromCheckout(t *testing.T) {
	repo := repoRoot(t)
	dir := t.TempDir()
	out, err := run(t, "scaffold", "agent", "--out", filepath.Join(dir, "a"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "on github.com/acpgen/acpgen/gen/acp (from "+filepath.Join("..", "..", "acpgen.json")+")\n", "its go.mod replaces github.com/acpgen/acpgen with "+repo, "cd "+filepath.Join(dir, "a")+"\n", "go mod tidy\n")
	mod, _ := os.ReadFile(filepath.Join(dir, "a", "go.mod"))
	mustContain(t, string(mod), "require github.com/acpgen/acpgen v0.0.0\n", "replace github.com/acpgen/acpgen => "+repo+"\n")
}

// The default --import follows the configuration in the current folder: its
// stable channel (or its first), its unstable one with --unstable. A starter
// that joins the configuration's module imports the package by its path; one
// with a module of its own also requires the configuration's module from its
// folder.
func TestScaffoldImportFollowsConfiguration(t *testing.T) {
	repo := repoRoot(t)
	host := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(host, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/host\n\ngo 1.26.0\n\nrequire github.com/acpgen/acpgen v0.0.0\n\nreplace github.com/acpgen/acpgen => "+repo+"\n")
	write("acpgen.json", `{"schema": {"version": "2.4.0"}, "channels": [{"name": "unstable", "out": "sdk/next", "package": "next"}, {"name": "stable", "out": "sdk/v1", "package": "v1"}]}`)
	t.Chdir(host)

	out, err := run(t, "scaffold", "agent", "--out", filepath.Join("cmd", "agent"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "in "+filepath.Join("cmd", "agent")+" (.gitignore, agent.go, agent_test.go, main.go) on example.com/host/sdk/v1 (from acpgen.json)",
		"it joins the module at .", "cd "+filepath.Join("cmd", "agent")+"\n", "go build -o bin/agent . && ./bin/agent")
	mustLack(t, out, "go get", "go mod tidy")
	src, _ := os.ReadFile(filepath.Join(host, "cmd", "agent", "main.go"))
	mustContain(t, string(src), `acp "example.com/host/sdk/v1"`)

	out, err = run(t, "scaffold", "client", "--unstable", "--out", filepath.Join("cmd", "client"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	src, _ = os.ReadFile(filepath.Join(host, "cmd", "client", "main.go"))
	mustContain(t, string(src), `acp "example.com/host/sdk/next"`)

	// A module of its own, beside the host: acpgen as the host has it, and
	// the host's module for the generated package.
	out, err = run(t, "scaffold", "agent", "--out", filepath.Join("..", "solo"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	solo := filepath.Join(filepath.Dir(host), "solo")
	mustContain(t, out, "cd "+solo+"\n", "go mod tidy")
	mod, _ := os.ReadFile(filepath.Join(solo, "go.mod"))
	mustContain(t, string(mod), "module solo\n",
		"require github.com/acpgen/acpgen v0.0.0\n", "replace github.com/acpgen/acpgen => "+repo+"\n",
		"require example.com/host v0.0.0\n", "replace example.com/host => "+host+"\n")
	os.RemoveAll(solo)

	// A configuration without an unstable channel cannot pick one.
	write("acpgen.json", `{"channels": [{"name": "stable", "out": "acp"}]}`)
	if out, err := run(t, "scaffold", "agent", "--unstable", "--out", filepath.Join("cmd", "u")); err == nil || !strings.Contains(err.Error(), "acpgen.json generates no unstable channel") {
		t.Errorf("--unstable without an unstable channel: %v\n%s", err, out)
	}

	// The starters speak v1: a v2 channel listed first is passed over, and a
	// configuration of v2 channels only is refused.
	write("acpgen.json", `{"channels": [{"name": "v2", "out": "sdk/v2"}, {"name": "unstable", "out": "sdk/next"}]}`)
	if out, err := run(t, "scaffold", "agent", "--out", filepath.Join("cmd", "v1")); err != nil {
		t.Errorf("v2 first, then a v1 channel: %v\n%s", err, out)
	}
	src, _ = os.ReadFile(filepath.Join(host, "cmd", "v1", "main.go"))
	mustContain(t, string(src), `acp "example.com/host/sdk/next"`)
	write("acpgen.json", `{"channels": [{"name": "v2", "out": "sdk/v2"}]}`)
	if out, err := run(t, "scaffold", "agent", "--out", filepath.Join("cmd", "v2")); err == nil || !strings.Contains(err.Error(), "acpgen.json generates only v2 channels: scaffold writes protocol v1 starters") {
		t.Errorf("v2 channels only: %v\n%s", err, out)
	}
}

// The README's install route, before a version is published: a module replaces
// acpgen with a checkout (by a relative path) and runs it with `go tool`.
// Starters scaffolded outside that module carry the replacement over as an
// absolute path (and, once the module generates its own package, a
// replacement of the module too), and `go mod tidy` and `go build` succeed
// in them.
func TestScaffoldFromReplacedInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpgen and starters with the go command")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on the PATH: generate fetches the schema with it")
	}
	repo := repoRoot(t)
	base := t.TempDir()
	host := filepath.Join(base, "host")
	if err := os.Mkdir(host, 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(host, repo)
	if err != nil {
		t.Fatal(err)
	}
	goIn(t, host, "mod", "init", "example.com/host")
	goIn(t, host, "mod", "edit", "-require=github.com/acpgen/acpgen@v0.0.0", "-replace=github.com/acpgen/acpgen="+rel, "-tool=github.com/acpgen/acpgen/cmd/acpgen")
	goIn(t, host, "mod", "tidy")
	// version says where this acpgen comes from.
	if v := goIn(t, host, "tool", "acpgen", "version"); !strings.Contains(v, "acpgen (replaced by "+rel+") go1.") {
		t.Errorf("version under a replaced install: %q", v)
	}

	// No configuration yet: the starter builds on acpgen's own gen/acp.
	out := goIn(t, host, "tool", "acpgen", "scaffold", "agent", "--out", "../my-agent")
	agent := filepath.Join(base, "my-agent")
	mustContain(t, out, "on github.com/acpgen/acpgen/gen/acp\n", "its go.mod replaces github.com/acpgen/acpgen with "+repo, "cd "+agent+"\n", "go mod tidy\n")
	mod, err := os.ReadFile(filepath.Join(agent, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(mod), "require github.com/acpgen/acpgen v0.0.0\n", "replace github.com/acpgen/acpgen => "+repo+"\n")
	goIn(t, agent, "mod", "tidy")
	goIn(t, agent, "build", "-o", "my-agent", ".")

	// The module generates its own package; a starter outside it builds on
	// that package.
	goIn(t, host, "tool", "acpgen", "init")
	if err := os.WriteFile(filepath.Join(host, "generate.go"), []byte("package host\n\n//go:generate go tool acpgen generate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goIn(t, host, "generate", "./...")
	goIn(t, host, "build", "./...")
	out = goIn(t, host, "tool", "acpgen", "scaffold", "client", "--out", "../my-client")
	client := filepath.Join(base, "my-client")
	mustContain(t, out, "on example.com/host/acp (from acpgen.json)\n", "its go.mod replaces example.com/host with "+host)
	mod, _ = os.ReadFile(filepath.Join(client, "go.mod"))
	mustContain(t, string(mod), "replace github.com/acpgen/acpgen => "+repo+"\n", "replace example.com/host => "+host+"\n")
	goIn(t, client, "mod", "tidy")
	goIn(t, client, "build", "-o", "my-client", ".")
}

// `scaffold agent --http` writes an agent that serves both network profiles:
// built inside a module, it answers a prompt over WebSocket and over
// Streamable HTTP. --http is refused for a client.
func TestScaffoldHTTPAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	repo := repoRoot(t)
	host := t.TempDir()
	mod := "module example.com/host\n\ngo 1.26.0\n\nrequire github.com/acpgen/acpgen v0.0.0\n\nreplace github.com/acpgen/acpgen => " + repo + "\n"
	if err := os.WriteFile(filepath.Join(host, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "scaffold", "agent", "--http", "--out", filepath.Join(host, "net-agent"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The next steps are about the network, not stdio.
	mustContain(t, out, "-listen 127.0.0.1:8080 -token TOKEN", "http://127.0.0.1:8080/acp", "scaffold client --http")
	mustLack(t, out, "stdin", "stdout")
	out, err = run(t, "scaffold", "client", "--http", "--out", filepath.Join(host, "net-client"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mustContain(t, out, "-token TOKEN -prompt 'Hello' http://127.0.0.1:8080/acp")
	mustLack(t, out, "AGENT [ARGS")
	goIn(t, host, "build", "-o", "net-agent.bin", "./net-agent")
	goIn(t, host, "build", "-o", "net-client.bin", "./net-client")
	goIn(t, host, "vet", "./...")
	if out, err := run(t, "scaffold", "proxy", "--http", "--out", filepath.Join(host, "p")); err == nil || !strings.Contains(err.Error(), "--http applies to agents and clients") {
		t.Errorf("proxy --http: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Without -token it refuses an address reachable from the network.
	if out, err := exec.CommandContext(ctx, filepath.Join(host, "net-agent.bin"), "-listen", "0.0.0.0:0").CombinedOutput(); err == nil || !strings.Contains(string(out), "refusing to serve without Options.Auth") {
		t.Errorf("-listen 0.0.0.0:0 without -token: %v\n%s", err, out)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("t0k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, filepath.Join(host, "net-agent.bin"), "-listen", "127.0.0.1:0", "-token", "t0k", "-token-file", tokenFile).CombinedOutput(); err == nil || !strings.Contains(string(out), "not both") {
		t.Errorf("-token and -token-file: %v\n%s", err, out)
	}
	// The token from its file (over $ACP_TOKEN), off the command line.
	fileAgent := exec.CommandContext(ctx, filepath.Join(host, "net-agent.bin"), "-listen", "127.0.0.1:0", "-token-file", tokenFile)
	fileAgent.Env = append(os.Environ(), acphttp.TokenEnv+"=other")
	fileOut, _ := fileAgent.StdoutPipe()
	if err := fileAgent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fileAgent.Process.Kill(); fileAgent.Wait() })
	fileLine, _ := bufio.NewReader(fileOut).ReadString('\n')
	fileURL, ok := strings.CutPrefix(strings.TrimSpace(fileLine), "listening on ")
	if !ok {
		t.Fatalf("agent printed %q", fileLine)
	}
	if _, err := acphttp.Dial(ctx, fileURL, acphttp.DialOptions{Profile: acphttp.WebSocket, Header: http.Header{"Authorization": {"Bearer other"}}}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Dial with the environment's token, -token-file given: %v, want 401", err)
	}
	if c, err := acphttp.Dial(ctx, fileURL, acphttp.DialOptions{Profile: acphttp.WebSocket, Header: http.Header{"Authorization": {"Bearer t0k"}}}); err != nil {
		t.Errorf("Dial with the file's token: %v", err)
	} else {
		c.Close()
	}
	url := startNetAgent(t, ctx, filepath.Join(host, "net-agent.bin"), "127.0.0.1:0")
	for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		c, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: p, Header: http.Header{"Authorization": {"Bearer t0k"}}})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		h := &chunks{}
		conn := acp.NewClientConn(h, c, c, acp.ConnOptions{})
		go conn.Run(ctx)
		if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion}); err != nil {
			t.Fatalf("%s initialize: %v", p, err)
		}
		s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: host, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatalf("%s session/new: %v", p, err)
		}
		res, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "ping"})}})
		if err != nil || res.StopReason != acp.StopReasonEndTurn || !strings.Contains(h.text(), "You said: ping") {
			t.Errorf("%s session/prompt: %v, %v, streamed %q", p, res, err, h.text())
		}
		c.Close()
	}

	// The network client, with the token, prints the agent's reply.
	client := filepath.Join(host, "net-client.bin")
	if out, err := exec.CommandContext(ctx, client, "-token", "t0k", "-prompt", "ping", url).CombinedOutput(); err != nil || !strings.Contains(string(out), "You said: ping") || !strings.Contains(string(out), "stop reason: end_turn") {
		t.Errorf("net client: %v\n%s", err, out)
	}
	// Without the token the agent refuses it, and it does not dial again.
	if out, err := exec.CommandContext(ctx, client, "-prompt", "ping", url).CombinedOutput(); err == nil || !strings.Contains(string(out), "401") || strings.Contains(string(out), "dialling again") {
		t.Errorf("net client without a token: %v\n%s", err, out)
	}

	// Started before its agent, the client dials again until the agent
	// listens, then runs its turn.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.CommandContext(ctx, client, "-token", "t0k", "-retries", "1000", "-prompt", "pong", "http://"+addr+"/acp")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		errOut.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "dialling again") {
			break
		}
	}
	startNetAgent(t, ctx, filepath.Join(host, "net-agent.bin"), addr)
	rest, _ := io.ReadAll(stderr)
	errOut.Write(rest)
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), "You said: pong") || !strings.Contains(errOut.String(), "stop reason: end_turn") {
		t.Errorf("client started first: %v\nstdout: %s\nstderr: %s", err, stdout.String(), errOut.String())
	}

	// An agent lost in the middle of the turn: the client dials again, to
	// the agent that took its place, and runs the turn there.
	agent := exec.CommandContext(ctx, filepath.Join(host, "net-agent.bin"), "-listen", "127.0.0.1:0", "-token", "t0k")
	agentOut, _ := agent.StdoutPipe()
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer agent.Process.Kill()
	line, _ := bufio.NewReader(agentOut).ReadString('\n')
	addr = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "listening on http://"), "/acp")
	cmd = exec.CommandContext(ctx, client, "-token", "t0k", "-retries", "1000", "-prompt", "again", "http://"+addr+"/acp")
	var clientErr bytes.Buffer
	cmd.Stderr = &clientErr
	clientOut, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	buf := make([]byte, 64)
	for !strings.Contains(got.String(), "You") {
		n, err := clientOut.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			t.Fatalf("client output ended: %v\n%s", err, got.String())
		}
	}
	agent.Process.Kill()
	agent.Wait()
	startNetAgent(t, ctx, filepath.Join(host, "net-agent.bin"), addr)
	rest, _ = io.ReadAll(clientOut)
	got.Write(rest)
	if err := cmd.Wait(); err != nil || !strings.Contains(got.String(), "You said: again") || !strings.Contains(clientErr.String(), "dialling again") {
		t.Errorf("agent lost mid-turn: %v\nstdout: %s\nstderr: %s", err, got.String(), clientErr.String())
	}
}

// startNetAgent runs the scaffolded network agent with the token t0k at
// addr until the test ends, and returns its URL.
func startNetAgent(t *testing.T, ctx context.Context, bin, addr string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "-listen", addr, "-token", "t0k")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("agent printed %q", line)
	}
	return url
}

// chunks collects agent_message_chunk text.
type chunks struct {
	acp.UnimplementedClientHandler
	mu sync.Mutex
	b  strings.Builder
}

func (c *chunks) SessionUpdate(_ context.Context, p *acp.SessionNotification) {
	if m := p.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.mu.Lock()
		c.b.WriteString(m.Content.Text.Text)
		c.mu.Unlock()
	}
}

func (c *chunks) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// acpgen built in its checkout (go build or go install there) scaffolds a
// starter outside any module whose go.mod replaces acpgen with that
// checkout, as the replace route does: go mod tidy and go build work, where
// a requirement of the build's own pseudo-version would name nothing a
// module proxy serves.
func TestScaffoldFromCheckoutBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the starter with the go command")
	}
	bin := acpgenBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "scaffold", "agent", "--out", "my-agent")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "my-agent", "go.mod"))
	mustContain(t, string(mod), "replace github.com/acpgen/acpgen => "+repoRoot(t)+"\n")
	mustLack(t, string(out), "go get")
	for _, line := range []string{"go mod tidy", "go build -o my-agent ."} {
		args := strings.Fields(line)
		c := exec.Command(args[0], args[1:]...)
		c.Dir = filepath.Join(dir, "my-agent")
		c.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}
