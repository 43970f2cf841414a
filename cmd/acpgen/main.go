// Command acpgen generates Go types, codecs and method tables for the Agent
// Client Protocol from its published JSON Schemas.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

func main() {
	if err := app().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "acpgen:", err)
		os.Exit(1)
	}
}

// errStale is returned by generate --check; its message is already printed.
var errStale = errors.New("generated files are stale: run `go run ./cmd/acpgen generate`")

func app() *cli.App {
	return &cli.App{
		Name:  "acpgen",
		Usage: "generate a Go SDK for the Agent Client Protocol from its JSON Schemas",
		// Errors are printed once by main, with a non-zero exit.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			generateCommand(),
			overlayCommand(),
			{
				Name:  "schema",
				Usage: "obtain and verify the pinned upstream schema files",
				Subcommands: []*cli.Command{
					pullCommand(),
					verifyCommand(),
				},
			},
		},
	}
}

func schemaDirFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "schema-dir", Value: "schema", Usage: usage}
}

func generateCommand() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "generate the Go packages (pulls the pinned schema first when it is missing)",
		Flags: []cli.Flag{
			schemaDirFlag("folder with schema.json and schema.unstable.json (and meta files, cross-checked when present); the default pinned folder also holds lock.json"),
			&cli.StringFlag{Name: "root", Value: ".", Usage: "folder the output paths are relative to (the repository root)"},
			&cli.BoolFlag{Name: "check", Usage: "generate in memory, print a unified diff of every stale, missing or extra file, exit 1 if any; write nothing"},
			&cli.BoolFlag{Name: "descriptions", Usage: "copy the schema's description text into doc comments (off: comments are generated from structure only)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("generate takes no arguments, got %q", c.Args().Slice())
			}
			dir := c.String("schema-dir")
			pinned := false
			if _, err := os.Stat(filepath.Join(dir, source.LockFile)); err == nil {
				// A locked folder is verified, and pulled when files are missing.
				if _, err := source.Ensure(context.Background(), dir, os.Stderr); err != nil {
					return err
				}
				pinned = true
			}
			cfg := generator.RepoConfig()
			cfg.SchemaDir, cfg.MetaDir = dir, dir
			cfg.WriteMeta = pinned
			cfg.Descriptions = c.Bool("descriptions")
			files, err := generator.Generate(cfg)
			if err != nil {
				return err
			}
			root := c.String("root")
			owned := cfg.Owned()
			if c.Bool("check") {
				changes, err := output.Compare(root, files, owned)
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
			return output.Write(root, files, owned)
		},
	}
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:  "pull",
		Usage: "obtain the schema files with npm (or from a URL) and verify them against schema/lock.json",
		Flags: []cli.Flag{
			schemaDirFlag("folder to write the schema files and lock.json into"),
			&cli.StringFlag{Name: "version", Usage: "package version to pull; a version other than the lock's updates the lock"},
			&cli.StringFlag{Name: "from-url", Usage: "fetch a package tarball or a single schema file from this URL instead of running npm; verified against the lock"},
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: func(c *cli.Context) error {
			l, err := source.Pull(context.Background(), source.PullOptions{
				Dir: c.String("schema-dir"), Version: c.String("version"), FromURL: c.String("from-url"),
				Npm: c.String("npm"), Stderr: os.Stderr,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "%s@%s verified (%d files)\n", l.Package, l.Version, len(l.Files))
			return nil
		},
	}
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "check the schema files against lock.json without fetching anything",
		Flags: []cli.Flag{schemaDirFlag("folder with the schema files and lock.json")},
		Action: func(c *cli.Context) error {
			dir := c.String("schema-dir")
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
