package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/goapi"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/release"
	"github.com/acpgen/acpgen/generator/schemadiff"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

// changelogName is the changelog release writes beside the configuration
// unless --changelog names another.
const changelogName = "CHANGELOG.md"

func releaseCommand() *cli.Command {
	return &cli.Command{
		Name:  "release",
		Usage: "move the pinned schema to another upstream release: compare, pin, regenerate, propose the next module version and write its CHANGELOG entry",
		Description: "Fetches --to into the schema cache and compares it with the release the lock pins: the schema\n" +
			"changes of each configured channel (as `schema diff`) and the Go API of each configured package\n" +
			"(as `apidiff`, so run it inside the module). The next module version is proposed from the\n" +
			"highest vMAJOR.MINOR.PATCH tag of the git repository holding the configuration (none: v0.0.0;\n" +
			"pre-release tags do not count): a patch verdict proposes the next patch, a minor one the next\n" +
			"minor; a major one the next minor before v1, and from v1 on the next major, which needs a new\n" +
			"module path (/vN) and --allow-major. Then the lock and schema.version are pinned to the new\n" +
			"release, the packages regenerated as `generate` does, and an entry prepended to the changelog.\n" +
			"Everything is compared before anything is written: a refused release writes nothing.\n" +
			"Exit status: 0 released; 1 error; 3 a major release from v1 on without --allow-major.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Required: true, Usage: "`VERSION` (or dist-tag) of " + source.Package + " to move to"},
			configFlag(),
			cacheFlag(),
			&cli.BoolFlag{Name: "allow-major", Usage: "release a new major version (v2 and up: a new module path) when the Go API breaks"},
			&cli.StringFlag{Name: "changelog", Usage: "`FILE` to prepend the changelog entry to (default: " + changelogName + " beside the configuration)"},
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: runRelease,
	}
}

func runRelease(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("release takes no arguments, got %q (the target is --to VERSION)", c.Args().Slice())
	}
	ctx, w, stderr := c.Context, c.App.Writer, c.App.ErrWriter
	r, err := config.Open(c.String("config"), config.Overrides{Cache: c.String("cache-dir")})
	if err != nil {
		return err
	}
	if r.URL != "" {
		// It names one tarball; generate would keep fetching the old release.
		return fmt.Errorf("%s sets schema.url (%s), which fetches one fixed release: remove it to move with npm, or point it at the new release and run `%s schema pull --version V`", r.File, r.URL, invocation())
	}
	o := r.Fetch(stderr)
	o.Npm = c.String("npm")

	// The release in force and the target, both in the cache.
	oldDir, oldLock, err := releaseInForce(ctx, r, o)
	if err != nil {
		return err
	}
	newDir, newLock, err := source.Fetch(ctx, o, nil, c.String("to"))
	if err != nil {
		return err
	}
	if newLock.Version == oldLock.Version {
		return fmt.Errorf("%s already pins %s@%s: nothing to release (`%s generate` regenerates)", r.LockPath(), oldLock.Package, oldLock.Version, invocation())
	}
	oldSide := schemadiff.Side{Label: oldLock.Version, Dir: oldDir}
	newSide := schemadiff.Side{Label: newLock.Version, Dir: newDir}

	// Compare before writing anything.
	var names []string
	for _, ch := range r.Config.Channels {
		names = append(names, ch.Name)
	}
	schema, err := schemadiff.Diff(oldSide, newSide, names)
	if err != nil {
		return err
	}
	api, err := goapi.Compare(oldSide, newSide, r.Config.Channels)
	if err != nil {
		return err
	}
	repo := filepath.Dir(r.File)
	tags, err := releaseTags(ctx, repo)
	if err != nil {
		return err
	}
	base, tagged := release.Latest(tags)
	p := release.Propose(base, api.Level())
	module := modulePathAt(repo)
	newModule := ""
	if p.Major && module != "" {
		newModule = release.MajorPath(module, p.Next.Major)
	}

	fmt.Fprintf(w, "%s %s -> %s\n", newLock.Package, oldLock.Version, newLock.Version)
	printReleaseReports(w, schema, api)
	baseText := base.String()
	if !tagged {
		baseText = "no release tag (read as v0.0.0)"
	}
	fmt.Fprintf(w, "version: %s -> %s (%s)\n", baseText, p.Next, p.Note)
	if p.Major && !c.Bool("allow-major") {
		move := ""
		if newModule != "" {
			move = fmt.Sprintf(" under the module path %s (now %s)", newModule, module)
		}
		return verdictError{fmt.Sprintf("%s -> %s breaks the Go API and %s is past v1: rerun with --allow-major to release %s%s; nothing written",
			oldLock.Version, newLock.Version, base, p.Next, move)}
	}

	// The changelog entry, refused before anything is written when the
	// changelog already has one for this version.
	clPath := c.String("changelog")
	if clPath == "" {
		clPath = filepath.Join(repo, changelogName)
	}
	existing, err := os.ReadFile(clPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entry := &release.Entry{Proposal: p, Package: newLock.Package, From: oldLock.Version, To: newLock.Version,
		Schema: schema, API: api, Module: module, NewModule: newModule}
	changelog, err := release.Prepend(existing, entry.Markdown(), p.Next)
	if err != nil {
		return fmt.Errorf("%s: %w", clPath, err)
	}

	// Pin, regenerate, and only then write the changelog. A failed
	// regeneration puts the lock and the configuration back.
	restore, err := keepForRestore(r.LockPath(), r.File)
	if err != nil {
		return err
	}
	if err := newLock.Write(r.LockPath()); err != nil {
		return errors.Join(err, restore())
	}
	versionSet, err := config.SetVersion(r.File, newLock.Version)
	if err != nil {
		return errors.Join(err, restore())
	}
	gen, err := regenerate(ctx, c.String("config"), r.Cache, stderr)
	if err != nil {
		if rerr := restore(); rerr != nil {
			return errors.Join(fmt.Errorf("regenerating from %s: %w", newLock.Version, err), rerr)
		}
		return fmt.Errorf("regenerating from %s: %w (%s and %s are back at %s; nothing else was written)", newLock.Version, err, r.LockPath(), r.File, oldLock.Version)
	}
	if err := writeFileReplacing(clPath, changelog); err != nil {
		return fmt.Errorf("the release is pinned and generated, but the changelog is not written: %w", err)
	}

	fmt.Fprintln(w, "\nwrote:")
	fmt.Fprintf(w, "  %s (pins %s@%s)\n", r.LockPath(), newLock.Package, newLock.Version)
	if versionSet {
		fmt.Fprintf(w, "  %s (schema.version %s)\n", r.File, newLock.Version)
	}
	for _, ch := range gen.changes {
		if ch.Kind == "extra" {
			fmt.Fprintf(w, "  %s (removed)\n", filepath.Join(gen.root, filepath.FromSlash(ch.Path)))
		} else {
			fmt.Fprintf(w, "  %s\n", filepath.Join(gen.root, filepath.FromSlash(ch.Path)))
		}
	}
	fmt.Fprintf(w, "  (generated files: %d written, %d unchanged, %d removed)\n", gen.sum.Written, gen.sum.Unchanged, gen.sum.Removed)
	fmt.Fprintf(w, "  %s (%s entry)\n", clPath, p.Next)

	fmt.Fprintln(w, "\nnext:")
	step := 1
	if newModule != "" {
		fmt.Fprintf(w, "  %d. change the module path for %s: in go.mod `module %s` -> `module %s`, imports of %s/... -> %s/... (and channels[].importPath in %s, if set); then `%s generate`\n",
			step, fmt.Sprintf("v%d", p.Next.Major), module, newModule, module, newModule, r.File, invocation())
		step++
	}
	fmt.Fprintf(w, "  %d. review: git diff\n", step)
	fmt.Fprintf(w, "  %d. git add -A && git commit -m %q\n", step+1, fmt.Sprintf("%s: %s %s", p.Next, newLock.Package, newLock.Version))
	fmt.Fprintf(w, "  %d. git tag %s\n", step+2, p.Next)
	return nil
}

// releaseInForce is the release the lock pins (or, with no lock yet, the one
// schema.version names), in the cache.
func releaseInForce(ctx context.Context, r *config.Resolved, o source.FetchOptions) (string, *source.Lock, error) {
	l, err := source.ReadLock(r.LockPath())
	switch {
	case err == nil:
		dir, _, err := source.Fetch(ctx, o, l, "")
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", r.LockPath(), err)
		}
		return dir, l, nil
	case errors.Is(err, fs.ErrNotExist) && r.Version != "":
		return source.Fetch(ctx, o, nil, r.Version)
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("%s does not exist and %s sets no schema.version: there is no release to move from (`%s schema pull --version V` pins one)", r.LockPath(), r.File, invocation())
	}
	return "", nil, err
}

func printReleaseReports(w io.Writer, schema *schemadiff.Report, api *goapi.Report) {
	fmt.Fprintln(w, "schema changes:")
	for _, ch := range schema.Channels {
		fmt.Fprintf(w, "  %s: %s\n", ch.Name, releaseCounts(ch))
	}
	fmt.Fprintf(w, "Go API: %s\n", api.Level())
	for _, ch := range api.Channels {
		if ch.Note != "" {
			fmt.Fprintf(w, "  %s (%s): %s\n", ch.Name, ch.Package, ch.Note)
			continue
		}
		fmt.Fprintf(w, "  %s (%s): %d incompatible, %d compatible\n", ch.Name, ch.Package, len(ch.Incompatible), len(ch.Compatible))
		for _, m := range ch.Incompatible {
			fmt.Fprintf(w, "    incompatible: %s\n", m)
		}
	}
}

func releaseCounts(ch schemadiff.ChannelReport) string {
	if ch.Note != "" {
		return ch.Note
	}
	if len(ch.Changes) == 0 {
		return "no changes"
	}
	n := map[schemadiff.Class]int{}
	for _, c := range ch.Changes {
		n[c.Class]++
	}
	var parts []string
	for _, class := range []schemadiff.Class{schemadiff.Breaking, schemadiff.Additive, schemadiff.Docs} {
		if n[class] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[class], class))
		}
	}
	return strings.Join(parts, ", ")
}

// releaseTags lists the v* tags of the repository holding dir.
func releaseTags(ctx context.Context, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "tag", "--list", "v*")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("the next version is proposed from the repository's release tags, but `git -C %s tag --list 'v*'` failed: %s", dir, msg)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), nil
}

// modulePathAt is the module path of the go.mod in or above dir, "" when none.
func modulePathAt(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			return release.ModulePath(data)
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

type regenerated struct {
	root    string
	changes []output.Change
	sum     output.Summary
}

// regenerate is `generate` with the configuration's settings: the pinned
// release read from the cache, every channel written.
func regenerate(ctx context.Context, explicit, cache string, stderr io.Writer) (regenerated, error) {
	r, err := config.Setup(ctx, explicit, config.Overrides{Cache: cache}, stderr)
	if err != nil {
		return regenerated{}, err
	}
	files, err := r.Generate()
	if err != nil {
		return regenerated{}, err
	}
	owned := r.Config.Owned()
	changes, err := output.Compare(r.Root, files, owned)
	if err != nil {
		return regenerated{}, err
	}
	sum, err := output.WriteContext(ctx, r.Root, files, owned)
	if err != nil {
		return regenerated{}, err
	}
	return regenerated{root: r.Root, changes: changes, sum: sum}, nil
}

// keepForRestore records files as they are; the returned function puts them back
// (removing those that did not exist).
func keepForRestore(paths ...string) (func() error, error) {
	type kept struct {
		data []byte
		mode fs.FileMode
		ok   bool
	}
	saved := make([]kept, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		switch {
		case err == nil:
			fi, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			saved[i] = kept{data, fi.Mode().Perm(), true}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	return func() error {
		var errs []error
		for i, p := range paths {
			if !saved[i].ok {
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
				continue
			}
			errs = append(errs, writeFileReplacing(p, saved[i].data, saved[i].mode))
		}
		return errors.Join(errs...)
	}, nil
}

// writeFileReplacing writes a file through a temporary file beside it, so a
// reader never sees it half written; it keeps an existing file's mode, else
// takes mode (0644 when not given).
func writeFileReplacing(path string, data []byte, mode ...fs.FileMode) error {
	perm := fs.FileMode(0o644)
	if len(mode) > 0 {
		perm = mode[0]
	} else if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".acpgen-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
