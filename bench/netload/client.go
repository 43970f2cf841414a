//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// client is one connection of the driver to an agent, with the sessions it
// tracks.
type client struct {
	acp.UnimplementedClientHandler
	conn *acp.ClientConn
	done chan error // Run's end

	mu       sync.Mutex
	sessions map[acp.SessionID]*track
}

// track is what arrived of one session's updates.
type track struct {
	got       int
	maxSeq    int
	reordered int     // a sequence number not above one seen before
	lat       []int32 // µs from the agent making the update to its handling here
}

func (c *client) SessionUpdate(ctx context.Context, p *acp.SessionNotification) {
	now := time.Now().UnixNano()
	if p.Update.AgentMessageChunk == nil || p.Update.AgentMessageChunk.Content.Text == nil {
		return
	}
	seq, made, ok := parseUpdate(p.Update.AgentMessageChunk.Content.Text.Text)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.sessions[p.SessionID]
	if t == nil {
		return
	}
	t.got++
	if seq <= t.maxSeq {
		t.reordered++
	} else {
		t.maxSeq = seq
	}
	t.lat = append(t.lat, int32((now-made)/1e3))
}

// start runs a client over r and w and initializes it.
func start(ctx context.Context, r io.Reader, w io.Writer) (*client, error) {
	c := &client{done: make(chan error, 1), sessions: map[acp.SessionID]*track{}}
	c.conn = acp.NewClientConn(c, r, w, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quiet}})
	go func() { c.done <- c.conn.Run(context.Background()) }()
	if _, err := c.conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion}); err != nil {
		c.conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// newSession opens a session and tracks it.
func (c *client) newSession(ctx context.Context) (acp.SessionID, error) {
	r, err := c.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/", MCPServers: []acp.MCPServer{}})
	if err != nil {
		return "", fmt.Errorf("session/new: %w", err)
	}
	c.mu.Lock()
	c.sessions[r.SessionID] = &track{}
	c.mu.Unlock()
	return r.SessionID, nil
}

// stream prompts a session for count updates, one per interval.
func (c *client) stream(ctx context.Context, s acp.SessionID, count int, interval time.Duration) error {
	_, err := c.conn.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s, Prompt: []acp.ContentBlock{acp.TextBlock(promptText(count, interval))}})
	return err
}

// take returns a session's track and starts a new one.
func (c *client) take(s acp.SessionID) *track {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.sessions[s]
	c.sessions[s] = &track{}
	return t
}

// received is how many updates a session has had.
func (c *client) received(s acp.SessionID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[s].got
}

// dialer opens the driver's network connections. Each socket binds a
// loopback address of its own in turn, so that tens of thousands of
// sockets (and those in TIME_WAIT from an earlier run) never exhaust one
// address's ephemeral ports.
type dialer struct {
	url  string
	hc   *http.Client
	mu   sync.Mutex
	next int
}

func newDialer(url string) *dialer {
	d := &dialer{url: url}
	tr := &http.Transport{
		DialContext:         d.dial,
		MaxIdleConnsPerHost: 1 << 16,
		MaxIdleConns:        1 << 16,
		IdleConnTimeout:     5 * time.Minute,
		ForceAttemptHTTP2:   false,
	}
	d.hc = &http.Client{Transport: tr}
	return d
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.next++
	n := d.next
	d.mu.Unlock()
	local := &net.TCPAddr{IP: net.IPv4(127, 0, byte(1+n/250%200), byte(2+n%250))}
	return (&net.Dialer{LocalAddr: local}).DialContext(ctx, network, addr)
}

// open dials one connection of profile p and initializes it.
func (d *dialer) open(ctx context.Context, p acphttp.Profile) (*client, *acphttp.Conn, error) {
	conn, err := acphttp.Dial(ctx, d.url, acphttp.DialOptions{Profile: p, HTTPClient: d.hc, Logger: quiet})
	if err != nil {
		return nil, nil, err
	}
	c, err := start(ctx, conn, conn)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return c, conn, nil
}
