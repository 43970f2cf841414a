package unstable_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/wire"
)

type agent struct {
	acp.UnimplementedAgentHandler
	conn *acp.AgentConn
}

func (a *agent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{
		SessionCapabilities: &acp.SessionCapabilities{Fork: &acp.SessionForkCapabilities{}},
	}}, nil
}

func (a *agent) SessionFork(_ context.Context, p *acp.ForkSessionRequest) (*acp.ForkSessionResponse, error) {
	return &acp.ForkSessionResponse{SessionID: p.SessionID + "-fork"}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	u := acp.SessionNotification{SessionID: p.SessionID, Update: acp.NewSessionUpdatePlanUpdate(acp.PlanUpdate{})}
	// The client did not advertise plan updates: refused before sending.
	if err := a.conn.SessionUpdate(ctx, &u); err == nil {
		return nil, errors.New("plan_update sent without clientCapabilities.plan")
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type client struct{ acp.UnimplementedClientHandler }

// The unstable channel's dispatcher: unstable-only methods, capability gates
// both ways.
func TestUnstableDispatch(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	a := &agent{}
	a.conn = acp.NewAgentConn(a, ar, aw, acp.ConnOptions{})
	cc := acp.NewClientConn(client{}, cr, cw, acp.ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.conn.Run(ctx) }()
	go func() { defer wg.Done(); cc.Run(ctx) }()
	defer func() { cancel(); cw.Close(); aw.Close(); wg.Wait() }()

	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	f, err := cc.SessionFork(ctx, &acp.ForkSessionRequest{SessionID: "s", Cwd: "/w"})
	if err != nil || f.SessionID != "s-fork" {
		t.Fatalf("session/fork: %+v %v", f, err)
	}
	var ge *wire.GateError
	if _, err := cc.SessionArchive(ctx, &acp.ArchiveSessionRequest{SessionID: "s"}); !errors.As(err, &ge) || ge.Violations[0].Capability != "agentCapabilities.sessionCapabilities.archive" {
		t.Fatalf("session/archive without the capability: %v", err)
	}
	r, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "x"})}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
}

// turnAgent holds every prompt turn until its context ends.
type turnAgent struct {
	acp.UnimplementedAgentHandler
	started chan struct{}
}

func (a *turnAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{}, nil
}

func (a *turnAgent) SessionPrompt(ctx context.Context, _ *acp.PromptRequest) (*acp.PromptResponse, error) {
	a.started <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// The unstable channel's dispatcher: one session/cancel ends every prompt
// turn in flight in the session.
func TestUnstableDispatchCancelEndsEveryTurn(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	a := &turnAgent{started: make(chan struct{}, 4)}
	ac := acp.NewAgentConn(a, ar, aw, acp.ConnOptions{})
	cc := acp.NewClientConn(client{}, cr, cw, acp.ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ac.Run(ctx) }()
	go func() { defer wg.Done(); cc.Run(ctx) }()
	defer func() { cancel(); cw.Close(); aw.Close(); wg.Wait() }()

	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	const turns = 3
	answers := make(chan *acp.PromptResponse, turns)
	for range turns {
		go func() {
			r, _ := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "x"})}})
			answers <- r
		}()
	}
	for range turns {
		<-a.started
	}
	if err := cc.SessionCancel(ctx, &acp.CancelNotification{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	for i := range turns {
		select {
		case r := <-answers:
			if r == nil || r.StopReason != acp.StopReasonCancelled {
				t.Fatalf("turn answered %+v", r)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d turns ended by session/cancel", i, turns)
		}
	}
}
