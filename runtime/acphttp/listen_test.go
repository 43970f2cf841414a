package acphttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// serving runs Serve on a loopback listener and returns the endpoint's URL;
// cleanup ends it and checks that it returned.
func serving(t *testing.T, s *Server, o ServeOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, s, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(guard):
			t.Error("Serve did not return after its context ended")
		}
	})
	return "http://" + ln.Addr().String() + "/acp"
}

// waitClosed reads c until the server closes it; a connection still open
// after guard fails the test.
func waitClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(guard))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: still open after %v", what, guard)
	}
}

// A keep-alive connection that carries no request for KeepAliveTimeout is
// closed.
func TestServeClosesIdleKeepAlive(t *testing.T) {
	url := serving(t, NewServer(serveTest, Options{Logger: quiet()}), ServeOptions{KeepAliveTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/acp"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusUnsupportedMediaType || resp.Close {
		t.Fatalf("first request: %v %v, want a kept-alive 415", resp, err)
	}
	resp.Body.Close()
	waitClosed(t, c, "idle keep-alive connection")
}

// A client that sends its headers slower than ReadHeaderTimeout is cut off.
func TestServeClosesSlowHeaders(t *testing.T) {
	url := serving(t, NewServer(serveTest, Options{Logger: quiet()}), ServeOptions{ReadHeaderTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/acp"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /acp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	waitClosed(t, c, "connection with unfinished headers")
}

// Event streams (over HTTP/1.1 and h2c) and WebSockets outlive every
// timeout of ServeOptions by far: a message sent after many of them still
// arrives.
func TestServeKeepsStreamsOpen(t *testing.T) {
	const short = 50 * time.Millisecond
	url := serving(t, NewServer(serveTest, Options{Logger: quiet()}), ServeOptions{ReadHeaderTimeout: short, KeepAliveTimeout: short})
	h2c := &http.Client{Transport: &http.Transport{Protocols: new(http.Protocols)}}
	h2c.Transport.(*http.Transport).Protocols.SetUnencryptedHTTP2(true)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	type stream struct {
		name, id string
		events   *bufio.Reader
	}
	var streams []stream
	for name, client := range map[string]*http.Client{"HTTP/1.1": http.DefaultClient, "h2c": h2c} {
		st, h, _ := rawPost(t, url, initBody, nil)
		if st != http.StatusOK {
			t.Fatalf("initialize: %d", st)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderConnectionID, h.Get(HeaderConnectionID))
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s GET: %v %v", name, resp, err)
		}
		defer resp.Body.Close()
		streams = append(streams, stream{name, h.Get(HeaderConnectionID), bufio.NewReader(resp.Body)})
	}
	ws, _, _ := dialRPC(t, url, DialOptions{Profile: WebSocket})

	time.Sleep(20 * short) // no traffic: each timeout would have fired many times

	if res, err := ws.Call(ctx, "echo", wire.Raw(`[2]`)); err != nil || string(res) != "[2]" {
		t.Errorf("WebSocket after %v quiet: %s, %v", 20*short, res, err)
	}
	for _, s := range streams {
		if st, _, _ := rawPost(t, url, `{"jsonrpc":"2.0","id":7,"method":"echo","params":[1]}`, map[string]string{HeaderConnectionID: s.id}); st != http.StatusAccepted {
			t.Fatalf("POST: %d", st)
		}
		line, err := s.events.ReadString('\n')
		if want := `data: {"jsonrpc":"2.0","id":7,"result":[1]}`; err != nil || strings.TrimSpace(line) != want {
			t.Errorf("%s event stream after %v quiet: %q, %v; want %s", s.name, 20*short, line, err, want)
		}
	}
}

// Without Auth, an address other than loopback is refused before anything
// is served, unless AllowUnauthenticated says so; loopback and Unix
// sockets are served.
func TestServeRefusesExposureWithoutAuth(t *testing.T) {
	noAuth := NewServer(serveTest, Options{Logger: quiet()})
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		called := false
		err := ListenAndServe(context.Background(), addr, noAuth, ServeOptions{Listening: func(net.Addr) { called = true }})
		if !errors.Is(err, ErrUnauthenticatedExposure) || called {
			t.Errorf("ListenAndServe %s without Auth: %v (served: %v), want ErrUnauthenticatedExposure", addr, err, called)
		}
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := Serve(context.Background(), ln, noAuth, ServeOptions{}); !errors.Is(err, ErrUnauthenticatedExposure) {
		t.Errorf("Serve on %s without Auth: %v, want ErrUnauthenticatedExposure", ln.Addr(), err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("the refused listener is still open")
	}
	served := func(addr string, o Options) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		var bound net.Addr
		err := ListenAndServe(ctx, addr, NewServer(serveTest, o), ServeOptions{Listening: func(a net.Addr) { bound = a; cancel() }})
		if err != nil || bound == nil {
			t.Errorf("ListenAndServe %s with %+v: %v (bound %v), want served", addr, o, err, bound)
		}
	}
	served("127.0.0.1:0", Options{Logger: quiet()})
	served("localhost:0", Options{Logger: quiet()})
	served("0.0.0.0:0", Options{Auth: tokens, Logger: quiet()})
	served("0.0.0.0:0", Options{AllowUnauthenticated: true, Logger: quiet()})

	sock := filepath.Join(t.TempDir(), "acp.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no Unix sockets:", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var bound net.Addr
	if err := Serve(ctx, uln, noAuth, ServeOptions{Listening: func(a net.Addr) { bound = a; cancel() }}); err != nil || bound == nil {
		t.Errorf("Serve on a Unix socket without Auth: %v (bound %v), want served", err, bound)
	}
	os.Remove(sock)
}

// Headers past MaxHeaderBytes are refused with 431.
func TestServeBoundsHeaders(t *testing.T) {
	url := serving(t, NewServer(serveTest, Options{Logger: quiet()}), ServeOptions{MaxHeaderBytes: 4 << 10})
	big := map[string]string{"X-Pad": strings.Repeat("x", 32<<10)}
	if st, _, _ := rawPost(t, url, initBody, big); st != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("32 KiB of headers: %d, want 431", st)
	}
	if st, _, _ := rawPost(t, url, initBody, nil); st != http.StatusOK {
		t.Errorf("small headers: %d, want 200", st)
	}
}
