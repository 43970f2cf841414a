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
// of its own in front of an agent process of its own, started from args.
// acphttp's defaults keep it local: without a token only a loopback
// address is served, and a request naming the server by another name than
// a loopback one (or -allow-host's) or coming from another site's page is
// refused. maxAgents bounds the connections in use, and as many opening,
// so the agent processes an editor can make the proxy start.
func (n network) serve(ctx context.Context, args []string, log *slog.Logger) error {
	o := acphttp.Options{Logger: log, AllowedHosts: n.hosts, MaxConnections: n.maxAgents, MaxPendingConnections: n.maxAgents}
	if n.token != "" {
		o.Auth = acphttp.BearerToken(n.token)
	}
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		clog := log.With("connection", c.ID())
		m := newMeter(clog)
		defer m.report()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stderr = os.Stderr
		agent, err := proxy.Command(cmd)
		if err != nil {
			return err
		}
		return newProxy(m, clog).Run(ctx, proxy.Messages(c), agent)
	}, o)
	return acphttp.ListenAndServe(ctx, n.addr, srv, acphttp.ServeOptions{
		Listening: func(a net.Addr) { fmt.Printf("listening on http://%s/acp\n", a) },
	})
}
