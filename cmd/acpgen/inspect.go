package main

import (
	"fmt"
	"os"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/inspect"
	"github.com/urfave/cli/v2"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "relay an editor's stdio to an agent unchanged and check every message both ways (schema, gates, lifecycle)",
		ArgsUsage: "-- AGENT [ARGS]",
		Description: "Put it in the editor's agent command in front of the agent. Findings go to stderr, one line each\n" +
			"(direction, method, level, rule, JSON pointer); stdout carries the agent's bytes only.\n" +
			"Exits with the agent's exit status.",
		Flags: []cli.Flag{
			configFlag(),
			cacheFlag(),
			&cli.StringFlag{Name: "channel", Usage: "schema channel: stable, unstable, v2 or v2-unstable; the other protocol version's counterpart is used when the session negotiates it; default as for conform agent"},
			&cli.StringFlag{Name: "trace", Usage: "write every frame with its findings to this file as JSON lines (read by inspect report)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "no agent command given: %s inspect [flags] -- AGENT [ARGS]", invocation())
			}
			profiles, err := inspect.LoadProfiles(c.Context, conform.ProfileOptions{
				Config: c.String("config"), Channel: c.String("channel"), Cache: c.String("cache-dir"), Stderr: c.App.ErrWriter,
			})
			if err != nil {
				return err
			}
			o := inspect.Options{Argv: c.Args().Slice(), Profiles: profiles, Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
			if path := c.String("trace"); path != "" {
				f, err := os.Create(path)
				if err != nil {
					return err
				}
				defer f.Close()
				o.Trace = f
			}
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
