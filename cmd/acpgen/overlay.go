package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/overlay"
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
				"Without arguments it checks each configured channel's overlays against that channel's\n" +
				"schema (the pinned release, or --schema-dir); OVERLAY arguments are applied to every\n" +
				"configured channel's schema instead, or to the --schema files.",
			Flags: []cli.Flag{
				configFlag(),
				cacheFlag(),
				&cli.StringFlag{Name: "schema-dir", Usage: "read the bases from this folder instead of the pinned release (read-only)"},
				&cli.StringSliceFlag{Name: "schema", Usage: "a base schema file instead of the configured channels; repeatable (needs OVERLAY arguments)"},
			},
			Action: func(c *cli.Context) error {
				runs, err := overlayRuns(c)
				if err != nil {
					return err
				}
				conflict := false
				for _, run := range runs {
					data, err := os.ReadFile(run.base)
					if err != nil {
						return err
					}
					res, err := overlay.ApplyFiles(data, run.base, run.overlays)
					var ce *overlay.ConflictError
					if err != nil && !errors.As(err, &ce) {
						return err
					}
					conflict = conflict || ce != nil
					printStatus(c.App.Writer, run.base, res)
				}
				if conflict {
					return errConflicts
				}
				return nil
			},
		}},
	}
}

// overlayRun is one base schema with the overlays to apply to it.
type overlayRun struct {
	base     string
	overlays []string
}

// overlayRuns pairs bases and overlays: explicit --schema files with the
// OVERLAY arguments, else each configured channel's schema with its
// configured overlays (or with the OVERLAY arguments).
func overlayRuns(c *cli.Context) ([]overlayRun, error) {
	args := c.Args().Slice()
	if bases := c.StringSlice("schema"); len(bases) > 0 {
		if len(args) == 0 {
			return nil, errors.New("--schema needs the OVERLAY files to apply as arguments")
		}
		var runs []overlayRun
		for _, b := range bases {
			runs = append(runs, overlayRun{b, args})
		}
		return runs, nil
	}
	r, err := config.Setup(c.Context, c.String("config"), config.Overrides{SchemaDir: c.String("schema-dir"), Cache: c.String("cache-dir")}, c.App.ErrWriter)
	if err != nil {
		return nil, err
	}
	var runs []overlayRun
	for _, ch := range r.Config.Channels {
		ovs := ch.Overlays
		if len(args) > 0 {
			ovs = args
		}
		if len(ovs) == 0 {
			continue
		}
		runs = append(runs, overlayRun{filepath.Join(r.Config.SchemaDir, ch.SchemaFile), ovs})
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s configures no overlays: name OVERLAY files as arguments", r.File)
	}
	return runs, nil
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
	for _, d := range res.DefGates {
		if d.Source == id {
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
