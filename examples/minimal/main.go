// Command minimal is the smallest useful ACP agent on gen/acp: it answers
// initialize and session/new, streams each prompt's text back as
// agent_message_chunk updates, and stops a turn on session/cancel.
package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/acpgen/acpgen/gen/acp"
)

type agent struct {
	acp.UnimplementedAgentHandler
	conn     *acp.AgentConn
	sessions atomic.Int64
}

func (a *agent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion}, nil
}

func (a *agent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: acp.SessionID(fmt.Sprint("session-", a.sessions.Add(1)))}, nil
}

// SessionPrompt echoes the prompt. session/cancel cancels ctx, and the
// connection then answers the turn with stopReason "cancelled".
func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	for _, b := range p.Prompt {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.Text != nil {
			update := &acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunkText(b.Text.Text)}
			if err := a.conn.SessionUpdate(ctx, update); err != nil {
				return nil, err
			}
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func main() {
	a := &agent{}
	a.conn = acp.NewAgentConn(a, os.Stdin, os.Stdout, acp.ConnOptions{})
	if err := a.conn.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
