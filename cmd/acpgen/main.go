// Command acpgen generates Go types, codecs and method tables for the Agent
// Client Protocol from its published JSON Schemas.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

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
	if err := app().RunContext(ctx, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "acpgen:", errorText(err))
		os.Exit(1)
	}
}

// errorText prints an error that lists a single problem ("summary:\n  problem",
// as overlay, format and meta errors do) as that problem's line alone: the line
// already names the file and JSON pointer, so one bad input gives one line.
func errorText(err error) string {
	msg := err.Error()
	if _, items, ok := strings.Cut(msg, ":\n  "); ok && !strings.Contains(items, "\n") {
		return items
	}
	return msg
}

// errStale is returned by generate --check; its message is already printed.
var errStale = errors.New("generated files are stale: run `go run ./cmd/acpgen generate`")

func app() *cli.App {
	return &cli.App{
		Name:  "acpgen",
		Usage: "generate a Go SDK for the Agent Client Protocol from its JSON Schemas",
		// Errors are printed once by main, with a non-zero exit.
		ExitErrHandler: func(*cli.Context, error) {},
		// Overlay and output paths may contain commas.
		DisableSliceFlagSeparator: true,
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
				},
			},
			apidiffCommand(),
			configCommand(),
			scaffoldCommand(),
		},
	}
}

func configFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "config", Usage: "configuration file (default: " + config.FileName + " in the current folder, if present; see `acpgen config schema`)"}
}

// loadConfig reads the configuration named by --config, or acpgen.json in
// the current folder; with neither, it returns nil and "" (built-in defaults).
func loadConfig(c *cli.Context) (*config.File, string, error) {
	file, err := config.Find(c.String("config"))
	if err != nil || file == "" {
		return nil, "", err
	}
	f, err := config.Load(file)
	return f, file, err
}

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "generate the Go packages (pulls the pinned schema first when it is missing)",
		Description: "Reads " + config.FileName + " (or --config) when present; every flag overrides it. Per-channel\n" +
			"flags take NAME=VALUE (stable=..., unstable=...), or just VALUE when one channel is generated.",
		Flags: []cli.Flag{
			configFlag(),
			&cli.StringFlag{Name: "schema-dir", Usage: "folder with schema.json and schema.unstable.json (and meta files, cross-checked when present); a folder with lock.json is verified and pulled when files are missing (default: the configuration's schema.dir, else schema)"},
			&cli.StringFlag{Name: "root", Usage: "folder the output paths are relative to (default: the configuration file's folder, else the current folder)"},
			&cli.BoolFlag{Name: "check", Usage: "generate in memory, print a unified diff of every stale, missing or extra file, exit 1 if any; write nothing"},
			&cli.BoolFlag{Name: "descriptions", Usage: "copy the schema's description text into doc comments (off: comments are generated from structure only)"},
			&cli.StringSliceFlag{Name: "channel", Usage: "generate only this channel (stable or unstable); repeatable"},
			&cli.StringSliceFlag{Name: "out", Usage: "output folder of a channel, relative to the root: NAME=DIR; repeatable"},
			&cli.StringSliceFlag{Name: "package", Usage: "Go package name of a channel: NAME=PKG; repeatable"},
			&cli.StringSliceFlag{Name: "import-path", Usage: "Go import path of a channel's output folder: NAME=PATH (default: derived from the go.mod above the root); repeatable"},
			&cli.StringSliceFlag{Name: "overlay", Usage: "overlay file applied to every channel, after the configured ones; repeatable"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print generation notes, such as capability gates that match nothing in this schema or channel selection"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("generate takes no arguments, got %q", c.Args().Slice())
			}
			f, file, err := loadConfig(c)
			if err != nil {
				return err
			}
			o := config.Overrides{
				SchemaDir: c.String("schema-dir"), Root: c.String("root"),
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
				if *p.dst, err = channelValues(p.flag, c.StringSlice(p.flag), o.Channels); err != nil {
					return err
				}
			}
			r, err := config.Resolve(f, file, o)
			if err != nil {
				return err
			}
			if err := r.Prepare(c.Context, os.Stderr); err != nil {
				return err
			}
			if c.Bool("verbose") {
				// Off by default: a schema other than the pinned one, or a
				// subset of the channels, skips many gates by design.
				r.Config.Report = os.Stderr
			}
			files, err := r.Generate()
			if err != nil {
				return err
			}
			owned := r.Config.Owned()
			if c.Bool("check") {
				changes, err := output.Compare(r.Root, files, owned)
				if err != nil {
					return err
				}
				for _, ch := range changes {
					fmt.Fprint(c.App.Writer, output.Unified(ch))
				}
				if len(changes) > 0 {
					return errStale
				}
				return nil
			}
			return output.WriteContext(c.Context, r.Root, files, owned)
		},
	}
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
		Usage: "check the schema files against lock.json without fetching anything",
		Flags: []cli.Flag{
			configFlag(),
			&cli.StringFlag{Name: "schema-dir", Usage: "folder with the schema files and lock.json (default: the configuration's schema.dir, else schema)"},
		},
		Action: func(c *cli.Context) error {
			r, err := resolveForSchema(c)
			if err != nil {
				return err
			}
			dir := r.Config.SchemaDir
			l, err := source.ReadLock(filepath.Join(dir, source.LockFile))
			if err != nil {
				return err
			}
			if err := source.Verify(dir, l); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s@%s: %d files match the lock\n", l.Package, l.Version, len(l.Files))
			return nil
		},
	}
}

// resolveForSchema resolves the configuration for the schema commands,
// which only need its schema section (and channel overlays).
func resolveForSchema(c *cli.Context) (*config.Resolved, error) {
	f, file, err := loadConfig(c)
	if err != nil {
		return nil, err
	}
	return config.Resolve(f, file, config.Overrides{SchemaDir: c.String("schema-dir")})
}
