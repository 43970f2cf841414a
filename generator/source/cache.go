package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/acpgen/acpgen/internal/didyoumean"
)

// CacheEnv overrides the schema cache folder, like GOMODCACHE for modules.
const CacheEnv = "ACPGEN_CACHE"

// CacheDir is the schema cache: flag when given, else $ACPGEN_CACHE, else
// acpgen/ under the user's cache folder.
func CacheDir(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if env := os.Getenv(CacheEnv); env != "" {
		return filepath.Abs(env)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no schema cache folder: %v; set %s or --cache-dir", err, CacheEnv)
	}
	return filepath.Join(base, "acpgen"), nil
}

// VersionDir is the cache folder of one release: it holds the release's
// schema files and a lock.json recording what was fetched. Releases are
// immutable, so a folder, once complete and verified, is reused as it is.
func VersionDir(cache, version string) string {
	return filepath.Join(cache, filepath.FromSlash(Package)+"@"+version)
}

// FetchOptions says where the cache is and how to fill it.
type FetchOptions struct {
	Cache   string    // the cache folder (see CacheDir)
	FromURL string    // a package tarball or a single schema file instead of npm
	Npm     string    // npm binary, default "npm"
	Stderr  io.Writer // one line per fetch; nil discards
	// Refresh fetches even when the cache holds the release, so the cached
	// record lists every file the release ships (a record written before
	// acpgen took the v2 files lists only the v1 ones).
	Refresh bool
}

// Fetch makes the cache hold a release and returns its folder and record.
// With want (a lock from the user's repository) the release is want's and
// the files must have exactly the pinned hashes; without it, version names
// the release (a dist-tag resolves to a concrete version).
func Fetch(ctx context.Context, o FetchOptions, want *Lock, version string) (string, *Lock, error) {
	if o.Cache == "" {
		return "", nil, errors.New("source.Fetch: no cache folder given")
	}
	if want != nil {
		version = want.Version
	}
	if !versionRE.MatchString(version) {
		return "", nil, fmt.Errorf("version %q is not a plain npm version or dist-tag%s", version, nearestCached(o.Cache, version))
	}
	if dir, l, ok := cached(o.Cache, version, want); ok && o.FromURL == "" && !o.Refresh {
		return dir, l, nil
	}
	if err := os.MkdirAll(o.Cache, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(o.Cache, ".fetch-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	if want != nil {
		// Pull then verifies every byte against the user's lock.
		if err := want.Write(filepath.Join(tmp, LockFile)); err != nil {
			return "", nil, err
		}
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	how := "npm"
	if o.FromURL != "" {
		how = o.FromURL
	}
	fmt.Fprintf(stderr, "acpgen: fetching %s@%s (%s)\n", Package, version, how)
	l, err := Pull(ctx, PullOptions{Dir: tmp, Version: version, FromURL: o.FromURL, Npm: o.Npm})
	if errors.Is(err, ErrNoSuchVersion) {
		return "", nil, fmt.Errorf("%w%s", err, nearestCached(o.Cache, version))
	}
	if err != nil {
		return "", nil, err
	}
	if err := Verify(tmp, l); err != nil {
		return "", nil, fmt.Errorf("%s@%s: %w", Package, l.Version, err)
	}
	dir := VersionDir(o.Cache, l.Version)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", nil, err
	}
	// A damaged or differing copy is replaced whole; a concurrent fetch of
	// the same release may have won the rename, which is as good.
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if d, l2, ok := cached(o.Cache, l.Version, l); ok {
			return d, l2, nil
		}
		return "", nil, err
	}
	return dir, l, nil
}

// nearestCached is "; did you mean V?" for the release in the cache whose
// version is nearest to version, or "" when none is near.
func nearestCached(cache, version string) string {
	prefix := path.Base(Package) + "@"
	entries, _ := os.ReadDir(filepath.Dir(VersionDir(cache, "x")))
	var versions []string
	for _, e := range entries {
		if v, ok := strings.CutPrefix(e.Name(), prefix); ok && e.IsDir() {
			versions = append(versions, v)
		}
	}
	if v := didyoumean.Nearest(version, versions); v != "" {
		return "; did you mean " + v + "?"
	}
	return ""
}

// cached reports whether the cache holds the release complete and intact,
// and (with want) exactly the files want pins.
func cached(cache, version string, want *Lock) (string, *Lock, bool) {
	dir := VersionDir(cache, version)
	l, err := ReadLock(filepath.Join(dir, LockFile))
	if err != nil || Verify(dir, l) != nil {
		return "", nil, false
	}
	if want != nil && !covers(l, want) {
		return "", nil, false
	}
	return dir, l, true
}

// covers reports whether the cached release l is want's release and holds
// every file want pins, with the pinned bytes.
func covers(l, want *Lock) bool {
	if l.Version != want.Version || !sriMatches(l.Integrity, want.Integrity) {
		return false
	}
	for name, h := range want.Files {
		if l.Files[name] != h {
			return false
		}
	}
	return true
}

// Pinned returns the cache folder holding the files lockPath pins, fetching
// them when the cache lacks them.
func Pinned(ctx context.Context, lockPath string, o FetchOptions) (string, *Lock, error) {
	l, err := ReadLock(lockPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("%s does not exist: run `acpgen schema pull --version V` to pin a release", lockPath)
		}
		return "", nil, err
	}
	dir, _, err := Fetch(ctx, o, l, "")
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", lockPath, err)
	}
	return dir, l, nil
}

// Inside reports whether path is dir or lies below it (both absolute, or
// both relative to the same folder).
func Inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
