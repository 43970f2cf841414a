package proxy_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// startCommand runs p between a Go client and the scripted agent mode,
// spawned: the transparent way.
func startCommand(t *testing.T, p *proxy.Proxy, mode string) *chain {
	t.Helper()
	path, env := helper(t, mode)
	cmd := exec.Command(path)
	cmd.Env = env
	agentLink, err := proxy.Command(cmd)
	if err != nil {
		t.Fatal(err)
	}
	clientEnd, predEnd := pipes()
	ctx, cancel := context.WithCancel(context.Background())
	ch := &chain{client: &client{}, run: make(chan error, 1)}
	ch.cc = acp.NewClientConn(ch.client, clientEnd.r, clientEnd.w, acp.ConnOptions{})
	done := make(chan struct{})
	go func() { defer close(done); _ = ch.cc.Run(ctx) }()
	go func() { ch.run <- p.Run(ctx, proxy.Stream(predEnd.r, predEnd.w), agentLink) }()
	t.Cleanup(func() {
		cancel()
		clientEnd.w.Close()
		clientEnd.r.Close()
		<-done
	})
	return ch
}

// An agent that exits ends the chain: the prompt waiting for it is
// answered with an error naming how it exited, and Run returns that.
func TestAgentExitEndsChain(t *testing.T) {
	ch := startCommand(t, proxy.New(proxy.Options{}), "exit3")
	ch.initialize(t)
	_, err := ch.prompt(context.Background(), "go")
	var re *wire.RPCError
	if !errors.As(err, &re) || re.Code != wire.CodeInternalError || re.Message != "agent exited: exit status 3" {
		t.Errorf("the prompt: %v, want -32603 agent exited: exit status 3", err)
	}
	select {
	case err := <-ch.run:
		if err == nil || err.Error() != "agent exited: exit status 3" {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Run did not return")
	}
}

// The same with an interceptor waiting in next: its request is answered
// with the same error.
func TestAgentExitAnswersIntercepted(t *testing.T) {
	p := proxy.New(proxy.Options{})
	proxy.Request(p, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest, next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		return next(ctx, req)
	})
	ch := startCommand(t, p, "exit3")
	ch.initialize(t)
	_, err := ch.prompt(context.Background(), "go")
	if err == nil || !strings.Contains(err.Error(), "agent exited: exit status 3") {
		t.Errorf("the prompt: %v, want agent exited: exit status 3", err)
	}
	if err := <-ch.run; err == nil {
		t.Error("Run returned nil")
	}
}
