package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/goapi"
	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/generator/schemadiff"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:  "pull",
		Usage: "obtain the schema files with npm (or from a URL) and verify them against lock.json",
		Description: "With a new --version the lock is updated, and acpgen prints what changed (as `schema diff`)\n" +
			"and which overlays the new schema now carries upstream. A configuration's schema.version\n" +
			"is updated to match.",
		Flags: []cli.Flag{
			configFlag(),
			&cli.StringFlag{Name: "schema-dir", Usage: "folder to write the schema files and lock.json into (default: the configuration's schema.dir, else schema)"},
			&cli.StringFlag{Name: "version", Usage: "package version to pull (default: the configuration's schema.version, else the lock's); a version other than the lock's updates the lock"},
			&cli.StringFlag{Name: "from-url", Usage: "fetch a package tarball or a single schema file from this URL instead of running npm; verified against the lock"},
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: func(c *cli.Context) error {
			r, err := resolveForSchema(c)
			if err != nil {
				return err
			}
			dir := r.Config.SchemaDir
			version := c.String("version")
			if version == "" {
				version = r.Version
			}
			url := c.String("from-url")
			if url == "" {
				url = r.URL
			}
			// Keep the current revision aside to compare it with the new one.
			var before *schemadiff.Side
			old, err := source.ReadLock(filepath.Join(dir, source.LockFile))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if old != nil && version != "" && version != old.Version && source.Verify(dir, old) == nil {
				tmp, err := os.MkdirTemp("", "acpgen-pull-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				for name := range old.Files {
					if err := copyFile(filepath.Join(dir, name), filepath.Join(tmp, name)); err != nil {
						return err
					}
				}
				before = &schemadiff.Side{Label: old.Version, Dir: tmp}
			}
			l, err := source.Pull(c.Context, source.PullOptions{
				Dir: dir, Version: version, FromURL: url, Npm: c.String("npm"), Stderr: os.Stderr,
			})
			if err != nil {
				return err
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%s@%s verified (%d files)\n", l.Package, l.Version, len(l.Files))
			if r.File != "" {
				if changed, err := config.SetVersion(r.File, l.Version); err != nil {
					return err
				} else if changed {
					fmt.Fprintf(w, "%s: schema.version set to %s\n", r.File, l.Version)
				}
			}
			if before == nil || old.Version == l.Version {
				return nil
			}
			fmt.Fprintln(w)
			rep, err := schemadiff.Diff(*before, schemadiff.Side{Label: l.Version, Dir: dir}, nil)
			if err != nil {
				return err
			}
			rep.Text(w)
			pullOverlayStatus(w, r.Config.Channels, before.Dir, dir)
			return nil
		},
	}
}

// pullOverlayStatus applies each channel's overlays to the old and the new
// schema and reports, from the overlay status, which changes the new schema
// now carries upstream.
func pullOverlayStatus(w io.Writer, channels []generator.Channel, oldDir, newDir string) {
	printed := false
	for _, ch := range channels {
		if len(ch.Overlays) == 0 {
			continue
		}
		if !printed {
			fmt.Fprintln(w, "\noverlay status on the new schema:")
			printed = true
		}
		was := overlayStates(filepath.Join(oldDir, ch.SchemaFile), ch.Overlays)
		now := overlayStates(filepath.Join(newDir, ch.SchemaFile), ch.Overlays)
		if now.err != nil {
			fmt.Fprintf(w, "  %s: %v\n", ch.Name, now.err)
		}
		for _, k := range now.keys {
			s := now.states[k]
			note := ""
			switch {
			case (s.State == overlay.Upstream || s.State == overlay.Tightened) && was.states[k].State != s.State:
				note = "  <- became upstream"
			case s.State == overlay.Conflict:
				note = "  <- conflicts with the new schema"
			}
			fmt.Fprintf(w, "  %s: %s %s: %s%s\n", ch.Name, s.Overlay, s.Change, s.State, note)
		}
	}
	if !printed {
		fmt.Fprintln(w, "\nno overlays configured")
	}
}

type overlayResult struct {
	states map[string]overlay.Status
	keys   []string
	err    error
}

func overlayStates(file string, overlays []string) overlayResult {
	out := overlayResult{states: map[string]overlay.Status{}}
	data, err := os.ReadFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			out.err = err
		}
		return out
	}
	res, err := overlay.ApplyFiles(data, file, overlays)
	var conflict *overlay.ConflictError
	if err != nil && !errors.As(err, &conflict) {
		out.err = err
		return out
	}
	if res == nil {
		return out
	}
	for _, s := range res.Statuses {
		k := s.Overlay + "\x00" + s.Change + "\x00" + s.Pointer
		out.states[k] = s
		out.keys = append(out.keys, k)
	}
	sort.Strings(out.keys)
	return out
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// openSides resolves OLD and NEW, pulling versions into a temporary folder
// that cleanup removes.
func openSides(ctx context.Context, c *cli.Context) (old, new schemadiff.Side, cleanup func(), err error) {
	if c.NArg() != 2 {
		return old, new, nil, fmt.Errorf("want two arguments, OLD and NEW (each a version of %s or a schema folder), got %d", source.Package, c.NArg())
	}
	tmp, err := os.MkdirTemp("", "acpgen-diff-")
	if err != nil {
		return old, new, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if old, err = schemadiff.Open(ctx, c.Args().Get(0), tmp, c.String("npm"), os.Stderr); err == nil {
		new, err = schemadiff.Open(ctx, c.Args().Get(1), tmp, c.String("npm"), os.Stderr)
	}
	if err != nil {
		cleanup()
		return old, new, nil, err
	}
	return old, new, cleanup, nil
}

func sideFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "channel", Usage: "compare only this channel (stable or unstable); repeatable"},
		&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run for versions"},
	}
}

func schemaDiffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "list what changed between two schema revisions, each change classified additive or breaking for a Go SDK",
		ArgsUsage: "OLD NEW",
		Description: "OLD and NEW are each a version of " + source.Package + " (pulled with npm into a temporary\n" +
			"folder) or a folder holding schema.json and/or schema.unstable.json. Releases before 2.0 ship\n" +
			"only the unstable schema, so only that channel is compared with them.",
		Flags: append(sideFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or markdown for release notes"},
		),
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format %s: want text or markdown", format)
			}
			old, new, cleanup, err := openSides(c.Context, c)
			if err != nil {
				return err
			}
			defer cleanup()
			rep, err := schemadiff.Diff(old, new, c.StringSlice("channel"))
			if err != nil {
				return err
			}
			if format == "markdown" {
				rep.Markdown(c.App.Writer)
			} else {
				rep.Text(c.App.Writer)
			}
			return nil
		},
	}
}

func apidiffCommand() *cli.Command {
	return &cli.Command{
		Name:      "apidiff",
		Usage:     "compare the Go API generated from two schema revisions and say whether the release is major, minor or patch",
		ArgsUsage: "OLD NEW",
		Description: "OLD and NEW are as for `schema diff`. Both are generated without overlays and compared with\n" +
			"golang.org/x/exp/apidiff. Run it inside this module or one that requires it: type-checking\n" +
			"resolves the generated code's import of " + generator.Module + "/runtime/wire from there.",
		Flags: sideFlags(),
		Action: func(c *cli.Context) error {
			old, new, cleanup, err := openSides(c.Context, c)
			if err != nil {
				return err
			}
			defer cleanup()
			rep, err := goapi.Compare(old, new, c.StringSlice("channel"))
			if err != nil {
				return err
			}
			rep.Text(c.App.Writer)
			return nil
		},
	}
}
