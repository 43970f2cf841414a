package proxy_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// serveHTTP serves s at /acp until the test ends and returns its URL.
func serveHTTP(t *testing.T, s *acphttp.Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/acp", s)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return ts.URL + "/acp"
}

// The proxy over the network both ways: editors reach it through an
// acphttp server (safe defaults: a loopback listener, its Host checks),
// and it dials a network agent, one chain per editor connection; updates
// keep their order and the interceptor applies.
func TestOverACPHTTP(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	agentURL := serveHTTP(t, acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		a := &agent{updates: 25}
		a.conn = acp.NewAgentConn(a, c, c, acp.ConnOptions{})
		return a.conn.Run(ctx)
	}, acphttp.Options{Logger: quiet}))
	proxyURL := serveHTTP(t, acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		p := proxy.New(proxy.Options{})
		proxy.Notification(p, acp.ClientMethods.SessionUpdate, func(ctx context.Context, n *acp.SessionNotification, next func(context.Context, *acp.SessionNotification) error) error {
			if ch := n.Update.AgentMessageChunk; ch != nil && ch.Content.Text != nil {
				ch.Content.Text.Text = "net " + ch.Content.Text.Text
			}
			return next(ctx, n)
		})
		agentConn, err := acphttp.Dial(ctx, agentURL, acphttp.DialOptions{Profile: acphttp.StreamableHTTP, Logger: quiet})
		if err != nil {
			return err
		}
		return p.Run(ctx, proxy.Messages(c), proxy.Messages(agentConn))
	}, acphttp.Options{Logger: quiet}))

	ctx, cancel := context.WithCancel(context.Background())
	conn, err := acphttp.Dial(ctx, proxyURL, acphttp.DialOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cl := &client{}
	cc := acp.NewClientConn(cl, conn, conn, acp.ConnOptions{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = cc.Run(ctx) })
	defer func() { cancel(); conn.Close(); wg.Wait() }()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, u := range wantUpdates(25) {
		want = append(want, "net "+u)
	}
	if got := cl.updates(); !slices.Equal(got, want) {
		t.Errorf("updates: %s", strings.Join(got, ", "))
	}
}
