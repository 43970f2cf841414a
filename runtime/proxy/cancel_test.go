package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/proxy"
	"github.com/acpgen/acpgen/runtime/wire"
)

// cancelTurn starts a prompt through the chain, waits for the agent to get
// it, cancels it, and returns the prompt as the agent got it and the next
// two messages the agent gets.
func cancelTurn(t *testing.T, ch *chain) (prompt string, after []string) {
	h := ch.byHand(t)
	go h.initialize()
	ch.initialize(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := ch.prompt(ctx, "go"); errc <- err }()
	prompt, _ = h.expect("session/prompt")
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled prompt succeeded")
	}
	for range 2 {
		line, _ := h.read()
		after = append(after, line)
	}
	return prompt, after
}

// find returns the line of method among lines.
func find(t *testing.T, lines []string, method string) string {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, `"method":"`+method+`"`) {
			return l
		}
	}
	t.Fatalf("no %s among %q", method, lines)
	return ""
}

// A prompt no interceptor claims keeps its id, and so does its
// $/cancel_request; session/cancel is relayed as any notification.
func TestCancelRelayedAsIs(t *testing.T) {
	ch := start(t, proxy.New(proxy.Options{}), nil)
	prompt, after := cancelTurn(t, ch)
	_, env := peek(t, prompt)
	cancel := find(t, after, "$/cancel_request")
	if !strings.Contains(cancel, `"requestId":`+string(env.ID)) {
		t.Errorf("cancel %s, want requestId %s", cancel, env.ID)
	}
	find(t, after, "session/cancel")
}

// A prompt an interceptor passed on went out under the proxy's id: the
// client's $/cancel_request cancels the interceptor's context, and the
// proxy cancels its own request, by its own id.
func TestCancelTranslatedForInterceptedRequest(t *testing.T) {
	p := proxy.New(proxy.Options{})
	ended := make(chan error, 1)
	proxy.Request(p, acp.AgentMethods.SessionPrompt, func(ctx context.Context, req *acp.PromptRequest, next func(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acp.PromptResponse, error) {
		res, err := next(ctx, req)
		ended <- ctx.Err()
		return res, err
	})
	ch := start(t, p, nil)
	prompt, after := cancelTurn(t, ch)
	_, env := peek(t, prompt)
	if env.ID.Kind() != wire.KindString {
		t.Errorf("the agent got the prompt under id %s, want the proxy's own", env.ID)
	}
	cancel := find(t, after, "$/cancel_request")
	if !strings.Contains(cancel, `"requestId":`+string(env.ID)) {
		t.Errorf("cancel %s, want requestId %s (the proxy's)", cancel, env.ID)
	}
	find(t, after, "session/cancel")
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the interceptor's context was not cancelled")
		}
	case <-time.After(wait):
		t.Fatal("the interceptor never returned")
	}
}
