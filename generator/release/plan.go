package release

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
	"github.com/acpgen/acpgen/generator/schemadiff"
	"github.com/acpgen/acpgen/generator/source"
)

// ChangelogName is the changelog a release writes beside the configuration
// unless told another.
const ChangelogName = "CHANGELOG.md"

// Plan is everything a release compares and proposes before it writes
// anything.
type Plan struct {
	Old, New *source.Lock
	Schema   *schemadiff.Report
	API      *goapi.Report
	Tagged   bool // the repository has a release tag (Proposal.Base)
	Proposal Proposal
	Repo     string // the folder holding the configuration
	// Module is the repository's module path, "" when none; NewModule the
	// module path of a new major version, else "".
	Module, NewModule string
}

// ErrNothingToRelease: the target is the release in force. A no-op, not a
// failure: scripts run release on every upstream publication.
var ErrNothingToRelease = errors.New("nothing to release")

// NewPlan fetches the release in force and the target to, compares their
// schemas and generated Go APIs, and proposes the next version from the
// repository's release tags.
func NewPlan(ctx context.Context, r *config.Resolved, o source.FetchOptions, to string) (*Plan, error) {
	if r.URL != "" {
		// It names one tarball; generate would keep fetching the old release.
		return nil, fmt.Errorf("%s sets schema.url (%s), which fetches one fixed release: remove it to move with npm, or point it at the new release and run `acpgen schema pull --version V`", r.File, r.URL)
	}
	oldDir, oldLock, err := inForce(ctx, r, o)
	if err != nil {
		return nil, err
	}
	newDir, newLock, err := source.Fetch(ctx, o, nil, to)
	if err != nil {
		return nil, err
	}
	if newLock.Version == oldLock.Version {
		return nil, fmt.Errorf("%s already pins %s@%s: %w", r.LockPath(), oldLock.Package, oldLock.Version, ErrNothingToRelease)
	}
	pl := &Plan{Old: oldLock, New: newLock, Repo: filepath.Dir(r.File)}
	if err := pl.compare(r, schemadiff.Side{Label: oldLock.Version, Dir: oldDir}, schemadiff.Side{Label: newLock.Version, Dir: newDir}); err != nil {
		return nil, err
	}
	tags, err := releaseTags(ctx, pl.Repo)
	if err != nil {
		return nil, err
	}
	var base Version
	base, pl.Tagged = Latest(tags)
	pl.Proposal = Propose(base, pl.API.Level())
	pl.Module, _ = config.FindModule(pl.Repo)
	if pl.Proposal.Major && pl.Module != "" {
		pl.NewModule = MajorPath(pl.Module, pl.Proposal.Next.Major)
	}
	return pl, nil
}

// compare fills in the schema changes and the Go API verdict of every
// configured channel.
func (pl *Plan) compare(r *config.Resolved, oldSide, newSide schemadiff.Side) (err error) {
	var names []string
	for _, ch := range r.Config.Channels {
		names = append(names, ch.Name)
	}
	if pl.Schema, err = schemadiff.Diff(oldSide, newSide, names); err != nil {
		return err
	}
	pl.API, err = goapi.Compare(oldSide, newSide, r.Config.Channels)
	return err
}

// inForce is the release the lock pins (or, with no lock yet, the one
// schema.version names), in the cache.
func inForce(ctx context.Context, r *config.Resolved, o source.FetchOptions) (string, *source.Lock, error) {
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
		return "", nil, fmt.Errorf("%s does not exist and %s sets no schema.version: there is no release to move from (`acpgen schema pull --version V` pins one)", r.LockPath(), r.File)
	}
	return "", nil, err
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

// MajorRefusal says why a major release from v1 on needs the user's
// consent, and what it would release.
func (pl *Plan) MajorRefusal() string {
	move := ""
	if pl.NewModule != "" {
		move = fmt.Sprintf(" under the module path %s (now %s)", pl.NewModule, pl.Module)
	}
	return fmt.Sprintf("%s -> %s breaks the Go API and %s is past v1: rerun with --allow-major to release %s%s; nothing written",
		pl.Old.Version, pl.New.Version, pl.Proposal.Base, pl.Proposal.Next, move)
}

// Print reports the move, the comparisons and the proposed version.
func (pl *Plan) Print(w io.Writer) {
	fmt.Fprintf(w, "%s %s -> %s\n", pl.New.Package, pl.Old.Version, pl.New.Version)
	printReports(w, pl.Schema, pl.API)
	baseText := pl.Proposal.Base.String()
	if !pl.Tagged {
		baseText = "no release tag (read as v0.0.0)"
	}
	fmt.Fprintf(w, "version: %s -> %s (%s)\n", baseText, pl.Proposal.Next, pl.Proposal.Note)
}

func printReports(w io.Writer, schema *schemadiff.Report, api *goapi.Report) {
	fmt.Fprintln(w, "schema changes:")
	for _, ch := range schema.Channels {
		fmt.Fprintf(w, "  %s: %s\n", ch.Name, counts(ch))
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

// counts sums a channel's schema changes by class.
func counts(ch schemadiff.ChannelReport) string {
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

// changelog is the changelog at path with the release's entry prepended; an
// error when it already has an entry for the version.
func (pl *Plan) changelog(path string) ([]byte, error) {
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	entry := &Entry{Proposal: pl.Proposal, Package: pl.New.Package, From: pl.Old.Version, To: pl.New.Version,
		Schema: pl.Schema, API: pl.API, Module: pl.Module, NewModule: pl.NewModule}
	changelog, err := Prepend(existing, entry.Markdown(), pl.Proposal.Next)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return changelog, nil
}
