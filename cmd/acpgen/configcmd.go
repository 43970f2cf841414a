package main

import (
	"encoding/json"
	"fmt"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/urfave/cli/v2"
)

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "inspect the configuration file (" + config.FileName + ")",
		Subcommands: []*cli.Command{
			{
				Name:  "schema",
				Usage: "print the configuration file's JSON Schema (for editors and validators)",
				Action: func(c *cli.Context) error {
					_, err := c.App.Writer.Write(config.Schema)
					return err
				},
			},
			{
				Name:  "show",
				Usage: "print the configuration generate would use, with every default filled in",
				Flags: []cli.Flag{configFlag()},
				Action: func(c *cli.Context) error {
					r, err := config.Open(c.String("config"), config.Overrides{})
					if err != nil {
						return err
					}
					type channel struct {
						Name       string   `json:"name"`
						Schema     string   `json:"schema"`
						Meta       string   `json:"meta,omitempty"`
						Out        string   `json:"out"`
						Package    string   `json:"package"`
						ImportPath string   `json:"importPath"`
						Overlays   []string `json:"overlays"`
					}
					show := struct {
						File         string    `json:"file"`
						Root         string    `json:"root"`
						Lock         string    `json:"lock"`
						Cache        string    `json:"cache"`
						Version      string    `json:"version,omitempty"`
						URL          string    `json:"url,omitempty"`
						MetaDir      string    `json:"metaDir,omitempty"`
						StrictGates  bool      `json:"strictGates"`
						Descriptions bool      `json:"descriptions"`
						Channels     []channel `json:"channels"`
					}{File: r.File, Root: r.Root, Lock: r.LockPath(), Cache: r.Cache, Version: r.Version, URL: r.URL,
						MetaDir: r.Config.MetaDir, StrictGates: r.Config.StrictGates, Descriptions: r.Config.Descriptions}
					for _, ch := range r.Config.Channels {
						show.Channels = append(show.Channels, channel{ch.Name, ch.SchemaFile, ch.MetaFile, ch.OutDir, ch.Package, ch.ImportPath, append([]string{}, ch.Overlays...)})
					}
					data, err := json.MarshalIndent(show, "", "  ")
					if err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "%s\n", data)
					return nil
				},
			},
		},
	}
}
