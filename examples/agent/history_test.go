package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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
