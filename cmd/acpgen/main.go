// Command acpgen generates Go types, codecs and method tables for the Agent
// Client Protocol from its published JSON Schemas.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

func main() {
	// An interrupt cancels the context instead of killing the process, so a
	// generation in progress stops before its rename phase and leaves the
	// output as it was.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second interrupt kills the process as usual
	}()
	if err := runApp(ctx, app(), os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "acpgen:", errorText(err))
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintf(os.Stderr, "run '%s --help' for usage\n", strings.TrimSpace(invocation()+" "+u.command))
		}
		os.Exit(exitStatus(ctx, err))
	}
}

// Exit statuses besides 0 and 1 (any other error); docs/cli.md tables them.
const (
	// ExitStatusUsage: a bad flag, argument or command; nothing was done.
	ExitStatusUsage = 2
	// ExitStatusInterrupted: SIGINT or SIGTERM stopped the command, as a
	// shell reports a process killed by SIGINT (128+2).
	ExitStatusInterrupted = 130
)

// exitStatus maps an error to the process's exit status.
func exitStatus(ctx context.Context, err error) int {
	var v verdictError
	var b blockedError
	var u usageError
	var a agentExit
	var ce chainEnded
	switch {
	case ctx.Err() != nil: // the error is how the interrupted step ended
		return ExitStatusInterrupted
	case errors.As(err, &a):
		return a.status
	case errors.As(err, &ce):
		return ExitStatusChainEnded
	case errors.As(err, &v):
		return ExitStatusVerdict
	case errors.As(err, &b):
		return ExitStatusBlocked
	case errors.As(err, &u):
		return ExitStatusUsage
	}
	return 1
}

// usageError is a flag or argument the command does not take. It is printed
// once, with a one-line hint instead of the whole help.
type usageError struct {
	command string // as typed after acpgen: "generate", "schema pull"
	err     error
}

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usageErrorf is a usage error of the running command.
func usageErrorf(c *cli.Context, format string, a ...any) error {
	name := strings.TrimPrefix(c.Command.HelpName, c.App.Name)
	return usageError{command: strings.TrimSpace(name), err: fmt.Errorf(format, a...)}
}

// onUsageError makes every command's flag errors usage errors.
func onUsageError(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		name := strings.TrimSpace(parent + " " + c.Name)
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usageError{command: name, err: suggestFlag(err, c.Flags)}
		}
		onUsageError(c.Subcommands, name)
	}
}

// errorText prints an error that lists a single problem ("summary:\n  problem",
// as overlay, format and meta errors do) as that problem's line alone: the line
// already names the file and JSON pointer, so one bad input gives one line.
func errorText(err error) string {
	// Hints in errors spell commands as `acpgen ...`; say them the way the
	// user runs acpgen from here.
	msg := strings.ReplaceAll(err.Error(), "`acpgen ", "`"+invocation()+" ")
	if _, items, ok := strings.Cut(msg, ":\n  "); ok && !strings.Contains(items, "\n") {
		return items
	}
	return msg
}

// staleError is returned by generate --check once the diff is printed; it
// names the command that regenerates.
func staleError() error {
	return fmt.Errorf("generated files are stale: run `%s`", rerun("--check"))
}

// firstSteps opens acpgen --help: what a new module runs, in order.
const firstSteps = `Start in your module with:
   acpgen init                        write acpgen.json (the schema release and channels)
   acpgen generate                    fetch and verify the schema, write the Go packages
   acpgen scaffold agent --out DIR    a compiling starter agent (or: scaffold client, scaffold proxy)
   acpgen conform agent -- AGENT      check an agent against the protocol
In a module that has acpgen as a tool, run each as go tool acpgen.`

func app() *cli.App {
	// -v is generate's --verbose; the version is --version or the command.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	a := &cli.App{
		Name:        "acpgen",
		Usage:       "generate a Go SDK for the Agent Client Protocol from its JSON Schemas",
		Description: firstSteps,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError{err: suggestFlag(err, c.App.Flags)}
		},
		// Errors are printed once by main, with a non-zero exit.
		ExitErrHandler: func(*cli.Context, error) {},
		// Overlay and output paths may contain commas.
		DisableSliceFlagSeparator: true,
		Version:                   buildVersion(),
		// runApp reports unknown commands; this is `acpgen [COMMAND] help NAME`'s.
		CommandNotFound: func(c *cli.Context, name string) {
			cmds, parent := c.App.Commands, ""
			if c.Command != nil && c.Command.HelpName != c.App.Name {
				cmds, parent = c.Command.Subcommands, strings.TrimSpace(strings.TrimPrefix(c.Command.HelpName, c.App.Name))
			}
			err := unknownCommand(strings.Fields(parent), cmds, name)
			fmt.Fprintf(c.App.ErrWriter, "acpgen: %v\nrun '%s --help' for usage\n", err, strings.TrimSpace(invocation()+" "+parent))
			cli.OsExiter(ExitStatusUsage)
		},
		Commands: []*cli.Command{
			generateCommand(),
			overlayCommand(),
			{
				Name:  "schema",
				Usage: "obtain, verify and compare upstream schema revisions",
				Subcommands: []*cli.Command{
					pullCommand(),
					verifyCommand(),
					schemaDiffCommand(),
					sweepCommand(),
				},
			},
			apidiffCommand(),
			releaseCommand(),
			configCommand(),
			initCommand(),
			scaffoldCommand(),
			conformCommand(),
			inspectCommand(),
			conductCommand(),
			versionCommand(),
		},
	}
	onUsageError(a.Commands, "")
	return a
}

func configFlag() *cli.StringFlag {
	// No backquotes: urfave/cli shows a quoted word as the value's name.
	return &cli.StringFlag{Name: "config", Usage: "configuration file (default: " + config.FileName + " in the current folder or the nearest folder above it within the module; see 'acpgen config schema')"}
}

func fromURLFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "from-url", Usage: "when the pinned release is not cached, take its package tarball (or a single schema file) from this http(s) or file URL or path instead of running npm; verified against the lock; npm view @agentclientprotocol/sdk@VERSION dist.tarball prints the URL"}
}

func cacheFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "cache-dir", Usage: "schema cache (default: $" + source.CacheEnv + ", else acpgen/ in the user's cache folder)"}
}

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "generate the Go packages (pulls the pinned schema first when it is missing)",
		Description: "Reads " + config.FileName + " (or --config) when present; every flag overrides it. Per-channel\n" +
			"flags take NAME=VALUE (stable=..., unstable=...), or just VALUE when one channel is generated.",
		Flags: []cli.Flag{
			configFlag(),
			&cli.StringFlag{Name: "schema-dir", Usage: "read the schema files from this folder instead of the pinned release (read-only: verified against its lock.json when it has one; meta files in it are cross-checked)"},
			cacheFlag(),
			fromURLFlag(),
			&cli.StringFlag{Name: "root", Usage: "folder the output paths are relative to (default: the configuration file's folder, else the current folder)"},
			&cli.BoolFlag{Name: "check", Usage: "generate in memory, print a unified diff of every stale, missing or extra file, exit 1 if any; write nothing"},
			&cli.BoolFlag{Name: "descriptions", Usage: "copy the schema's description text into doc comments (off: comments are generated from structure only)"},
			&cli.StringSliceFlag{Name: "channel", Action: checkChannels, Usage: "generate only this channel (stable, unstable, v2 or v2-unstable); repeatable"},
			&cli.StringSliceFlag{Name: "out", Usage: "output folder of a channel, relative to the root: NAME=DIR; repeatable"},
			&cli.StringSliceFlag{Name: "package", Usage: "Go package name of a channel: NAME=PKG; repeatable"},
			&cli.StringSliceFlag{Name: "import-path", Usage: "Go import path of a channel's output folder: NAME=PATH (default: derived from the go.mod above the root); repeatable"},
			&cli.StringSliceFlag{Name: "overlay", Usage: "overlay file applied to every channel, after the configured ones; repeatable"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print generation notes, such as capability gates that match nothing in this schema or channel selection"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success (no summary line)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "generate takes no arguments, got %q", c.Args().Slice())
			}
			start := time.Now()
			o, err := generateOverrides(c)
			if err != nil {
				return err
			}
			run := config.Run{Config: c.String("config"), Overrides: o, Check: c.Bool("check"), Stderr: c.App.ErrWriter}
			if c.Bool("verbose") {
				// Off by default: a schema other than the pinned one, or a
				// subset of the channels, skips many gates by design.
				run.Report = c.App.ErrWriter
			}
			out, err := run.Do(c.Context)
			if err != nil {
				return err
			}
			return generated(c, out, start)
		},
	}
}

// generated reports a generation: the diff and the stale error of --check,
// else the summary line.
func generated(c *cli.Context, out *config.Outcome, start time.Time) error {
	r := out.Resolved
	if c.Bool("check") {
		for _, ch := range out.Changes {
			fmt.Fprint(c.App.Writer, output.Unified(ch))
		}
		if len(out.Changes) > 0 {
			return staleError()
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.ErrWriter, "acpgen: %s: %d files up to date (%s, %s)\n", channelNames(r), out.Files, schemaName(r), elapsed(start))
		}
		return nil
	}
	if sum := out.Summary; !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "acpgen: %s: %d files: %d written, %d unchanged, %d removed (%s, %s)\n",
			channelNames(r), sum.Written+sum.Unchanged, sum.Written, sum.Unchanged, sum.Removed, schemaName(r), elapsed(start))
	}
	return nil
}

// generateOverrides reads generate's flags.
func generateOverrides(c *cli.Context) (config.Overrides, error) {
	o := config.Overrides{
		SchemaDir: c.String("schema-dir"), Root: c.String("root"), Cache: c.String("cache-dir"),
		FromURL:  c.String("from-url"),
		Channels: c.StringSlice("channel"), Overlays: c.StringSlice("overlay"),
	}
	if c.IsSet("descriptions") {
		d := c.Bool("descriptions")
		o.Descriptions = &d
	}
	for _, p := range []struct {
		flag string
		dst  *map[string]string
	}{{"out", &o.Out}, {"package", &o.Package}, {"import-path", &o.ImportPath}} {
		var err error
		if *p.dst, err = channelValues(p.flag, c.StringSlice(p.flag), o.Channels); err != nil {
			return o, err
		}
	}
	return o, nil
}

func channelNames(r *config.Resolved) string {
	var names []string
	for _, ch := range r.Config.Channels {
		names = append(names, ch.Name)
	}
	return strings.Join(names, ", ")
}

// schemaName says which schema was generated from.
func schemaName(r *config.Resolved) string {
	switch {
	case r.Lock != nil && r.SchemaDir != "":
		return r.Lock.Package + "@" + r.Lock.Version + " from " + r.SchemaDir
	case r.Lock != nil:
		return r.Lock.Package + "@" + r.Lock.Version
	}
	return "schema folder " + r.SchemaDir
}

func elapsed(start time.Time) string {
	return time.Since(start).Round(10 * time.Millisecond).String()
}

// channelValues parses repeated NAME=VALUE flags. A bare VALUE is allowed
// when exactly one channel was selected with --channel.
func channelValues(flag string, values, channels []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		name, val, ok := strings.Cut(v, "=")
		if !ok {
			if len(channels) != 1 {
				return nil, fmt.Errorf("--%s %s: write CHANNEL=VALUE, or select exactly one channel with --channel", flag, v)
			}
			name, val = channels[0], v
		}
		if val == "" {
			return nil, fmt.Errorf("--%s %s: empty value", flag, v)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--%s: channel %s given twice", flag, name)
		}
		out[name] = val
	}
	return out, nil
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check the cached schema files against the configuration's lock.json without fetching anything",
		Flags: []cli.Flag{configFlag(), cacheFlag()},
		Action: func(c *cli.Context) error {
			r, err := config.Open(c.String("config"), config.Overrides{Cache: c.String("cache-dir")})
			if err != nil {
				return err
			}
			l, err := source.ReadLock(r.LockPath())
			if err != nil {
				return err
			}
			dir := source.VersionDir(r.Cache, l.Version)
			if err := source.Verify(dir, l); err != nil {
				return fmt.Errorf("%w\n(the cache does not hold %s@%s as %s pins it: `%s` fetches it)", err, l.Package, l.Version, r.LockPath(), invocation()+" schema pull")
			}
			fmt.Fprintf(c.App.Writer, "%s@%s: %d files in %s match %s\n", l.Package, l.Version, len(l.Files), dir, r.LockPath())
			return nil
		},
	}
}
