package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// network is how -listen serves editors.
type network struct {
	addr      string
	token     string
	hosts     []string
	maxAgents int
}

// serve serves editors over the network at http://ADDR/acp, in both of
// acphttp's profiles, until ctx ends; then it drains the connections (see
// drains) and returns. acphttp's defaults keep it local: without a token
// only a loopback address is served, and a request naming the server by
// another name than a loopback one (or -allow-host's) or coming from
// another site's page is refused. maxAgents also bounds the connections in
// use, and as many opening.
func (n network) serve(ctx context.Context, args []string, log *slog.Logger) error {
	o := acphttp.Options{Logger: log, AllowedHosts: n.hosts, MaxConnections: n.maxAgents, MaxPendingConnections: n.maxAgents}
	if n.token != "" {
		o.Auth = acphttp.BearerToken(n.token)
	}
	l := &listener{args: args, log: log, slots: make(chan struct{}, n.maxAgents)}
	srv := acphttp.NewServer(l.serveConn, o)
	// The server outlives ctx until the connections have drained.
	sctx, shut := context.WithCancel(context.WithoutCancel(ctx))
	defer shut()
	go func() {
		select {
		case <-ctx.Done():
			l.drains.drain(drainGrace, log)
			shut()
		case <-sctx.Done():
		}
	}()
	return acphttp.ListenAndServe(sctx, n.addr, srv, acphttp.ServeOptions{
		Listening: func(a net.Addr) { fmt.Printf("listening on http://%s/acp\n", a) },
	})
}

// listener runs the editor connections of -listen.
type listener struct {
	args   []string // the agent's command line
	log    *slog.Logger
	slots  chan struct{} // one per agent process, until it is reaped
	drains drains
}

// serveConn runs one editor connection: a proxy of its own in front of an
// agent process of its own, started once the connection's first message
// (initialize) has arrived. The agent's slot is taken before it starts and
// given back once it has been reaped, so the agents of evicted or closed
// connections still exiting count too; a connection waits for a slot
// while its context lasts.
func (l *listener) serveConn(ctx context.Context, c *acphttp.Conn) error {
	ctx, d := jsonrpc.WithDrain(ctx) // the proxy's, which runtime/proxy follows
	if !l.drains.add(d) {
		return nil // opened while draining
	}
	defer l.drains.done(d)
	editor := proxy.Messages(c)
	read := make(chan struct{})
	go func() {
		select {
		case <-d.Started(): // no chain runs yet to drain it
			c.Close()
		case <-read:
		}
	}()
	first, err := editor.Read()
	close(read)
	if err != nil {
		return nil // closed before its first message: no agent was needed
	}
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-d.Started():
		return nil
	}
	defer func() { <-l.slots }()
	clog := l.log.With("connection", c.ID())
	m := newMeter(clog)
	defer m.report()
	cmd := exec.Command(l.args[0], l.args[1:]...)
	cmd.Stderr = os.Stderr
	agent, err := proxy.Command(cmd)
	if err != nil {
		return err
	}
	defer agent.Close() // returns once the agent has been reaped
	return newProxy(m, clog).Run(ctx, &primed{Link: editor, first: first}, agent)
}

// primed is a Link whose first message was read before the proxy ran.
type primed struct {
	proxy.Link
	first []byte
}

func (p *primed) Read() ([]byte, error) {
	if f := p.first; f != nil {
		p.first = nil
		return f, nil
	}
	return p.Link.Read()
}
