//go:build linux

package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
)

// agent is the agent under load, the same on stdio and over the network:
// it answers initialize and session/new, and a prompt whose text is
// "COUNT INTERVAL" (INTERVAL in nanoseconds, 0: as fast as the connection
// takes them) streams COUNT agent_message_chunk updates, each text starting
// with its sequence number and the wall-clock time it was made, then ends
// the turn.
type agent struct {
	acp.UnimplementedAgentHandler
	conn     *acp.AgentConn
	sessions atomic.Int64
}

// updateTail pads each update to the size of a typical streamed chunk.
const updateTail = " The build fails because the import path is wrong."

func (a *agent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion}, nil
}

func (a *agent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: acp.SessionID("s" + strconv.FormatInt(a.sessions.Add(1), 10))}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	count, interval, err := parsePrompt(p.Prompt)
	if err != nil {
		return nil, err
	}
	var tick *time.Ticker
	if interval > 0 {
		tick = time.NewTicker(interval)
		defer tick.Stop()
	}
	for seq := 1; seq <= count; seq++ {
		if tick != nil {
			select {
			case <-tick.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		text := strconv.Itoa(seq) + " " + strconv.FormatInt(time.Now().UnixNano(), 10) + updateTail
		n := &acp.SessionNotification{SessionID: p.SessionID, Update: acp.AgentMessageChunkText(text)}
		if err := a.conn.SessionUpdate(ctx, n); err != nil {
			return nil, err
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func parsePrompt(blocks []acp.ContentBlock) (count int, interval time.Duration, err error) {
	if len(blocks) != 1 || blocks[0].Text == nil {
		return 0, 0, fmt.Errorf("netload: the prompt is one text block")
	}
	f := strings.Fields(blocks[0].Text.Text)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("netload: the prompt is \"COUNT INTERVAL\"")
	}
	c, err1 := strconv.Atoi(f[0])
	i, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("netload: the prompt is \"COUNT INTERVAL\"")
	}
	return c, time.Duration(i), nil
}

// promptText asks for count updates, one per interval.
func promptText(count int, interval time.Duration) string {
	return strconv.Itoa(count) + " " + strconv.FormatInt(int64(interval), 10)
}

// parseUpdate reads an update's sequence number and creation time.
func parseUpdate(text string) (seq int, made int64, ok bool) {
	a, rest, ok1 := strings.Cut(text, " ")
	b, _, ok2 := strings.Cut(rest, " ")
	s, err1 := strconv.Atoi(a)
	t, err2 := strconv.ParseInt(b, 10, 64)
	return s, t, ok1 && ok2 && err1 == nil && err2 == nil
}
