package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/coder/websocket"
)

// children counts the processes whose parent is pid, zombies not yet
// reaped included, from /proc.
func children(t *testing.T, pid int) int {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(" " + strconv.Itoa(pid) + " ")
	n := 0
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // it exited meanwhile
		}
		// "pid (comm) state ppid ...": comm may hold anything but the
		// last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+3 && bytes.HasPrefix(b[i+3:], want) {
			n++
		}
	}
	return n
}

// -max-agents bounds the agent processes: under a flood of WebSocket
// upgrades that never send initialize, and of Streamable HTTP initialize
// requests never followed by another, the proxy never has more than N
// agent processes (counted from /proc, unreaped ones included), and an
// editor that connects after the flood is still served.
func TestListenBoundsAgentProcesses(t *testing.T) {
	needBinaries(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("counting processes needs /proc")
	}
	const n = 2
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd, url := startListening(t, "-listen", "127.0.0.1:0", "-max-agents", strconv.Itoa(n))
	pid := cmd.Process.Pid

	var peak atomic.Int64
	sampling, stopSampling := context.WithCancel(ctx)
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for sampling.Err() == nil {
			if c := int64(children(t, pid)); c > peak.Load() {
				peak.Store(c)
			}
		}
	})

	flood, endFlood := context.WithCancel(ctx)
	var upgrades, inits sync.WaitGroup
	var sockets []*websocket.Conn
	var mu sync.Mutex
	for range 300 {
		upgrades.Go(func() {
			ws, _, err := websocket.Dial(flood, "ws"+strings.TrimPrefix(url, "http"), nil)
			if err == nil {
				mu.Lock()
				sockets = append(sockets, ws) // held open, never initialized
				mu.Unlock()
			}
		})
	}
	for range 60 {
		inits.Go(func() {
			body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
			req, _ := http.NewRequestWithContext(flood, http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		})
	}
	// Initialize requests that wait for an agent while others hold every
	// slot are given up once the upgrades are through.
	upgrades.Wait()
	endFlood()
	inits.Wait()
	// n more upgrades push the initialized connections that still hold
	// slots out of the pool of connections not in use.
	for range n {
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
		if err != nil {
			t.Fatal(err)
		}
		sockets = append(sockets, ws)
	}
	for _, ws := range sockets {
		ws.CloseNow()
	}

	alive := 0
	editorTurn(t, ctx, url, acphttp.WebSocket, func() { alive = children(t, pid) })
	stopSampling()
	sampler.Wait()
	if got := peak.Load(); got > n {
		t.Errorf("the proxy had %d agent processes at once, want at most -max-agents %d", got, n)
	}
	if alive == 0 {
		t.Errorf("no agent process counted while an editor was connected: the count is broken")
	}
}
