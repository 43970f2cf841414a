package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// NetOptions configure an inspection over the network: clients connect to
// Listen, and each connection is relayed to the agent at Connect.
type NetOptions struct {
	// Listen is the TCP address served (host:port; port 0 picks one).
	Listen string
	// Connect is the agent's endpoint URL (ws, wss, http or https).
	Connect  string
	Profiles *Profiles
	// Stderr gets one line per finding.
	Stderr io.Writer
	// Trace, when set, gets one JSON record per message (see Record).
	Trace io.Writer
	// Server configures the listening side. Its zero value keeps
	// acphttp's defaults: loopback Host names only, and no listen address
	// other than loopback unless Auth or AllowUnauthenticated is set.
	Server acphttp.Options
	// Dial configures each connection to the agent.
	Dial acphttp.DialOptions
	// Listening, when set, is called with the bound address before any
	// client is served.
	Listening func(net.Addr)
}

// ServeNetwork serves Listen until ctx ends. Each client connection gets a
// connection of its own to Connect and a checker of its own; every message
// is judged, then passed on whole with its bytes unchanged, both ways.
// Closing either side closes the other. The trace names each message's
// connection by the order it was accepted in (1, 2, ...).
func ServeNetwork(ctx context.Context, o NetOptions) (*Result, error) {
	if o.Listen == "" || o.Connect == "" {
		return nil, errors.New("network inspection needs both an address to listen on and an agent URL to connect to")
	}
	s := newSink(o.Stderr, o.Trace)
	var n atomic.Int64
	srv := acphttp.NewServer(func(ctx context.Context, down *acphttp.Conn) error {
		st := stream{sink: s, checker: NewChecker(o.Profiles), conn: strconv.FormatInt(n.Add(1), 10)}
		return relayConn(ctx, st, down, o.Connect, o.Dial)
	}, o.Server)
	err := acphttp.ListenAndServe(ctx, o.Listen, srv, acphttp.ServeOptions{Listening: o.Listening})
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.err != nil {
		err = fmt.Errorf("writing the trace: %w", s.err)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Findings: s.findings}, nil
}

// relayConn dials the agent for one client connection and relays messages
// both ways until either side ends or ctx does.
func relayConn(ctx context.Context, st stream, down *acphttp.Conn, url string, o acphttp.DialOptions) error {
	up, err := acphttp.Dial(ctx, url, o)
	if err != nil {
		return fmt.Errorf("connecting to the agent: %w", err)
	}
	done := make(chan error, 2)
	go func() { done <- relayMessages(up, down, st, ToAgent) }()
	go func() { done <- relayMessages(down, up, st, ToClient) }()
	ended := 0
	select {
	case err = <-done:
		ended++
	case <-ctx.Done():
	}
	// One side ended: end the other, so that its relay returns too.
	down.Close()
	up.Close()
	for ; ended < 2; ended++ {
		<-done
	}
	return err
}

// relayMessages judges each message read from src, then writes it to dst.
// It returns nil at src's end.
func relayMessages(dst, src *acphttp.Conn, st stream, dir Direction) error {
	for {
		msg, err := src.ReadMessage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		st.observe(dir, msg[:min(len(msg), maxJudged)], len(msg))
		if err := dst.WriteMessage(msg); err != nil {
			return err
		}
	}
}
