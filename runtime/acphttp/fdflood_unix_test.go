//go:build unix

package acphttp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// childFDLimit is the soft RLIMIT_NOFILE of the server process the flood
// tests start: low enough that a flood this test can afford exhausts it on
// a server without stream caps.
const childFDLimit = 256

// envFDChild makes the test binary serve as the flood tests' child
// process (see TestMain) instead of running tests.
const envFDChild = "ACPHTTP_FD_LIMITED_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(envFDChild) == "1" {
		if err := serveFDLimited(); err != nil {
			fmt.Fprintln(os.Stderr, "fd-limited server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveFDLimited is the flood tests' child process: it lowers its own
// RLIMIT_NOFILE to childFDLimit, serves a Server with default Options on a
// loopback port, prints "listening ADDR", and serves until its stdin
// closes. The limit is the child's alone: the test process's and the
// machine's are not changed.
func serveFDLimited() error {
	lim := syscall.Rlimit{Cur: childFDLimit, Max: childFDLimit}
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &cur); err == nil && cur.Max < lim.Max {
		lim.Max = cur.Max
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("lowering RLIMIT_NOFILE: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	s := NewServer(serveTest, Options{Logger: quiet()})
	return ListenAndServe(ctx, "127.0.0.1:0", s, ServeOptions{Listening: func(a net.Addr) {
		fmt.Printf("listening %s\n", a)
	}})
}

// startFDLimitedServer starts serveFDLimited in a child process and returns
// its /acp URL; the child ends with the test.
func startFDLimitedServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envFDChild+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(guard):
			cmd.Process.Kill()
			<-done
		}
	})
	lines := bufio.NewScanner(stdout)
	addr := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if a, ok := strings.CutPrefix(lines.Text(), "listening "); ok {
				addr <- a
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatal("the server process ended before listening")
		}
		return "http://" + a + "/acp"
	case <-time.After(guard):
		t.Fatal("the server process did not listen")
	}
	return ""
}

// floodSessionStreams opens n session streams with random Acp-Session-Ids
// on the connection id, each over a TCP connection of its own (HTTP/1.1),
// and holds the ones answered 200 open until the test ends. It returns the
// statuses (0: no answer within 5 s).
func floodSessionStreams(t *testing.T, url, id string, n int) map[int]int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tr := &http.Transport{MaxIdleConnsPerHost: -1} // a connection per request, as a flood opens them
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var b [16]byte
			rand.Read(b[:])
			rctx, rcancel := context.WithCancel(ctx)
			timer := time.AfterFunc(5*time.Second, rcancel) // a server out of descriptors accepts none
			req, _ := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set(HeaderConnectionID, id)
			req.Header.Set(HeaderSessionID, hex.EncodeToString(b[:]))
			resp, err := hc.Do(req)
			st := 0
			if err == nil {
				st = resp.StatusCode
				if st == http.StatusOK {
					timer.Stop() // held open: the flood keeps its streams
					go func() { io.Copy(io.Discard, resp.Body); resp.Body.Close(); rcancel() }()
				} else {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					rcancel()
				}
			} else {
				rcancel()
			}
			mu.Lock()
			statuses[st]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return statuses
}

// One unauthenticated client floods a server whose process has
// childFDLimit descriptors with session streams for random session ids
// (more than the limit); a second client is still served on both profiles,
// its session's updates included, while the flood holds what it got.
func TestStreamFloodLeavesServerServing(t *testing.T) {
	url := startFDLimitedServer(t)
	hostile := initConn(t, url)
	statuses := floodSessionStreams(t, url, hostile, 2*childFDLimit)
	for _, p := range []Profile{StreamableHTTP, WebSocket} {
		if err := secondClientServed(url, p); err != nil {
			t.Errorf("%s: second client: %v", p, err)
		}
	}
	// MaxConnectionStreams' documented default: F/64 = 4, raised to 8.
	if statuses[http.StatusOK] != 8 || statuses[http.StatusTooManyRequests] != 2*childFDLimit-8 {
		t.Errorf("flood statuses %v, want 8 streams opened and the rest refused with 429", statuses)
	}
}

// secondClientServed dials url on profile p, initializes, and runs a
// "stream" request on a session of its own: nil once all of it has been
// served within 5 s.
func secondClientServed(url string, p Profile) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, url, DialOptions{Profile: p, Logger: quiet(), HTTPClient: &http.Client{Transport: &http.Transport{}}})
	if err != nil {
		return fmt.Errorf("Dial: %w", err)
	}
	defer c.Close() // also ends a request stuck on a server that accepts nothing
	rpc, tc := newTestRPC(c)
	defer rpc.Close()
	done := make(chan error, 1)
	go func() {
		if _, err := rpc.Call(ctx, "initialize", wire.Raw(`{"protocolVersion":1}`)); err != nil {
			done <- fmt.Errorf("initialize: %w", err)
		} else if res, err := rpc.Call(ctx, "stream", wire.Raw(`{"sessionId":"s2","n":3}`)); err != nil || string(res) != `{"n":3}` {
			done <- fmt.Errorf("stream: %s %v", res, err)
		} else if got := tc.taken(); len(got) != 3 {
			done <- fmt.Errorf("%d session updates, want 3: %q", len(got), got)
		} else {
			done <- nil
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errors.New("not served within 5 s")
	}
}

// Many unauthenticated connections of one client (each a principal of its
// own) flooding session streams: MaxStreams (F/2 = 128) keeps the server's
// descriptors. Past it GETs are answered 503, none is left unanswered, and
// a WebSocket client is still served.
func TestStreamFloodFromManyConnections(t *testing.T) {
	url := startFDLimitedServer(t)
	total := map[int]int{}
	for range 24 { // 24 connections of 8 streams each would be 192
		for st, n := range floodSessionStreams(t, url, initConn(t, url), 16) {
			total[st] += n
		}
	}
	if total[http.StatusOK] > childFDLimit/2 || total[http.StatusServiceUnavailable] == 0 || total[0] > 0 {
		t.Errorf("flood statuses %v, want at most %d opened, some 503 and none unanswered", total, childFDLimit/2)
	}
	if err := secondClientServed(url, WebSocket); err != nil {
		t.Errorf("websocket: second client: %v", err)
	}
}
