package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"

	"github.com/acpgen/acpgen/runtime/acphttp"
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
// acphttp's profiles, until ctx ends: each editor connection gets a proxy
// of its own in front of an agent process of its own, started from args
// once the connection's first message (initialize) has arrived. acphttp's
// defaults keep it local: without a token only a loopback address is
// served, and a request naming the server by another name than a loopback
// one (or -allow-host's) or coming from another site's page is refused.
// maxAgents bounds the agent processes: a slot is taken before one starts
// and given back once it has been reaped, so evicted or closed connections
// whose agents are still exiting count too; a connection waits for a slot
// while its context lasts. It also bounds the connections in use, and as
// many opening.
func (n network) serve(ctx context.Context, args []string, log *slog.Logger) error {
	o := acphttp.Options{Logger: log, AllowedHosts: n.hosts, MaxConnections: n.maxAgents, MaxPendingConnections: n.maxAgents}
	if n.token != "" {
		o.Auth = acphttp.BearerToken(n.token)
	}
	slots := make(chan struct{}, n.maxAgents)
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		editor := proxy.Messages(c)
		first, err := editor.Read()
		if err != nil {
			return nil // closed before its first message: no agent was needed
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		defer func() { <-slots }()
		clog := log.With("connection", c.ID())
		m := newMeter(clog)
		defer m.report()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = os.Stderr
		agent, err := proxy.Command(cmd)
		if err != nil {
			return err
		}
		defer agent.Close() // returns once the agent has been reaped
		return newProxy(m, clog).Run(ctx, &primed{Link: editor, first: first}, agent)
	}, o)
	return acphttp.ListenAndServe(ctx, n.addr, srv, acphttp.ServeOptions{
		Listening: func(a net.Addr) { fmt.Printf("listening on http://%s/acp\n", a) },
	})
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
