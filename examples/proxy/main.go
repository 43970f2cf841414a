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
//	proxy -listen ADDR [-token-file FILE | -token T] [-allow-host H]... [-max-agents N] [--] AGENT [ARGS...]
//	proxy -component
//
// Run transparently (the first form) it speaks ACP on stdin and stdout to
// the editor and starts the agent, whose stdin and stdout are the other side
// and whose stderr is the proxy's. With -listen it serves editors over the
// network instead, at http://ADDR/acp in both of runtime/acphttp's profiles,
// printing "listening on http://ADDR/acp" once it accepts connections: each
// editor connection gets an agent process of its own, started when its
// first message arrives, and at most -max-agents (8) agent processes exist
// at once, counting those still exiting (a connection waits for a slot).
// On SIGTERM or SIGINT it drains as examples/agent does: a request an
// editor sends from then on is refused -32001, the requests in flight have
// 10 s to finish, then are cancelled at the agent, and it exits once they
// are answered. Without a token (every request then needs "Authorization:
// Bearer T"; from -token-file FILE, the ACP_TOKEN environment variable, or
// -token, which every user of the machine can read in the process list) it
// serves loopback addresses only; requests
// must name the server by a loopback name unless -allow-host lists others,
// and browser pages of other sites are refused. With -component it is a
// Proxy Chains component (the unstable schema's proxy/initialize and
// proxy/successor): stdin and stdout are its one connection to a conductor,
// which starts it and the agent. It exits 0 when its input (the editor's,
// or the conductor's) ends, 1 when the agent exits first or a side fails
// (with -listen: when it cannot serve ADDR).
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

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/proxy"
)

func main() {
	component := flag.Bool("component", false, "run as a Proxy Chains component: stdin and stdout are the conductor's connection")
	var n network
	flag.StringVar(&n.addr, "listen", "", "serve editors over the network at http://ADDR/acp instead of stdio, an agent for each")
	flag.StringVar(&n.token, "token", "", "with -listen: require \"Authorization: Bearer TOKEN\" (visible in the process list: prefer -token-file or $"+acphttp.TokenEnv+")")
	tokenFile := flag.String("token-file", "", "with -listen: the token is this file's content (default: $"+acphttp.TokenEnv+")")
	flag.Func("allow-host", "with -listen: accept requests naming the server HOST or HOST:PORT (repeatable; default loopback names only)", func(h string) error {
		n.hosts = append(n.hosts, h)
		return nil
	})
	flag.IntVar(&n.maxAgents, "max-agents", 8, "with -listen: agent processes at once, one per editor connection from its first message (more connections wait); also the connections in use, and as many opening")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: proxy [-listen ADDR [-token-file FILE | -token T] [-allow-host H]...] [--] AGENT [ARGS...]\n       proxy -component")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *component == (flag.NArg() > 0) || (*component && n.addr != "") || n.maxAgents < 1 {
		flag.Usage()
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if n.addr != "" {
		tok, err := acphttp.LoadToken(n.token, *tokenFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proxy:", err)
			os.Exit(2)
		}
		n.token = tok
		if err := n.serve(ctx, flag.Args(), log); err != nil {
			log.Error("proxy ended", "err", err)
			os.Exit(1)
		}
		return
	}
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
