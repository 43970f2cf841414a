package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/urfave/cli/v2"
)

// schemaFileName is the configuration's JSON Schema, written beside it for
// editors.
const schemaFileName = "acpgen.schema.json"

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "write a starter " + config.FileName + " (and " + schemaFileName + " for editors) in the current folder",
		Description: "Refuses to overwrite either file. The starter pins schema.version, generates the stable\n" +
			"channel into --out, and keeps the lock in schema/. Then run `acpgen generate`.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "version", Value: config.TestedVersion, Usage: "version of @agentclientprotocol/sdk to pin"},
			&cli.StringSliceFlag{Name: "channel", Usage: "channel to generate (stable, unstable, v2 or v2-unstable); repeatable (default: stable)"},
			&cli.StringFlag{Name: "out", Value: "acp", Usage: "output folder of the first channel (the unstable channel goes to OUT/unstable when both are chosen)"},
			&cli.StringFlag{Name: "package", Value: "acp", Usage: "Go package name of the first channel"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "init takes no arguments, got %q", c.Args().Slice())
			}
			f := starter(c)
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

// starter is the configuration init writes.
func starter(c *cli.Context) config.File {
	chans := c.StringSlice("channel")
	if len(chans) == 0 {
		chans = []string{"stable"}
	}
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
