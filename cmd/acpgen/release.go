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
	"github.com/acpgen/acpgen/internal/atomicfile"
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
			"Exit status: 0 released, or nothing to release; 1 error; 2 usage; 3 a major release from v1 on without --allow-major.",
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
		return usageErrorf(c, "release takes no arguments, got %q (the target is --to VERSION)", c.Args().Slice())
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

	// Compare before writing anything.
	pl, err := planRelease(ctx, r, o, c.String("to"))
	if errors.Is(err, errNothingToRelease) {
		fmt.Fprintf(c.App.Writer, "%v (`%s generate` regenerates)\n", err, invocation())
		return nil
	}
	if err != nil {
		return err
	}
	pl.print(w)
	if pl.p.Major && !c.Bool("allow-major") {
		move := ""
		if pl.newModule != "" {
			move = fmt.Sprintf(" under the module path %s (now %s)", pl.newModule, pl.module)
		}
		return verdictError{fmt.Sprintf("%s -> %s breaks the Go API and %s is past v1: rerun with --allow-major to release %s%s; nothing written",
			pl.oldLock.Version, pl.newLock.Version, pl.p.Base, pl.p.Next, move)}
	}

	// The changelog entry, refused before anything is written when the
	// changelog already has one for this version.
	clPath := c.String("changelog")
	if clPath == "" {
		clPath = filepath.Join(pl.repo, changelogName)
	}
	changelog, err := pl.changelog(clPath)
	if err != nil {
		return err
	}

	// Pin, regenerate, and only then write the changelog.
	versionSet, gen, err := pinAndRegenerate(ctx, c.String("config"), r, pl.oldLock, pl.newLock, stderr)
	if err != nil {
		return err
	}
	if err := writeFileReplacing(clPath, changelog, 0o644); err != nil {
		return fmt.Errorf("the release is pinned and generated, but the changelog is not written: %w", err)
	}
	pl.printWritten(w, r, versionSet, gen, clPath)
	pl.printNext(w, r)
	return nil
}

// releasePlan is everything a release compares and proposes before it
// writes anything.
type releasePlan struct {
	oldLock, newLock *source.Lock
	schema           *schemadiff.Report
	api              *goapi.Report
	tagged           bool // the repository has a release tag (p.Base)
	p                release.Proposal
	repo             string // the folder holding the configuration
	module           string // its module path, "" when none
	newModule        string // the module path of a new major version, else ""
}

// errNothingToRelease: the target is the release in force. A no-op, not a
// failure: scripts run release on every upstream publication.
var errNothingToRelease = errors.New("nothing to release")

// planRelease fetches the release in force and the target, compares their
// schemas and generated Go APIs, and proposes the next version from the
// repository's release tags.
func planRelease(ctx context.Context, r *config.Resolved, o source.FetchOptions, to string) (*releasePlan, error) {
	oldDir, oldLock, err := releaseInForce(ctx, r, o)
	if err != nil {
		return nil, err
	}
	newDir, newLock, err := source.Fetch(ctx, o, nil, to)
	if err != nil {
		return nil, err
	}
	if newLock.Version == oldLock.Version {
		return nil, fmt.Errorf("%s already pins %s@%s: %w", r.LockPath(), oldLock.Package, oldLock.Version, errNothingToRelease)
	}
	oldSide := schemadiff.Side{Label: oldLock.Version, Dir: oldDir}
	newSide := schemadiff.Side{Label: newLock.Version, Dir: newDir}
	var names []string
	for _, ch := range r.Config.Channels {
		names = append(names, ch.Name)
	}
	pl := &releasePlan{oldLock: oldLock, newLock: newLock, repo: filepath.Dir(r.File)}
	if pl.schema, err = schemadiff.Diff(oldSide, newSide, names); err != nil {
		return nil, err
	}
	if pl.api, err = goapi.Compare(oldSide, newSide, r.Config.Channels); err != nil {
		return nil, err
	}
	tags, err := releaseTags(ctx, pl.repo)
	if err != nil {
		return nil, err
	}
	var base release.Version
	base, pl.tagged = release.Latest(tags)
	pl.p = release.Propose(base, pl.api.Level())
	pl.module, _ = config.FindModule(pl.repo)
	if pl.p.Major && pl.module != "" {
		pl.newModule = release.MajorPath(pl.module, pl.p.Next.Major)
	}
	return pl, nil
}

// print reports the move, the comparisons and the proposed version.
func (pl *releasePlan) print(w io.Writer) {
	fmt.Fprintf(w, "%s %s -> %s\n", pl.newLock.Package, pl.oldLock.Version, pl.newLock.Version)
	printReleaseReports(w, pl.schema, pl.api)
	baseText := pl.p.Base.String()
	if !pl.tagged {
		baseText = "no release tag (read as v0.0.0)"
	}
	fmt.Fprintf(w, "version: %s -> %s (%s)\n", baseText, pl.p.Next, pl.p.Note)
}

// changelog is the changelog at path with the release's entry prepended; an
// error when it already has an entry for the version.
func (pl *releasePlan) changelog(path string) ([]byte, error) {
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	entry := &release.Entry{Proposal: pl.p, Package: pl.newLock.Package, From: pl.oldLock.Version, To: pl.newLock.Version,
		Schema: pl.schema, API: pl.api, Module: pl.module, NewModule: pl.newModule}
	changelog, err := release.Prepend(existing, entry.Markdown(), pl.p.Next)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return changelog, nil
}

// pinAndRegenerate writes the new lock and schema.version and regenerates
// every channel; when the regeneration fails it puts the lock and the
// configuration back. versionSet says schema.version was written.
func pinAndRegenerate(ctx context.Context, explicit string, r *config.Resolved, oldLock, newLock *source.Lock, stderr io.Writer) (versionSet bool, gen regenerated, err error) {
	restore, err := keepForRestore(r.LockPath(), r.File)
	if err != nil {
		return false, gen, err
	}
	if err := newLock.Write(r.LockPath()); err != nil {
		return false, gen, errors.Join(err, restore())
	}
	versionSet, err = config.SetVersion(r.File, newLock.Version)
	if err != nil {
		return false, gen, errors.Join(err, restore())
	}
	gen, err = regenerate(ctx, explicit, r.Cache, stderr)
	if err != nil {
		if rerr := restore(); rerr != nil {
			return false, gen, errors.Join(fmt.Errorf("regenerating from %s: %w", newLock.Version, err), rerr)
		}
		return false, gen, fmt.Errorf("regenerating from %s: %w (%s and %s are back at %s; nothing else was written)", newLock.Version, err, r.LockPath(), r.File, oldLock.Version)
	}
	return versionSet, gen, nil
}

// printWritten lists every file the release wrote.
func (pl *releasePlan) printWritten(w io.Writer, r *config.Resolved, versionSet bool, gen regenerated, clPath string) {
	fmt.Fprintln(w, "\nwrote:")
	fmt.Fprintf(w, "  %s (pins %s@%s)\n", r.LockPath(), pl.newLock.Package, pl.newLock.Version)
	if versionSet {
		fmt.Fprintf(w, "  %s (schema.version %s)\n", r.File, pl.newLock.Version)
	}
	for _, ch := range gen.changes {
		if ch.Kind == "extra" {
			fmt.Fprintf(w, "  %s (removed)\n", filepath.Join(gen.root, filepath.FromSlash(ch.Path)))
		} else {
			fmt.Fprintf(w, "  %s\n", filepath.Join(gen.root, filepath.FromSlash(ch.Path)))
		}
	}
	fmt.Fprintf(w, "  (generated files: %d written, %d unchanged, %d removed)\n", gen.sum.Written, gen.sum.Unchanged, gen.sum.Removed)
	fmt.Fprintf(w, "  %s (%s entry)\n", clPath, pl.p.Next)
}

// printNext lists the steps left to the user: a new module path for a new
// major version, review, commit and tag.
func (pl *releasePlan) printNext(w io.Writer, r *config.Resolved) {
	fmt.Fprintln(w, "\nnext:")
	step := 1
	if pl.newModule != "" {
		fmt.Fprintf(w, "  %d. change the module path for %s: in go.mod `module %s` -> `module %s`, imports of %s/... -> %s/... (and channels[].importPath in %s, if set); then `%s generate`\n",
			step, fmt.Sprintf("v%d", pl.p.Next.Major), pl.module, pl.newModule, pl.module, pl.newModule, r.File, invocation())
		step++
	}
	fmt.Fprintf(w, "  %d. review: git diff\n", step)
	fmt.Fprintf(w, "  %d. git add -A && git commit -m %q\n", step+1, fmt.Sprintf("%s: %s %s", pl.p.Next, pl.newLock.Package, pl.newLock.Version))
	fmt.Fprintf(w, "  %d. git tag %s\n", step+2, pl.p.Next)
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

// writeFileReplacing replaces path with data through a temporary file beside
// it, so a reader never sees it half written; it keeps an existing file's
// mode, else takes perm.
func writeFileReplacing(path string, data []byte, perm fs.FileMode) error {
	return atomicfile.Write(path, data, perm)
}
