// Command proxy is an example ACP proxy built on runtime/proxy and the
// generated package github.com/acpgen/acpgen/gen/acp/unstable. It sits
// between an editor and an agent:
//
//   - it hides the editor's terminals from the agent: initialize reaches the
//     agent without clientCapabilities.terminal, so the agent's capability
//     gates stay truthful, and a terminal method the agent sends anyway
//     (terminal/create, terminal/output, ...) is answered -32601 without
//     reaching the editor;
//   - it counts each session's tokens from the agent's reports (the usage of
//     session/prompt's result, the context window of usage_update) and logs
//     the session's running total on stderr after every turn, and every
//     session's total when it ends.
//
// Everything else passes as the same bytes with the same ids.
//
// Usage:
//
//	proxy [--] AGENT [ARGS...]
//	proxy -component
//
// Run transparently (the first form) it speaks ACP on stdin and stdout to
// the editor and starts the agent, whose stdin and stdout are the other side
// and whose stderr is the proxy's. With -component it is a Proxy Chains
// component (the unstable schema's proxy/initialize and proxy/successor):
// stdin and stdout are its one connection to a conductor, which starts it
// and the agent. It exits 0 when its input (the editor's, or the
// conductor's) ends, 1 when the agent exits first or a side fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/acpgen/acpgen/runtime/proxy"
)

func main() {
	component := flag.Bool("component", false, "run as a Proxy Chains component: stdin and stdout are the conductor's connection")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: proxy [--] AGENT [ARGS...]\n       proxy -component")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *component == (flag.NArg() > 0) {
		flag.Usage()
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := newMeter(log)
	p := newProxy(m, log)
	var err error
	if *component {
		pred, succ := proxy.Component(proxy.Stream(os.Stdin, os.Stdout))
		err = p.Run(ctx, pred, succ)
	} else {
		err = transparent(ctx, p, flag.Args())
	}
	m.report()
	if err != nil {
		log.Error("proxy ended", "err", err)
		os.Exit(1)
	}
}

// transparent runs p between the editor on stdin and stdout and the agent
// that args start.
func transparent(ctx context.Context, p *proxy.Proxy, args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	agent, err := proxy.Command(cmd)
	if err != nil {
		return err
	}
	return p.Run(ctx, proxy.Stream(os.Stdin, os.Stdout), agent)
}
