package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/inspect"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/urfave/cli/v2"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "relay an editor's stdio to an agent unchanged and check every message both ways (schema, gates, lifecycle)",
		ArgsUsage: "-- AGENT [ARGS]  |  --listen ADDR --connect URL",
		Description: "Put it in the editor's agent command in front of the agent. Findings go to stderr, one line each\n" +
			"(direction, method, level, rule, JSON pointer); stdout carries the agent's bytes only.\n" +
			"Exits with the agent's exit status.\n" +
			"With --listen and --connect it serves ACP over the network at http://ADDR/acp (loopback only) and\n" +
			"relays each client connection to the agent at URL over a connection of its own, until SIGINT or SIGTERM;\n" +
			"it prints \"listening on URL\" on stderr once bound. Stopped, it lets the requests in flight finish (up to 10 s),\n" +
			"prints a one-line summary (connections, findings by level) and exits 0.",
		Flags: []cli.Flag{
			configFlag(),
			cacheFlag(),
			&cli.StringFlag{Name: "channel", Action: checkChannel, Usage: "schema channel: stable, unstable, v2 or v2-unstable; the other protocol version's counterpart is used when the session negotiates it; default as for conform agent"},
			&cli.StringFlag{Name: "trace", Usage: "write every frame with its findings to this file as JSON lines (read by inspect report)"},
			&cli.StringFlag{Name: "listen", Usage: "serve clients over the network at this loopback address (host:port; port 0 picks one); needs --connect"},
			&cli.StringFlag{Name: "connect", Usage: "with --listen: the agent's endpoint URL (ws, wss, http or https)"},
		},
		Action: func(c *cli.Context) error {
			network := c.IsSet("listen") || c.IsSet("connect")
			switch {
			case network && (c.String("listen") == "" || c.String("connect") == "" || c.NArg() > 0):
				return usageErrorf(c, "over the network give both --listen ADDR and --connect URL, and no agent command")
			case !network && c.NArg() == 0:
				return usageErrorf(c, "no agent command given: %s inspect [flags] -- AGENT [ARGS]", invocation())
			}
			profiles, err := inspect.LoadProfiles(c.Context, conform.ProfileOptions{
				Config: c.String("config"), Channel: c.String("channel"), Cache: c.String("cache-dir"), Stderr: c.App.ErrWriter,
			})
			if err != nil {
				return err
			}
			trace, closeTrace, err := createTrace(c.String("trace"))
			if err != nil {
				return err
			}
			defer closeTrace()
			if network {
				return inspectNetwork(c, profiles, trace)
			}
			o := inspect.Options{Argv: c.Args().Slice(), Profiles: profiles, Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter, Trace: trace}
			res, err := inspect.Run(c.Context, o)
			if err != nil {
				return err
			}
			if res.ExitStatus != 0 {
				return agentExit{res.ExitStatus}
			}
			return nil
		},
		Subcommands: []*cli.Command{inspectReportCommand()},
	}
}

// createTrace opens the trace file at path, if one is asked for (see
// inspect.CreateTrace).
func createTrace(path string) (io.Writer, func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := inspect.CreateTrace(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// inspectNetwork serves --listen, relaying to --connect, until SIGINT or
// SIGTERM ends c.Context; then the connections drain (see
// inspect.ServeNetwork).
func inspectNetwork(c *cli.Context, profiles *inspect.Profiles, trace io.Writer) error {
	logger := slog.New(slog.NewTextHandler(c.App.ErrWriter, nil))
	o := inspect.NetOptions{
		Listen: c.String("listen"), Connect: c.String("connect"), Profiles: profiles,
		Stderr: c.App.ErrWriter, Trace: trace,
		Server: acphttp.Options{Logger: logger}, Dial: acphttp.DialOptions{Logger: logger},
		Listening: func(a net.Addr) {
			fmt.Fprintf(c.App.ErrWriter, "listening on http://%s%s\n", a, acphttp.DefaultPath)
		},
	}
	res, err := inspect.ServeNetwork(c.Context, o)
	if err != nil {
		return err
	}
	// Stopping is how a server ends: a summary, and exit 0 whatever was
	// found, as the stdio mode exits with the agent's status.
	fmt.Fprintf(c.App.ErrWriter, "acpgen inspect: stopped; connections: %d, findings: %d MUST, %d SHOULD, %d INFO\n",
		res.Connections, res.Findings["MUST"], res.Findings["SHOULD"], res.Findings["INFO"])
	return nil
}

// agentExit ends inspect with the agent's exit status.
type agentExit struct{ status int }

func (e agentExit) Error() string { return fmt.Sprintf("the agent exited with status %d", e.status) }

func inspectReportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a self-contained HTML page of a trace: a timeline per session, findings with their rule, filters, raw frames",
		ArgsUsage: "TRACE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "the HTML file to write (default: TRACE with .html instead of its extension)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "want one trace file: %s inspect report TRACE [-o FILE]", invocation())
			}
			return inspect.Report(c.Args().First(), c.String("o"))
		},
	}
}
