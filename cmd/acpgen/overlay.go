package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

// errConflicts is returned by overlay status; the report is already printed.
var errConflicts = errors.New("overlays conflict with the base schema (see the report above)")

func overlayCommand() *cli.Command {
	return &cli.Command{
		Name:  "overlay",
		Usage: "inspect RFD and vendor overlays",
		Subcommands: []*cli.Command{{
			Name:      "status",
			Usage:     "print, per overlay and change, whether it is added, already upstream or in conflict",
			ArgsUsage: "[OVERLAY...]",
			Description: "Applies the overlays in order to each base schema and prints every change's state:\n" +
				"added, upstream (the base already has it), tightened (upstream has it; the overlay makes\n" +
				"its rules stricter), removed, skipped (a target this base lacks) or conflict. An overlay\n" +
				"whose changes are all upstream or skipped can be retired. Exits 1 on any conflict.\n" +
				"Without arguments it checks the repository's RFD overlays: " + strings.Join(generator.RFDOverlays, ", ") + ".",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "schema-dir", Value: "schema", Usage: "folder whose schema.json and schema.unstable.json (those present) are the bases; a folder with lock.json is verified, and pulled when files are missing"},
				&cli.StringSliceFlag{Name: "schema", Usage: "a base schema file instead of --schema-dir; repeatable"},
			},
			Action: func(c *cli.Context) error {
				files := c.Args().Slice()
				if len(files) == 0 {
					files = generator.RFDOverlays
				}
				bases := c.StringSlice("schema")
				if len(bases) == 0 {
					dir := c.String("schema-dir")
					if _, err := os.Stat(filepath.Join(dir, source.LockFile)); err == nil {
						if _, err := source.Ensure(c.Context, dir, c.App.ErrWriter); err != nil {
							return err
						}
					}
					for _, name := range []string{source.StableFile, source.UnstableFile} {
						if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
							bases = append(bases, filepath.Join(dir, name))
						}
					}
					if len(bases) == 0 {
						return fmt.Errorf("%s holds neither %s nor %s", dir, source.StableFile, source.UnstableFile)
					}
				}
				conflict := false
				for _, b := range bases {
					data, err := os.ReadFile(b)
					if err != nil {
						return err
					}
					res, err := overlay.ApplyFiles(data, b, files)
					var ce *overlay.ConflictError
					if err != nil && !errors.As(err, &ce) {
						return err
					}
					conflict = conflict || ce != nil
					printStatus(c.App.Writer, b, res)
				}
				if conflict {
					return errConflicts
				}
				return nil
			},
		}},
	}
}

// printStatus writes one base's report: every change of every overlay, then
// whether the overlay could be retired against this base.
func printStatus(w io.Writer, base string, res *overlay.Result) {
	fmt.Fprintf(w, "%s\n", base)
	for _, o := range res.Overlays {
		if strings.Contains(o.ID, "#") {
			continue // a provenance variant of the overlay above
		}
		fmt.Fprintf(w, "  %s: %s (%s)\n", o.ID, o.Title, o.Status)
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		counts := map[string]int{}
		for _, s := range res.Statuses {
			if s.Overlay != o.ID {
				continue
			}
			counts[s.State]++
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", s.State, s.Change, s.Pointer, s.Detail)
		}
		tw.Flush()
		fmt.Fprintf(w, "    => %s\n", retirement(o.ID, counts, res))
	}
}

func retirement(id string, counts map[string]int, res *overlay.Result) string {
	var open []string
	for _, st := range []string{overlay.Conflict, overlay.Added, overlay.Tightened, overlay.Removed} {
		if counts[st] > 0 {
			open = append(open, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	if len(open) > 0 {
		return "still needed: " + strings.Join(open, ", ")
	}
	kept := 0
	for _, g := range res.Gates {
		if g.Source == id {
			kept++
		}
	}
	for _, p := range res.Presence {
		if p.Source == id {
			kept++
		}
	}
	for _, r := range res.Semantics.Roots {
		if r.Source == id {
			kept++
		}
	}
	for _, f := range res.Semantics.Filters {
		if f.Source == id {
			kept++
		}
	}
	if kept > 0 {
		return fmt.Sprintf("retirable as schema: every change is upstream; first move its %d gate, presence and helper rule(s) elsewhere", kept)
	}
	return "retirable: every change is upstream"
}
