package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
	"golang.org/x/mod/semver"
)

// schemaFileName is the configuration's JSON Schema, written beside it for
// editors.
const schemaFileName = "acpgen.schema.json"

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "write a starter " + config.FileName + " (and " + schemaFileName + " for editors) in the current folder",
		Description: "Refuses to overwrite either file. The starter pins schema.version, generates the stable\n" +
			"channel into --out (the v1 unstable one for a release that ships only that, as releases before\n" +
			"2.0.0 do; init reads the release from the schema cache, fetching it when missing), and keeps the\n" +
			"lock in schema/. Then run `acpgen generate`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "version", Value: config.TestedVersion, Usage: "version of @agentclientprotocol/sdk to pin"},
			&cli.StringSliceFlag{Name: "channel", Action: checkChannels, Usage: "channel to generate (stable, unstable, v2 or v2-unstable); repeatable (default: stable)"},
			&cli.StringFlag{Name: "out", Value: "acp", Usage: "output folder of the first channel (the unstable channel goes to OUT/unstable when both are chosen)"},
			&cli.StringFlag{Name: "package", Value: "acp", Usage: "Go package name of the first channel"},
			cacheFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "init takes no arguments, got %q", c.Args().Slice())
			}
			chans := c.StringSlice("channel")
			if len(chans) == 0 {
				ch, note, err := defaultChannel(c)
				if err != nil {
					return err
				}
				if note != "" {
					fmt.Fprintln(c.App.ErrWriter, "acpgen:", note)
				}
				chans = []string{ch}
			}
			f := starter(c, chans)
			data, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				return err
			}
			data = append(data, '\n')
			// Validate what we are about to write, so a bad flag fails here.
			if _, err := config.Parse(config.FileName, data); err != nil {
				return err
			}
			for _, name := range []string{config.FileName, schemaFileName} {
				if _, err := os.Stat(name); err == nil {
					return fmt.Errorf("%s exists: init never overwrites; edit it, or remove it first", name)
				}
			}
			if err := createNew(schemaFileName, config.Schema); err != nil {
				return err
			}
			if err := createNew(config.FileName, data); err != nil {
				os.Remove(schemaFileName)
				return err
			}
			cwd, _ := os.Getwd()
			fmt.Fprintf(c.App.Writer, "wrote %s and %s in %s\nnext: %s generate   (fetches %s and writes the lock, then the Go package)\n",
				config.FileName, schemaFileName, cwd, invocation(), f.Schema.Version)
			return nil
		},
	}
}

// defaultChannel is the channel init configures without --channel: the
// stable one when the release ships it, else the v1 unstable one (releases
// before 2.0.0 ship only that). What the release ships is read from the
// schema cache, fetching the release into it when it is missing; offline,
// the rule by version decides, and the note says so. A release npm does not
// have is an error.
func defaultChannel(c *cli.Context) (channel, note string, err error) {
	v := c.String("version")
	cache, err := source.CacheDir(c.String("cache-dir"))
	if err == nil {
		var l *source.Lock
		_, l, err = source.Fetch(c.Context, source.FetchOptions{Cache: cache, Stderr: c.App.ErrWriter}, nil, v)
		switch {
		case errors.Is(err, source.ErrNoSuchVersion):
			return "", "", fmt.Errorf("--version %s: %w", v, err)
		case err != nil:
		case l.Files[source.StableFile] != "":
			return "stable", "", nil
		default:
			return "unstable", fmt.Sprintf("%s@%s ships only the v1 unstable schema: the starter generates the unstable channel", source.Package, v), nil
		}
	}
	if semver.IsValid("v"+v) && semver.Compare("v"+v, "v2.0.0") < 0 {
		return "unstable", fmt.Sprintf("could not read %s@%s (%v); releases before 2.0.0 ship only the v1 unstable schema: the starter generates the unstable channel", source.Package, v, err), nil
	}
	return "stable", "", nil
}

// starter is the configuration init writes.
func starter(c *cli.Context, chans []string) config.File {
	f := config.File{
		SchemaRef: "./" + schemaFileName,
		Schema:    &config.Source{Dir: "schema", Version: c.String("version")},
	}
	out, pkg := c.String("out"), c.String("package")
	for i, name := range chans {
		ch := config.Channel{Name: name, Out: out, Package: pkg}
		if i > 0 {
			ch.Out, ch.Package = filepath.ToSlash(filepath.Join(out, name)), name
		}
		f.Channels = append(f.Channels, ch)
	}
	return f
}

// createNew writes a file that must not exist yet.
func createNew(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
