package main

import (
	"fmt"
	"os"
	"time"

	"github.com/acpgen/acpgen/conform"
	"github.com/urfave/cli/v2"
)

func conformCommand() *cli.Command {
	return &cli.Command{
		Name:  "conform",
		Usage: "check an ACP peer against the schema over stdio",
		Subcommands: []*cli.Command{{
			Name:      "agent",
			Usage:     "start an agent and check it: initialize, every advertised method with valid and invalid params, unknown methods, malformed frames, cancellation, the overlays' RFD rules, every frame it writes, exit on EOF",
			ArgsUsage: "-- CMD [ARGS]",
			Description: "The schema is the configured one (acpgen.json, else the release this acpgen was tested with), read at run time.\n" +
				"Exit status 3 when the agent breaks a MUST rule on valid traffic; else 4 when cases were blocked (the agent wants authentication: --auth-method); else 0.\n" +
				"What the agent does after invalid input (a crash, an invalid value it accepted and echoes) is the robustness group, judged at the input's level (--robustness must: at MUST).",
			Flags: []cli.Flag{
				configFlag(),
				cacheFlag(),
				&cli.StringFlag{Name: "channel", Action: checkChannel, Usage: "schema channel: stable, unstable (widens the method set), v2 or v2-unstable (the v2 draft); default: the configuration's stable channel, else its first; one it does not list is read from its release without overlays"},
				&cli.StringSliceFlag{Name: "category", Usage: "run only this category (repeatable): " + fmt.Sprint(conform.Categories)},
				&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "per case: how long to wait for a response or an exit"},
				&cli.IntFlag{Name: "mutants", Value: 6, Usage: "invalid params per method beyond the dropped required members"},
				&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
				&cli.StringFlag{Name: "overlays", Usage: "strict: judge the rules the configured overlays add at their level (by default they are informational)"},
				&cli.BoolFlag{Name: "base-only", Usage: "check against the released schema alone, without the configured overlays"},
				&cli.StringFlag{Name: "auth-method", Usage: "authenticate with this method id right after initialize (v1 authenticate, v2 auth/login)"},
				&cli.BoolFlag{Name: "restart", Usage: "persistence cases: restart the agent (the same command) between a recorded turn and session/load (v1) or session/resume with replayFrom (v2), and compare the replay with the turn"},
				&cli.StringFlag{Name: "cancel-prompt", Usage: "the text of the prompts whose turn the cancel and close cases interrupt; give one the agent works on for a while (by default one that holds examples/agent's turn until cancelled)"},
				&cli.StringFlag{Name: "robustness", Usage: "must: judge the robustness group (a crash after invalid params or a malformed line, frames echoing invalid params the agent accepted) at MUST, so that it fails the run (by default at the level of the case that sent the input)"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() == 0 {
					return usageErrorf(c, "no command given: %s conform agent [flags] -- CMD [ARGS]", invocation())
				}
				if o := c.String("robustness"); o != "" && o != conform.RobustnessMust {
					return usageErrorf(c, "--robustness %q: the only level is %s (without it, the robustness group is judged at the level of the case that sent the invalid input)", o, conform.RobustnessMust)
				}
				if o := c.String("overlays"); o != "" && o != conform.OverlaysStrict {
					return usageErrorf(c, "--overlays %q: the only mode is %s (without it, overlay rules are informational)", o, conform.OverlaysStrict)
				}
				if c.Duration("timeout") <= 0 {
					return fmt.Errorf("--timeout %s: a case needs a positive time limit", c.Duration("timeout"))
				}
				p, err := conform.LoadProfile(c.Context, conform.ProfileOptions{
					Config: c.String("config"), Channel: c.String("channel"), Cache: c.String("cache-dir"), Stderr: c.App.ErrWriter,
					BaseOnly: c.Bool("base-only"),
				})
				if err != nil {
					return err
				}
				rep, err := conform.CheckAgent(c.Context, p, conform.Options{
					Argv: c.Args().Slice(), Timeout: c.Duration("timeout"), Categories: c.StringSlice("category"), MutantsPerMethod: c.Int("mutants"),
					Overlays: c.String("overlays"), AuthMethod: c.String("auth-method"), Robustness: c.String("robustness"), CancelPrompt: c.String("cancel-prompt"), Restart: c.Bool("restart"),
				})
				if err != nil {
					return err
				}
				return writeReport(c, rep)
			},
		}, {
			Name:      "client",
			Usage:     "serve a scripted agent to a client and check it: initialize, every frame it sends, capability gates, its answers to the agent's requests, unknown methods and notifications, exit when the agent's stdout ends",
			ArgsUsage: "-- CMD [ARGS with " + conform.AgentToken + "]",
			Description: "Write " + conform.AgentToken + " where the client takes the agent's command line; it becomes this acpgen with hidden\n" +
				"arguments that relay the client's stdio to the checker over a unix socket. The schema is the configured one.\n" +
				"Exit status 3 when a MUST case fails.",
			Flags: []cli.Flag{
				configFlag(),
				cacheFlag(),
				&cli.StringFlag{Name: "channel", Action: checkChannel, Usage: "schema channel: stable, unstable, v2 or v2-unstable (the scripted agent speaks that channel's protocol version); default as for conform agent"},
				&cli.StringSliceFlag{Name: "category", Usage: "run only this category (repeatable): " + fmt.Sprint(conform.ClientCategories)},
				&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "per case: how long to wait for a request, a response or an exit"},
				&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() == 0 {
					return usageErrorf(c, "no command given: %s conform client [flags] -- CMD [ARGS with %s]", invocation(), conform.AgentToken)
				}
				if c.Duration("timeout") <= 0 {
					return fmt.Errorf("--timeout %s: a case needs a positive time limit", c.Duration("timeout"))
				}
				self, err := os.Executable()
				if err != nil {
					return err
				}
				p, err := conform.LoadProfile(c.Context, conform.ProfileOptions{
					Config: c.String("config"), Channel: c.String("channel"), Cache: c.String("cache-dir"), Stderr: c.App.ErrWriter,
				})
				if err != nil {
					return err
				}
				rep, err := conform.CheckClient(c.Context, p, conform.ClientOptions{
					Argv: c.Args().Slice(), Relay: []string{self, "conform", "relay"}, Timeout: c.Duration("timeout"), Categories: c.StringSlice("category"),
				})
				if err != nil {
					return err
				}
				return writeReport(c, rep)
			},
		}, {
			Name:   "relay",
			Hidden: true,
			Usage:  "the scripted agent of conform client: copy stdio to the checker's socket",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageErrorf(c, "relay takes the checker's socket path")
				}
				return conform.Relay(c.Args().First())
			},
		}},
	}
}

func writeReport(c *cli.Context, rep *conform.Report) error {
	var err error
	if c.Bool("json") {
		err = rep.WriteJSON(c.App.Writer)
	} else {
		err = rep.WriteTable(c.App.Writer)
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return verdictError{"a MUST case failed"}
	}
	if rep.Blocked() {
		return blockedError{"cases were blocked: " + rep.Hint}
	}
	return nil
}

// ExitStatusBlocked is conform's exit status when no MUST case failed but
// cases could not run (the agent wants authentication first).
const ExitStatusBlocked = 4

// blockedError is conform's verdict that cases were blocked.
type blockedError struct{ msg string }

func (e blockedError) Error() string { return e.msg }
