//go:build linux

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
)

// The client counts an update that arrives after a later one as reordered,
// and a duplicate too; its latency is kept either way.
func TestTrackCountsReordered(t *testing.T) {
	c := &client{sessions: map[acp.SessionID]*track{"s": {}}}
	for _, seq := range []int{1, 2, 4, 3, 4, 5} {
		text := strconv.Itoa(seq) + " 1" + updateTail
		c.SessionUpdate(context.Background(), &acp.SessionNotification{SessionID: "s", Update: acp.AgentMessageChunkText(text)})
	}
	tr := c.take("s")
	if tr.got != 6 || tr.reordered != 2 || tr.maxSeq != 5 || len(tr.lat) != 6 {
		t.Errorf("got %d, reordered %d, max %d, %d latencies; want 6, 2, 5, 6", tr.got, tr.reordered, tr.maxSeq, len(tr.lat))
	}
}

// A small run of the whole benchmark: every phase reports each update it
// asked for, none lost or reordered, for both settings of the log.
func TestSmallRun(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "netload")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(exe, "-ws", "6", "-http", "3", "-sessions", "6", "-updates", "4", "-interval", "1ms",
		"-flood-conns", "2", "-flood-updates", "300", "-rounds", "1", "-settle", "50ms").Output()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	text := string(out)
	for _, mode := range []string{"off", "on"} {
		if !strings.Contains(text, "== resumable log "+mode) {
			t.Errorf("no run with the log %s:\n%s", mode, text)
		}
	}
	phase := regexp.MustCompile(`(?m)^(stream \S+|flood 1 \S+) +sessions=(\d+) updates=(\d+)/(\d+) lost=(\d+) reordered=(\d+)`)
	want := map[string]string{
		"stream websocket": "24", "stream streamable-http": "24",
		"flood 1 stdio": "600", "flood 1 websocket": "600", "flood 1 streamable-http": "600",
	}
	seen := map[string]int{}
	for _, m := range phase.FindAllStringSubmatch(text, -1) {
		seen[m[1]]++
		if m[3] != want[m[1]] || m[4] != want[m[1]] || m[5] != "0" || m[6] != "0" {
			t.Errorf("%s: %s/%s updates, %s lost, %s reordered; want %s, none lost or reordered", m[1], m[3], m[4], m[5], m[6], want[m[1]])
		}
	}
	for p := range want {
		if seen[p] != 2 {
			t.Errorf("%s reported %d times, want once per log setting:\n%s", p, seen[p], text)
		}
	}
	if !regexp.MustCompile(`(?m)^idle websocket +conns=6 .*goroutines/conn=`).MatchString(text) {
		t.Errorf("no idle WebSocket figures:\n%s", text)
	}
}
