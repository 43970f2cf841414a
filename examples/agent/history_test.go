package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
)

// historyAgent is an initialized agent with one session, "s", of the
// principal a context without one has, whose updates go nowhere.
func historyAgent(t *testing.T) *agent {
	t.Helper()
	a := &agent{store: &store{sessions: map[acp.SessionID]*session{"s": {roots: []string{"/"}}}}, log: slog.New(slog.DiscardHandler)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a.conn = acp.NewAgentConn(a, inR, outW, acp.ConnOptions{})
	done := make(chan error, 1)
	go func() { done <- a.conn.Run(context.Background()) }()
	t.Cleanup(func() {
		inW.Close()
		<-done
	})
	go fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	out := bufio.NewReader(outR)
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	return a
}

// history returns the session's turns as "_acpgen/history" serves them,
// each turn's prompt text.
func history(t *testing.T, a *agent) []string {
	t.Helper()
	raw, err := a.ExtRequest(context.Background(), historyMethod, acp.Raw(`{"sessionId":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Turns []struct {
			Prompt []struct{ Text string }
		}
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, turn := range h.Turns {
		texts = append(texts, turn.Prompt[0].Text)
	}
	return texts
}

func prompt(t *testing.T, a *agent, text string) {
	t.Helper()
	p := &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.TextBlock(text)}}
	if _, err := a.SessionPrompt(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// A session keeps its last maxHistoryTurns turns, and turns within
// maxHistoryBytes: the oldest are dropped, and a turn over the byte bound
// on its own is not kept.
func TestHistoryBounded(t *testing.T) {
	a := historyAgent(t)
	for i := range maxHistoryTurns + 50 {
		prompt(t, a, fmt.Sprintf("turn%d", i))
	}
	got := history(t, a)
	if len(got) != maxHistoryTurns || got[0] != "turn50" || got[len(got)-1] != fmt.Sprintf("turn%d", maxHistoryTurns+49) {
		t.Fatalf("%d turns kept, from %q to %q", len(got), got[0], got[len(got)-1])
	}

	a = historyAgent(t)
	big := maxHistoryBytes / 3
	for i := range 5 {
		prompt(t, a, fmt.Sprintf("big%d", i)+strings.Repeat("x", big))
	}
	got = history(t, a)
	if len(got) != 2 || !strings.HasPrefix(got[0], "big3") || !strings.HasPrefix(got[1], "big4") {
		t.Errorf("turns of a third of the bound: kept %d", len(got))
	}
	if s := a.sessions["s"]; s.historyBytes > maxHistoryBytes {
		t.Errorf("history holds %d bytes", s.historyBytes)
	}
	prompt(t, a, strings.Repeat("y", maxHistoryBytes))
	prompt(t, a, "small")
	if got := history(t, a); len(got) != 1 || got[0] != "small" || a.sessions["s"].historyBytes != turnSize(&a.sessions["s"].history[0]) {
		t.Errorf("after a turn over the bound: %d turns, %d bytes", len(got), a.sessions["s"].historyBytes)
	}
}

// session/load replays the whole conversation, as v1 requires: the user's
// prompts and the agent's replies, in the order they were sent.
func TestLoadReplaysWholeConversation(t *testing.T) {
	st := &store{sessions: map[acp.SessionID]*session{}}
	serve := func(ctx context.Context, r io.Reader, w io.Writer) error {
		return serveConn(ctx, st, slog.New(slog.DiscardHandler), r, w)
	}
	first := newRaceClient(t, serve)
	sid := openSession(first, 1)
	for i, text := range []string{"hello world", "again"} {
		if r := first.call(10+i, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}`, sid, text)); stopReason(r) != "end_turn" {
			t.Fatalf("prompt %q: %s", text, r)
		}
	}
	second := newRaceClient(t, serve)
	second.call(1, "initialize", `{"protocolVersion":1}`)
	second.call(2, "session/load", fmt.Sprintf(`{"sessionId":%q,"cwd":"/","mcpServers":[]}`, sid))
	second.mu.Lock()
	var got []string
	for _, u := range second.updates {
		var v struct {
			SessionUpdate string
			Content       struct{ Text string }
		}
		_ = json.Unmarshal(u, &v)
		got = append(got, v.SessionUpdate+" "+v.Content.Text)
	}
	second.mu.Unlock()
	want := []string{
		"user_message_chunk hello world", "agent_message_chunk hello", "agent_message_chunk  world",
		"user_message_chunk again", "agent_message_chunk again",
	}
	if !slices.Equal(got, want) {
		t.Errorf("replayed\n%q\nwant\n%q", got, want)
	}
}
