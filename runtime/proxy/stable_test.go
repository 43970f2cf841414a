package proxy_test

import (
	"context"
	"sync"
	"testing"

	stable "github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/proxy"
)

type stableAgent struct {
	stable.UnimplementedAgentHandler
	conn *stable.AgentConn
}

func (stableAgent) Initialize(context.Context, *stable.InitializeRequest) (*stable.InitializeResponse, error) {
	return &stable.InitializeResponse{ProtocolVersion: stable.CurrentProtocolVersion}, nil
}

func (a *stableAgent) SessionPrompt(ctx context.Context, p *stable.PromptRequest) (*stable.PromptResponse, error) {
	u := stable.SessionNotification{SessionID: p.SessionID, Update: stable.NewSessionUpdateAgentMessageChunk(stable.ContentChunk{Content: p.Prompt[0]})}
	if err := a.conn.SessionUpdate(ctx, &u); err != nil {
		return nil, err
	}
	return &stable.PromptResponse{StopReason: stable.StopReasonEndTurn}, nil
}

type stableClient struct {
	stable.UnimplementedClientHandler
	mu   sync.Mutex
	echo string
}

func (c *stableClient) SessionUpdate(_ context.Context, n *stable.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch := n.Update.AgentMessageChunk; ch != nil && ch.Content.Text != nil {
		c.echo = ch.Content.Text.Text
	}
}

// The proxy is generic: on the stable package, an interceptor rewrites the
// prompt the agent echoes back.
func TestStablePackage(t *testing.T) {
	p := proxy.New(proxy.Options{})
	proxy.Request(p, stable.AgentMethods.SessionPrompt, func(ctx context.Context, req *stable.PromptRequest, next func(context.Context, *stable.PromptRequest) (*stable.PromptResponse, error)) (*stable.PromptResponse, error) {
		req.Prompt = []stable.ContentBlock{stable.TextBlock("rewritten")}
		return next(ctx, req)
	})
	clientEnd, predEnd := pipes()
	succEnd, agentEnd := pipes()
	ctx, cancel := context.WithCancel(context.Background())
	a := &stableAgent{}
	a.conn = stable.NewAgentConn(a, agentEnd.r, agentEnd.w, stable.ConnOptions{})
	c := &stableClient{}
	cc := stable.NewClientConn(c, clientEnd.r, clientEnd.w, stable.ConnOptions{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.conn.Run(ctx) })
	wg.Go(func() { _ = cc.Run(ctx) })
	wg.Go(func() { _ = p.Run(ctx, proxy.Stream(predEnd.r, predEnd.w), proxy.Stream(succEnd.r, succEnd.w)) })
	defer func() {
		cancel()
		for _, l := range []link{clientEnd, predEnd, succEnd, agentEnd} {
			l.r.Close()
			l.w.Close()
		}
		wg.Wait()
	}()
	if _, err := cc.Initialize(ctx, &stable.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.SessionPrompt(ctx, &stable.PromptRequest{SessionID: "s", Prompt: []stable.ContentBlock{stable.TextBlock("original")}}); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.echo != "rewritten" {
		t.Errorf("the agent echoed %q, want the rewritten prompt", c.echo)
	}
}
