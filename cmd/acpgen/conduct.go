package main

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/acpgen/acpgen/runtime/conductor"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/urfave/cli/v2"
)

// chainSeparator separates the components' command lines.
const chainSeparator = ":::"

// ExitStatusChainEnded is conduct's exit status when a component exited
// while the editor was still connected.
const ExitStatusChainEnded = 5

func conductCommand() *cli.Command {
	return &cli.Command{
		Name:      "conduct",
		Usage:     "run a Proxy Chain (proxies, then the agent) for an editor that knows nothing about proxies, on stdio",
		ArgsUsage: "-- PROXY [ARGS] ::: [PROXY [ARGS] ::: ...] AGENT [ARGS]",
		Description: "Put it in the editor's agent command. It starts each component, sends proxy/initialize to every\n" +
			"component with a successor and initialize to the agent, and routes proxy/successor between them\n" +
			"(unstable schema, Proxy Chains). It takes the Rust SDK's names (_proxy/initialize, _proxy/successor)\n" +
			"from components too and wraps for each proxy in the names it used; --proxy-names rust sends those\n" +
			"names from the start. Components' stderr lines arrive on stderr prefixed \"[N PROGRAM] \".\n" +
			"Exits 0 when the editor closed stdin first, " + fmt.Sprint(ExitStatusChainEnded) + " when a component exited before.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "proxy-names", Value: proxychain.Schema.String(), Usage: "the Proxy Chains method names the conductor sends: schema (proxy/initialize) or rust (_proxy/initialize, as the Rust SDK's proxies take)"},
			&cli.DurationFlag{Name: "grace", Value: conductor.DefaultGrace, Usage: "how long a component has to exit once its stdin is closed before its process group is killed"},
		},
		Action: func(c *cli.Context) error {
			chain, err := splitChain(c.Args().Slice())
			if err != nil {
				return usageErrorf(c, "%v: %s conduct [flags] -- PROXY [ARGS] ::: AGENT [ARGS]", err, invocation())
			}
			names, ok := proxychain.ParseDialect(c.String("proxy-names"))
			if !ok {
				return usageErrorf(c, "--proxy-names %q: want schema or rust", c.String("proxy-names"))
			}
			res, err := conductor.Run(c.Context, conductor.Options{
				Components: chain, Stdin: c.App.Reader, Stdout: c.App.Writer, Stderr: c.App.ErrWriter,
				Logger: slog.New(slog.NewTextHandler(c.App.ErrWriter, nil)), Grace: c.Duration("grace"),
				Names: names,
			})
			switch {
			case err != nil:
				return err
			case res.Ended != nil:
				return chainEnded{*res.Ended}
			}
			return nil
		},
	}
}

// splitChain splits the arguments into the components' command lines.
func splitChain(args []string) ([][]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no components given")
	}
	var chain [][]string
	for {
		i := slices.Index(args, chainSeparator)
		if i < 0 {
			i = len(args)
		}
		if i == 0 {
			return nil, fmt.Errorf("component %d is empty (two %s in a row, or one at an end)", len(chain)+1, chainSeparator)
		}
		chain = append(chain, args[:i])
		if i == len(args) {
			return chain, nil
		}
		args = args[i+1:]
	}
}

// chainEnded ends conduct with ExitStatusChainEnded.
type chainEnded struct{ exit conductor.Exit }

func (e chainEnded) Error() string { return e.exit.String() + "; the chain has ended" }
