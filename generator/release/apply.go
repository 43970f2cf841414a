package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/internal/atomicfile"
)

// Applied is what Apply wrote.
type Applied struct {
	VersionSet  bool            // schema.version was written
	Regenerated *config.Outcome // the regeneration, its changes listed
	Changelog   string          // the changelog written
}

// Apply carries out the plan: it pins the new release (lock and
// schema.version), regenerates every channel as `generate` does, and only
// then prepends the entry to the changelog at changelog. The entry is made
// first: a changelog that already has one for the version refuses the
// release before anything is written. When the regeneration fails, the lock
// and the configuration are put back. explicit is the configuration file
// as given ("" finds one), stderr receives fetch progress.
func (pl *Plan) Apply(ctx context.Context, r *config.Resolved, explicit, changelog string, stderr io.Writer) (*Applied, error) {
	entry, err := pl.changelog(changelog)
	if err != nil {
		return nil, err
	}
	a := &Applied{Changelog: changelog}
	if a.VersionSet, a.Regenerated, err = pl.pinAndRegenerate(ctx, explicit, r, stderr); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(changelog, entry, 0o644); err != nil {
		return nil, fmt.Errorf("the release is pinned and generated, but the changelog is not written: %w", err)
	}
	return a, nil
}

// pinAndRegenerate writes the new lock and schema.version and regenerates
// every channel; when the regeneration fails it puts the lock and the
// configuration back. versionSet says schema.version was written.
func (pl *Plan) pinAndRegenerate(ctx context.Context, explicit string, r *config.Resolved, stderr io.Writer) (versionSet bool, gen *config.Outcome, err error) {
	restore, err := keepForRestore(r.LockPath(), r.File)
	if err != nil {
		return false, nil, err
	}
	if err := pl.New.Write(r.LockPath()); err != nil {
		return false, nil, errors.Join(err, restore())
	}
	versionSet, err = config.SetVersion(r.File, pl.New.Version)
	if err != nil {
		return false, nil, errors.Join(err, restore())
	}
	gen, err = config.Run{Config: explicit, Overrides: config.Overrides{Cache: r.Cache}, Changes: true, Stderr: stderr}.Do(ctx)
	if err != nil {
		if rerr := restore(); rerr != nil {
			return false, nil, errors.Join(fmt.Errorf("regenerating from %s: %w", pl.New.Version, err), rerr)
		}
		return false, nil, fmt.Errorf("regenerating from %s: %w (%s and %s are back at %s; nothing else was written)", pl.New.Version, err, r.LockPath(), r.File, pl.Old.Version)
	}
	return versionSet, gen, nil
}

// keepForRestore records files as they are; the returned function puts them
// back (removing those that did not exist).
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
			errs = append(errs, atomicfile.Write(p, saved[i].data, saved[i].mode))
		}
		return errors.Join(errs...)
	}, nil
}

// PrintWritten lists every file the release wrote.
func (pl *Plan) PrintWritten(w io.Writer, r *config.Resolved, a *Applied) {
	fmt.Fprintln(w, "\nwrote:")
	fmt.Fprintf(w, "  %s (pins %s@%s)\n", r.LockPath(), pl.New.Package, pl.New.Version)
	if a.VersionSet {
		fmt.Fprintf(w, "  %s (schema.version %s)\n", r.File, pl.New.Version)
	}
	gen := a.Regenerated
	root := gen.Resolved.Root
	for _, ch := range gen.Changes {
		if ch.Kind == "extra" {
			fmt.Fprintf(w, "  %s (removed)\n", filepath.Join(root, filepath.FromSlash(ch.Path)))
		} else {
			fmt.Fprintf(w, "  %s\n", filepath.Join(root, filepath.FromSlash(ch.Path)))
		}
	}
	fmt.Fprintf(w, "  (generated files: %d written, %d unchanged, %d removed)\n", gen.Summary.Written, gen.Summary.Unchanged, gen.Summary.Removed)
	fmt.Fprintf(w, "  %s (%s entry)\n", a.Changelog, pl.Proposal.Next)
}

// PrintNext lists the steps left to the user: a new module path for a new
// major version, review, commit and tag. invocation is how the user runs
// acpgen.
func (pl *Plan) PrintNext(w io.Writer, r *config.Resolved, invocation string) {
	fmt.Fprintln(w, "\nnext:")
	step := 1
	if pl.NewModule != "" {
		fmt.Fprintf(w, "  %d. change the module path for %s: in go.mod `module %s` -> `module %s`, imports of %s/... -> %s/... (and channels[].importPath in %s, if set); then `%s generate`\n",
			step, fmt.Sprintf("v%d", pl.Proposal.Next.Major), pl.Module, pl.NewModule, pl.Module, pl.NewModule, r.File, invocation)
		step++
	}
	fmt.Fprintf(w, "  %d. review: git diff\n", step)
	fmt.Fprintf(w, "  %d. git add -A && git commit -m %q\n", step+1, fmt.Sprintf("%s: %s %s", pl.Proposal.Next, pl.New.Package, pl.New.Version))
	fmt.Fprintf(w, "  %d. git tag %s\n", step+2, pl.Proposal.Next)
}
