package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
)

// termClient records the turn's text and answers terminal/create with id,
// or refuses it when id is "".
type termClient struct {
	acp.UnimplementedClientHandler
	id       acp.TerminalID
	mu       sync.Mutex
	text     strings.Builder
	released []acp.TerminalID
}

func (c *termClient) SessionUpdate(_ context.Context, n *acp.SessionNotification) {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.mu.Lock()
		c.text.WriteString(m.Content.Text.Text)
		c.mu.Unlock()
	}
}

func (c *termClient) TerminalCreate(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error) {
	if c.id == "" {
		return nil, acp.NewError(acp.ErrorCodeMethodNotFound, "no terminals here", nil)
	}
	return &acp.CreateTerminalResponse{TerminalID: c.id}, nil
}

func (c *termClient) TerminalRelease(_ context.Context, p *acp.ReleaseTerminalRequest) (*acp.ReleaseTerminalResponse, error) {
	c.mu.Lock()
	c.released = append(c.released, p.TerminalID)
	c.mu.Unlock()
	return &acp.ReleaseTerminalResponse{}, nil
}

// terminalTurn runs the prompt "run terminal now" from a client that
// offers terminals (or not) and returns the text the turn streamed.
func terminalTurn(t *testing.T, c *termClient, offer bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	st := &store{sessions: map[acp.SessionID]*session{}}
	done := make(chan error, 1)
	go func() { done <- serveConn(ctx, st, quietLog(), inR, outW) }()
	conn := acp.NewClientConn(c, outR, inW, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quietLog()}})
	go conn.Run(ctx)
	defer func() { inW.Close(); within(t, done, "the agent to end") }()
	caps := &acp.ClientCapabilities{Terminal: &offer}
	if _, err := conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	s, err := conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("run terminal now")}})
	if err != nil || res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text.String()
}

// The word "terminal" runs a terminal of a client that offers them (and
// releases it), reports a refusal by its code, and never asks a client
// that does not offer them.
func TestTerminalWord(t *testing.T) {
	c := &termClient{id: "t7"}
	if got := terminalTurn(t, c, true); got != "run [terminal t7] now" || len(c.released) != 1 || c.released[0] != "t7" {
		t.Errorf("offered: streamed %q, released %v", got, c.released)
	}
	if got := terminalTurn(t, &termClient{}, true); got != "run [terminal refused -32601] now" {
		t.Errorf("refused: streamed %q", got)
	}
	if got := terminalTurn(t, &termClient{id: "t8"}, false); got != "run [no terminal] now" {
		t.Errorf("not offered: streamed %q", got)
	}
}
