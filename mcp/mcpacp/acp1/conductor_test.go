package acp1_test

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

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/internal/mcptest"
	"github.com/acpgen/acpgen/mcp/mcpacp"
	"github.com/acpgen/acpgen/mcp/mcpacp/acp1"
	"github.com/acpgen/acpgen/runtime/conductor"
)

// stdioAgentEnv makes the test binary the scenario agent on stdio
// (runStdioAgent), for chains the conductor runs.
const stdioAgentEnv = "MCPACP_TEST_STDIO_AGENT"

func TestMain(m *testing.M) {
	if os.Getenv(stdioAgentEnv) == "1" {
		os.Exit(runStdioAgent())
	}
	os.Exit(m.Run())
}

// runStdioAgent serves scenarioAgent on stdin and stdout and reports the
// scenario's outcome on stderr: "scenario: ok", or the failure.
func runStdioAgent() int {
	a := &scenarioAgent{agent: agent{acp: true, mcp: mcpacp.NewCaller(nil)}, results: make(chan error, 1)}
	conn := unstable.NewAgentConn(a, os.Stdin, os.Stdout, unstable.ConnOptions{})
	a.mcp.Bind(conn)
	if err := conn.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	select {
	case err := <-a.results:
		if err != nil {
			fmt.Fprintln(os.Stderr, "scenario:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "scenario: ok")
		return 0
	default:
		fmt.Fprintln(os.Stderr, "scenario: never prompted")
		return 1
	}
}

// lockedBuffer is a bytes.Buffer safe for the conductor's writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestThroughConductor: mcp/message requests, their notifications and
// $/cancel_request cross a Proxy Chain (runtime/conductor, with the shipped
// examples/proxy as a component) unchanged enough for the scenario to pass.
func TestThroughConductor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/proxy")
	}
	proxyBin := filepath.Join(t.TempDir(), "proxy")
	build := exec.Command("go", "build", "-o", proxyBin, "./examples/proxy")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/proxy: %v\n%s", err, out)
	}
	t.Setenv(stdioAgentEnv, "1")

	toChainR, toChainW := io.Pipe()
	fromChainR, fromChainW := io.Pipe()
	var stderr lockedBuffer
	ran := make(chan error, 1)
	go func() {
		_, err := conductor.Run(context.Background(), conductor.Options{
			Components: [][]string{{proxyBin, "-component"}, {os.Args[0]}},
			Stdin:      toChainR, Stdout: fromChainW, Stderr: &stderr,
		})
		fromChainW.Close()
		ran <- err
	}()

	ed := &editor{mcp: mcpacp.NewProvider()}
	conn := unstable.NewClientConn(ed, fromChainR, toChainW, unstable.ConnOptions{})
	ed.mcp.Bind(conn)
	ctx := context.Background()
	go conn.Run(ctx)
	init, err := conn.Initialize(ctx, &unstable.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cancelled := make(chan string, 1)
	reg, err := ed.mcp.Register("project-tools", mcpacp.ServerHandler(mcptest.Server(nil, cancelled)), nil)
	if err != nil {
		t.Fatal(err)
	}
	decl := acp1.Declarations(init, reg)
	if len(decl) != 1 {
		t.Fatal("mcpCapabilities.acp did not cross the chain")
	}
	s, err := conn.SessionNew(ctx, &unstable.NewSessionRequest{Cwd: "/", MCPServers: decl})
	if err != nil {
		t.Fatal(err)
	}
	prompt := &unstable.PromptRequest{SessionID: s.SessionID, Prompt: []unstable.ContentBlock{unstable.TextBlock("go")}}
	if _, err := conn.SessionPrompt(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	if got := <-cancelled; got != context.Canceled.Error() {
		t.Errorf("the slow tool's context ended with %q", got)
	}
	toChainW.Close()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if log := stderr.String(); !strings.Contains(log, "scenario: ok") {
		t.Errorf("the agent behind the chain reported:\n%s", log)
	}
}
