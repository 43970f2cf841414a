package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// wantUpdates is u0 ... u(n-1).
func wantUpdates(n int) []string {
	var w []string
	for i := range n {
		w = append(w, fmt.Sprintf("u%d", i))
	}
	return w
}

// A turn through a proxy that intercepts nothing: every update reaches the
// client, in order, before the prompt's answer.
func TestPromptTurnThroughProxy(t *testing.T) {
	a := &agent{updates: 200}
	ch := start(t, proxy.New(proxy.Options{}), a)
	ch.initialize(t)
	if _, err := ch.cc.SessionNew(context.Background(), &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	res, err := ch.prompt(context.Background(), "hello")
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if got := ch.client.updates(); !slices.Equal(got, wantUpdates(200)) {
		t.Fatalf("updates before the answer: %d, want 200 in order; first %v", len(got), got[:min(len(got), 5)])
	}
}

// An interceptor answers session/new itself: the agent never sees it.
func TestInterceptAnswersLocally(t *testing.T) {
	p := proxy.New(proxy.Options{})
	proxy.Request(p, acp.AgentMethods.SessionNew, func(ctx context.Context, _ *acp.NewSessionRequest, _ func(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error)) (*acp.NewSessionResponse, error) {
		return &acp.NewSessionResponse{SessionID: "local"}, nil
	})
	a := &agent{}
	ch := start(t, p, a)
	ch.initialize(t)
	res, err := ch.cc.SessionNew(context.Background(), &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}})
	if err != nil || res.SessionID != "local" {
		t.Fatalf("session/new: %+v, %v", res, err)
	}
	if got := a.methods(); slices.Contains(got, "session/new") {
		t.Errorf("the agent handled %v", got)
	}
}

// An interceptor changes the prompt on its way down, each update and the
// answer on their way up.
func TestInterceptModifies(t *testing.T) {
	p := proxy.New(proxy.Options{})
	proxy.Request(p, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest, next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		req.Prompt = append([]acp.ContentBlock{acp.TextBlock("policy: be brief")}, req.Prompt...)
		res, err := next(ctx, req)
		if err == nil {
			res.StopReason = acp.StopReasonMaxTokens
		}
		return res, err
	})
	proxy.Notification(p, acp.ClientMethods.SessionUpdate, func(ctx context.Context, n *acp.SessionNotification, next func(context.Context, *acp.SessionNotification) error) error {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			c.Content.Text.Text = strings.ToUpper(c.Content.Text.Text)
		}
		return next(ctx, n)
	})
	a := &agent{updates: 20}
	ch := start(t, p, a)
	ch.initialize(t)
	res, err := ch.prompt(context.Background(), "hello")
	if err != nil || res.StopReason != acp.StopReasonMaxTokens {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	if got := a.prompts; len(got) != 1 || got[0] != "policy: be brief" {
		t.Errorf("the agent got prompts %q", got)
	}
	var want []string
	for _, u := range wantUpdates(20) {
		want = append(want, strings.ToUpper(u))
	}
	if got := ch.client.updates(); !slices.Equal(got, want) {
		t.Errorf("updates: %v, want %v", got, want)
	}
}

// A proxy that refuses terminal/create also takes the terminal capability
// out of the initialize it passes down, so the agent's connection refuses
// to send terminal/create; an agent that sends it anyway is refused by the
// proxy, and the client never sees it.
func TestRefusedMethodLeavesGatesTruthful(t *testing.T) {
	p := proxy.New(proxy.Options{})
	proxy.Request(p, acp.AgentMethods.Initialize, func(ctx context.Context, req *acp.InitializeRequest, next func(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error)) (*acp.InitializeResponse, error) {
		if req.ClientCapabilities != nil {
			req.ClientCapabilities.Terminal = nil
		}
		res, err := next(ctx, req)
		if err == nil && res.AgentCapabilities != nil {
			res.AgentCapabilities.LoadSession = nil // what the proxy does not support, edited on the way up
		}
		return res, err
	})
	refused := &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "terminal/create is refused by policy"}
	proxy.Request(p, acp.ClientMethods.TerminalCreate, func(context.Context, *acp.CreateTerminalRequest, func(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error)) (*acp.CreateTerminalResponse, error) {
		return nil, refused
	})
	a := &agent{}
	ch := start(t, p, a)
	res := ch.initialize(t)
	if res.AgentCapabilities == nil || res.AgentCapabilities.LoadSession != nil {
		t.Errorf("the client sees agent capabilities %+v, want loadSession removed", res.AgentCapabilities)
	}
	if _, err := ch.prompt(context.Background(), "terminal"); err != nil {
		t.Fatal(err)
	}
	got := ch.client.updates()
	if len(got) != 1 || !strings.Contains(got[0], "terminal") || !strings.Contains(got[0], "not sent, rejected locally") {
		t.Errorf("the agent's terminal/create: %q, want refused by its own gate", got)
	}
	raw, err := a.conn.Send(context.Background(), acp.MethodTerminalCreate, wire.Raw(`{"sessionId":"s1","command":"ls"}`))
	var re *wire.RPCError
	if !errors.As(err, &re) || re.Code != refused.Code || re.Message != refused.Message {
		t.Errorf("terminal/create sent anyway: %s, %v; want the proxy's refusal", raw, err)
	}
}
