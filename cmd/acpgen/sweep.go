package main

import (
	"fmt"
	"os"

	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/generator/sweep"
	"github.com/urfave/cli/v2"
)

func sweepCommand() *cli.Command {
	return &cli.Command{
		Name:  "sweep",
		Usage: "generate, build and vet every published release's v1 schema files, and print a table",
		Description: "Lists the published versions of " + source.Package + " (npm view), fetches each into the\n" +
			"schema cache, generates each v1 schema file it ships into one scratch module in a temporary\n" +
			"folder, and builds and vets each package there (a bounded number at once, one build cache).\n" +
			"The table (Markdown) goes to standard output: version, protocol, channel, defs, result, first\n" +
			"error. The exit status is 1 when any file failed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "first version to try (default: the oldest)"},
			&cli.StringFlag{Name: "to", Usage: "last version to try (default: the newest)"},
			&cli.StringSliceFlag{Name: "version", Usage: "try only this published version; repeatable (instead of --from and --to)"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "builds run at once", DefaultText: "the number of CPUs"},
			&cli.StringFlag{Name: "work", Usage: "scratch module folder, kept afterwards (default: a temporary folder, removed)"},
			cacheFlag(),
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: func(c *cli.Context) error {
			versions, err := sweepVersions(c)
			if err != nil {
				return err
			}
			cache, err := source.CacheDir(c.String("cache-dir"))
			if err != nil {
				return err
			}
			if w := c.String("work"); w != "" {
				if err := os.MkdirAll(w, 0o755); err != nil {
					return err
				}
			}
			rows, err := sweep.Run(c.Context, sweep.Options{Versions: versions, Cache: cache, Npm: c.String("npm"),
				Work: c.String("work"), Jobs: c.Int("jobs"), Log: c.App.ErrWriter})
			if err != nil {
				return err
			}
			sweep.Table(c.App.Writer, rows)
			if n := sweep.Failed(rows); n > 0 {
				return fmt.Errorf("%d of %d schema files failed", n, len(rows))
			}
			return nil
		},
	}
}

// sweepVersions is what npm publishes, narrowed by the flags; versions
// named with --version must be published.
func sweepVersions(c *cli.Context) ([]string, error) {
	all, err := sweep.Published(c.Context, c.String("npm"))
	if err != nil {
		return nil, err
	}
	picked := c.StringSlice("version")
	if len(picked) == 0 {
		return sweep.Select(all, c.String("from"), c.String("to"))
	}
	if c.IsSet("from") || c.IsSet("to") {
		return nil, fmt.Errorf("--version cannot be combined with --from or --to")
	}
	published := map[string]bool{}
	for _, v := range all {
		published[v] = true
	}
	for _, v := range picked {
		if !published[v] {
			return nil, fmt.Errorf("%s@%s is not a published version", source.Package, v)
		}
	}
	return picked, nil
}
