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
		Usage: "fetch the pinned schema release into the cache and verify it, or pin another release with --version",
		Description: "The files go into acpgen's schema cache, never into the repository: the repository keeps\n" +
			"only schema.dir/lock.json. With a new --version the lock (and the configuration's\n" +
			"schema.version) is updated, and acpgen prints what changed (as `schema diff`) and which\n" +
			"overlays the new schema now carries upstream.",
		Flags: []cli.Flag{
			configFlag(),
			cacheFlag(),
			&cli.StringFlag{Name: "version", Usage: "package version to pin (default: the configuration's schema.version, else the lock's)"},
			fromURLFlag(),
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: func(c *cli.Context) error {
			r, err := config.Open(c.String("config"), config.Overrides{Cache: c.String("cache-dir")})
			if err != nil {
				return err
			}
			o := r.Fetch(c.App.ErrWriter)
			o.Npm = c.String("npm")
			if u := c.String("from-url"); u != "" {
				o.FromURL = u
			}
			old, err := source.ReadLock(r.LockPath())
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			version := c.String("version")
			if version == "" {
				version = r.Version
			}
			w := c.App.Writer
			if old != nil && (version == "" || version == old.Version) {
				o.Refresh = true
				dir, l, err := source.Fetch(c.Context, o, old, "")
				if err != nil {
					return fmt.Errorf("%s: %w", r.LockPath(), err)
				}
				fmt.Fprintf(w, "%s@%s verified against %s (%d files in %s)\n", old.Package, old.Version, r.LockPath(), len(old.Files), dir)
				if len(l.Files) == len(old.Files) {
					return nil
				}
				// The same tarball ships files the lock predates (the v2 schemas).
				if err := l.Write(r.LockPath()); err != nil {
					return err
				}
				fmt.Fprintf(w, "%s now pins all %d schema files of %s@%s\n", r.LockPath(), len(l.Files), l.Package, l.Version)
				return nil
			}
			if version == "" {
				return fmt.Errorf("%s does not exist: give --version (or schema.version in %s)", r.LockPath(), r.File)
			}
			dir, l, err := source.Fetch(c.Context, o, nil, version)
			if err != nil {
				return err
			}
			if err := l.Write(r.LockPath()); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s pins %s@%s (%d files in %s)\n", r.LockPath(), l.Package, l.Version, len(l.Files), dir)
			if changed, err := config.SetVersion(r.File, l.Version); err != nil {
				return err
			} else if changed {
				fmt.Fprintf(w, "%s: schema.version set to %s\n", r.File, l.Version)
			}
			if old == nil {
				fmt.Fprintf(w, "no earlier lock: nothing to compare %s with\n", l.Version)
				return nil
			}
			if old.Version == l.Version {
				return nil
			}
			oldDir, _, err := source.Fetch(c.Context, o, old, "")
			if err != nil {
				return fmt.Errorf("the previous release %s, to compare with: %w", old.Version, err)
			}
			fmt.Fprintln(w)
			rep, err := schemadiff.Diff(schemadiff.Side{Label: old.Version, Dir: oldDir}, schemadiff.Side{Label: l.Version, Dir: dir}, nil)
			if err != nil {
				return err
			}
			rep.Text(w)
			pullOverlayStatus(w, r.Config.Channels, oldDir, dir)
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

// openSides resolves OLD and NEW: a folder as it is, a version from the
// schema cache (fetched into it when missing).
func openSides(ctx context.Context, c *cli.Context) (old, new schemadiff.Side, err error) {
	if c.NArg() != 2 {
		return old, new, usageErrorf(c, "want two arguments, OLD and NEW (each a version of %s or a schema folder), got %d", source.Package, c.NArg())
	}
	cache, err := source.CacheDir(c.String("cache-dir"))
	if err != nil {
		return old, new, err
	}
	o := source.FetchOptions{Cache: cache, Npm: c.String("npm"), Stderr: c.App.ErrWriter}
	if old, err = schemadiff.Open(ctx, c.Args().Get(0), o); err == nil {
		new, err = schemadiff.Open(ctx, c.Args().Get(1), o)
	}
	return old, new, err
}

// sideChannels are the channels to compare: --channel, else the
// configuration's, else every channel.
func sideChannels(c *cli.Context) ([]string, error) {
	if chans := c.StringSlice("channel"); len(chans) > 0 {
		return chans, nil
	}
	r, err := config.Open(c.String("config"), config.Overrides{})
	if errors.Is(err, config.ErrNoConfig) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ch := range r.Config.Channels {
		names = append(names, ch.Name)
	}
	return names, nil
}

func sideFlags() []cli.Flag {
	return []cli.Flag{
		configFlag(),
		cacheFlag(),
		&cli.StringSliceFlag{Name: "channel", Action: checkChannels, Usage: "compare only this channel (stable, unstable, v2 or v2-unstable); repeatable (default: the configured channels)"},
		&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run for versions"},
	}
}

func schemaDiffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "list what changed between two schema revisions, each change classified additive or breaking for a Go SDK",
		ArgsUsage: "OLD NEW",
		Description: "OLD and NEW are each a version of " + source.Package + " (fetched into the schema cache)\n" +
			"or a folder holding schema.json and/or schema.unstable.json. Releases before 2.0 ship\n" +
			"only the unstable schema, so only that channel is compared with them.\n" +
			"With --fail-on breaking, a breaking change exits with status 3 after the report.",
		Flags: append(sideFlags(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or markdown for release notes"},
			failOnFlag(),
		),
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format %s: want text or markdown", format)
			}
			failOn, err := parseFailOn(c)
			if err != nil {
				return err
			}
			chans, err := sideChannels(c)
			if err != nil {
				return err
			}
			old, new, err := openSides(c.Context, c)
			if err != nil {
				return err
			}
			rep, err := schemadiff.Diff(old, new, chans)
			if err != nil {
				return err
			}
			if format == "markdown" {
				rep.Markdown(c.App.Writer)
			} else {
				rep.Text(c.App.Writer)
			}
			if failOn && rep.Class() == schemadiff.Breaking {
				return verdictError{fmt.Sprintf("%s -> %s has breaking changes (--fail-on)", old.Label, new.Label)}
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
		Description: "OLD and NEW are as for `schema diff`. Each configured channel is generated from both, without\n" +
			"overlays, into its configured package, and the two APIs are compared with golang.org/x/exp/apidiff.\n" +
			"Run it inside a module that requires " + generator.Module + " (type-checking resolves the\n" +
			"generated code's import of its runtime from there). With --fail-on major, a major verdict exits\n" +
			"with status 3 after the report.",
		Flags: append(sideFlags(), failOnFlag()),
		Action: func(c *cli.Context) error {
			failOn, err := parseFailOn(c)
			if err != nil {
				return err
			}
			r, err := config.Open(c.String("config"), config.Overrides{Channels: c.StringSlice("channel")})
			if err != nil {
				return err
			}
			if err := r.ImportPaths(); err != nil {
				return err
			}
			old, new, err := openSides(c.Context, c)
			if err != nil {
				return err
			}
			rep, err := goapi.Compare(old, new, r.Config.Channels)
			if err != nil {
				return err
			}
			rep.Text(c.App.Writer)
			if failOn && rep.Level() == goapi.Major {
				return verdictError{fmt.Sprintf("%s -> %s is a major change of the Go API (--fail-on)", old.Label, new.Label)}
			}
			return nil
		},
	}
}

func failOnFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "fail-on", Usage: "breaking (or its synonym major): exit with status 3 when the verdict is breaking / major"}
}

func parseFailOn(c *cli.Context) (bool, error) {
	switch v := c.String("fail-on"); v {
	case "":
		return false, nil
	case "breaking", "major":
		return true, nil
	default:
		return false, fmt.Errorf("--fail-on %s: want breaking or major", v)
	}
}

// verdictError is a comparison's verdict that the user asked to fail on; it
// exits with status 3, apart from errors (status 1).
type verdictError struct{ msg string }

func (e verdictError) Error() string { return e.msg }

// ExitStatusVerdict is the exit status of a verdict the user asked to fail
// on (--fail-on, and release without --allow-major).
const ExitStatusVerdict = 3
