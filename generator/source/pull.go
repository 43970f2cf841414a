package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	// maxDownload bounds any tarball or schema file we hold in memory; the
	// real tarball is well under 5 MiB.
	maxDownload = 64 << 20
	// fetchTimeout bounds one npm run or HTTP download.
	fetchTimeout = 5 * time.Minute
)

// PullOptions says where to put the schemas and where to get them.
type PullOptions struct {
	Dir     string    // schema folder, e.g. "schema"; the lock is Dir/lock.json
	Version string    // "" = the lock's version; a different version updates the lock
	FromURL string    // optional: fetch a package tarball (.tgz) or a single schema file over HTTP(S) instead of running npm
	Npm     string    // npm binary, default "npm"
	Stderr  io.Writer // progress messages; nil discards them
}

// Pull fetches the schemas, verifies them and writes them into o.Dir.
//
// When the version is the lock's, the tarball integrity and every file hash
// must equal the lock or nothing is written. When it differs (or there is no
// lock yet), Pull records a new lock instead. Files are written atomically
// and only after every check passed.
func Pull(ctx context.Context, o PullOptions) (*Lock, error) {
	if o.Dir == "" {
		return nil, errors.New("source.Pull: no schema folder given")
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	lockPath := filepath.Join(o.Dir, LockFile)
	old, err := ReadLock(lockPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	version := o.Version
	if version == "" {
		if old == nil {
			return nil, fmt.Errorf("%s does not exist: pass an explicit version to create it", lockPath)
		}
		version = old.Version
	}
	if !versionRE.MatchString(version) {
		return nil, fmt.Errorf("version %q is not a plain npm version or dist-tag", version)
	}

	var (
		origin    string
		tgz       []byte
		integrity string
	)
	if o.FromURL != "" {
		origin = o.FromURL
		body, err := download(ctx, o.FromURL)
		if err != nil {
			return nil, err
		}
		if !isGzip(body) {
			return pullSingleFile(o.Dir, old, version, o.FromURL, body, stderr)
		}
		tgz, integrity = body, sri(body)
	} else if origin, tgz, integrity, version, err = npmTarball(ctx, o.Npm, version, stderr); err != nil {
		return nil, err
	}

	files, err := extractSchemas(tgz, origin, version)
	if err != nil {
		return nil, err
	}
	next := &Lock{Package: Package, Version: version, Integrity: integrity, Files: map[string]string{}}
	for name, data := range files {
		next.Files[name] = fileHash(data)
	}
	if old != nil && old.Version == version {
		if err := matchLock(old, next, origin, lockPath); err != nil {
			return nil, err
		}
		if err := writeSchemas(o.Dir, files, next, stderr); err != nil {
			return nil, err
		}
		return growLock(old, next, lockPath, stderr)
	}
	if err := writeSchemas(o.Dir, files, next, stderr); err != nil {
		return nil, err
	}
	if err := removeUnshipped(o.Dir, next, stderr); err != nil {
		return nil, err
	}
	if err := next.Write(lockPath); err != nil {
		return nil, err
	}
	if old == nil {
		fmt.Fprintf(stderr, "created %s for %s@%s\n", lockPath, Package, version)
	} else {
		fmt.Fprintf(stderr, "updated %s from %s to %s\n", lockPath, old.Version, version)
	}
	return next, nil
}

// npmTarball fetches the release's tarball with npm (npm "" is "npm") and
// checks it against the integrity npm reports. A dist-tag resolves to a
// concrete version, which is what the lock pins.
func npmTarball(ctx context.Context, npm, version string, stderr io.Writer) (origin string, tgz []byte, integrity, resolved string, err error) {
	if npm == "" {
		npm = "npm"
	}
	origin = "npm pack " + Package + "@" + version
	fmt.Fprintf(stderr, "%s\n", origin)
	tgz, reported, resolved, err := npmPack(ctx, npm, version)
	if err != nil {
		return "", nil, "", "", err
	}
	integrity = sri(tgz)
	// npm checked the download against the registry's integrity; checking
	// it again here catches a broken or substituted npm.
	if !sriMatches(reported, integrity) {
		return "", nil, "", "", fmt.Errorf("%s: npm reports integrity %s but the tarball it wrote hashes to %s; clear the npm cache (npm cache clean --force) and retry", origin, reported, integrity)
	}
	return origin, tgz, integrity, resolved, nil
}

// writeSchemas writes every extracted file into dir, each atomically.
func writeSchemas(dir string, files extracted, next *Lock, stderr io.Writer) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, name)
		if err := writeAtomic(path, files[name]); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s (%s)\n", path, next.Files[name])
	}
	return nil
}

// growLock keeps the lock of a re-pulled release, unless the pinned tarball
// (its integrity matched) ships files the lock predates, such as the v2
// schemas: then the lock grows to pin them too.
func growLock(old, next *Lock, lockPath string, stderr io.Writer) (*Lock, error) {
	if len(next.Files) == len(old.Files) {
		return old, nil
	}
	if err := next.Write(lockPath); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "updated %s: %s@%s also pins %s\n", lockPath, Package, next.Version, strings.Join(added(old, next), ", "))
	return next, nil
}

// removeUnshipped removes the known schema files the new release lacks, which
// would otherwise linger and be mistaken for part of it.
func removeUnshipped(dir string, next *Lock, stderr io.Writer) error {
	for _, name := range knownFiles {
		if _, ok := next.Files[name]; ok {
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.Remove(path); err == nil {
			fmt.Fprintf(stderr, "removed %s: %s@%s does not ship it\n", path, Package, next.Version)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// added lists the files next pins and old does not.
func added(old, next *Lock) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(next.Files)) {
		if _, ok := old.Files[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// matchLock compares what was fetched against the lock, reporting every
// difference so one run shows the whole picture. Files the lock does not pin
// are no difference: the tarball's integrity, which the lock pins, vouches
// for them.
func matchLock(old, got *Lock, origin, lockPath string) error {
	var problems []string
	if !sriMatches(got.Integrity, old.Integrity) {
		problems = append(problems, fmt.Sprintf("tarball integrity is %s, lock pins %s", got.Integrity, old.Integrity))
	}
	for _, name := range slices.Sorted(maps.Keys(old.Files)) {
		switch h, ok := got.Files[name]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is missing from the tarball", name))
		case h != old.Files[name]:
			problems = append(problems, fmt.Sprintf("%s has %s, lock pins %s", name, h, old.Files[name]))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s does not match %s (version %s): %s; nothing was written. The download is not the pinned release: check the source, or pull an explicit new version to re-pin",
		origin, lockPath, old.Version, strings.Join(problems, "; "))
}

// pullSingleFile handles a URL that served one schema file: the lock's hashes
// say which file it is, so it can only ever restore a pinned file.
func pullSingleFile(dir string, old *Lock, version, rawURL string, body []byte, stderr io.Writer) (*Lock, error) {
	if old == nil {
		return nil, fmt.Errorf("%s is a single file, which needs %s to identify it; pull the package tarball first", rawURL, filepath.Join(dir, LockFile))
	}
	if version != old.Version {
		return nil, fmt.Errorf("%s is a single file and cannot re-pin the lock from %s to %s; use a package tarball URL or npm", rawURL, old.Version, version)
	}
	h := fileHash(body)
	var name string
	for _, n := range slices.Sorted(maps.Keys(old.Files)) {
		if old.Files[n] == h {
			name = n
		}
	}
	if name == "" {
		return nil, fmt.Errorf("%s has %s, which matches no file pinned by %s (version %s); nothing was written. Check that the URL serves the pinned release's schema.json or schema.unstable.json",
			rawURL, h, filepath.Join(dir, LockFile), old.Version)
	}
	path := filepath.Join(dir, name)
	if err := writeAtomic(path, body); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "wrote %s (%s) from %s\n", path, h, rawURL)
	return old, nil
}

// readLocal reads a tarball or schema file given as a path, bounded in size.
func readLocal(given, path string) ([]byte, error) {
	f, err := os.Open(filepath.FromSlash(path))
	if err != nil {
		return nil, fmt.Errorf("--from-url %s: %w", given, err)
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxDownload+1))
	if err != nil {
		return nil, fmt.Errorf("--from-url %s: %w", given, err)
	}
	if len(body) > maxDownload {
		return nil, fmt.Errorf("--from-url %s: over the %d byte limit", given, maxDownload)
	}
	return body, nil
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// download reads rawURL into memory, bounded in time and size: an http(s)
// URL is fetched; a file:// URL or a plain path is read from disk, for a
// tarball copied to a machine without npm or network.
func download(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err == nil && u.Scheme == "file":
		return readLocal(rawURL, u.Path)
	case err != nil || u.Scheme == "" || len(u.Scheme) == 1: // a path, or a Windows drive letter
		return readLocal(rawURL, rawURL)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("%s: not an http(s) or file URL, nor a path", rawURL)
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	// Ask for the bytes as stored: a transparently decompressed tarball
	// would no longer match its integrity hash.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s; check the URL", rawURL, resp.Status)
	}
	if resp.ContentLength > maxDownload {
		return nil, fmt.Errorf("GET %s: %d bytes, over the %d byte limit", rawURL, resp.ContentLength, maxDownload)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDownload+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", rawURL, err)
	}
	if len(body) > maxDownload {
		return nil, fmt.Errorf("GET %s: body over the %d byte limit", rawURL, maxDownload)
	}
	return body, nil
}

// npmPack downloads the package tarball with npm, which knows its registry,
// proxy and credentials. It returns the tarball, the integrity npm reports
// and the concrete version npm resolved.
func npmPack(ctx context.Context, npm, version string) (tgz []byte, integrity, resolved string, err error) {
	tmp, err := os.MkdirTemp("", "acpgen-npm-pack-")
	if err != nil {
		return nil, "", "", err
	}
	defer os.RemoveAll(tmp)

	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	spec := Package + "@" + version
	cmd := exec.CommandContext(ctx, npm, "pack", spec, "--json", "--silent", "--pack-destination", tmp)
	// Run outside the repo so no project .npmrc or package.json steers npm.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, "", "", fmt.Errorf("%s not found: install npm, or give the package tarball (a URL or a path) with --from-url (schema.url in %s); on a machine with npm, `npm view %s dist.tarball` prints its URL", npm, "acpgen.json", spec)
		}
		msg := npmError(stdout.Bytes(), stderr.Bytes())
		if strings.Contains(msg, "ETARGET") || strings.Contains(msg, "E404") {
			return nil, "", "", noSuchVersion{fmt.Errorf("npm pack %s failed (%v): %s", spec, err, msg)}
		}
		return nil, "", "", fmt.Errorf("npm pack %s failed (%v): %s", spec, err, msg)
	}

	// npm prints warnings on stderr, which we ignore; stdout is JSON.
	var packed []struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		Integrity string `json:"integrity"`
		Filename  string `json:"filename"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil {
		return nil, "", "", fmt.Errorf("npm pack %s: cannot parse its --json output (%v): %.200q", spec, err, stdout.String())
	}
	if len(packed) != 1 {
		return nil, "", "", fmt.Errorf("npm pack %s: expected one package in its output, got %d", spec, len(packed))
	}
	p := packed[0]
	switch {
	case p.Name != "" && p.Name != Package:
		return nil, "", "", fmt.Errorf("npm pack %s: npm packed %q instead", spec, p.Name)
	case p.Integrity == "":
		return nil, "", "", fmt.Errorf("npm pack %s: npm reported no integrity", spec)
	case p.Filename == "" || p.Filename != filepath.Base(p.Filename) || p.Filename == "." || p.Filename == "..":
		return nil, "", "", fmt.Errorf("npm pack %s: unexpected tarball file name %q", spec, p.Filename)
	}
	resolved = version
	if p.Version != "" {
		resolved = p.Version
	}
	if !versionRE.MatchString(resolved) {
		return nil, "", "", fmt.Errorf("npm pack %s: npm resolved the odd version %q", spec, resolved)
	}

	path := filepath.Join(tmp, p.Filename)
	if fi, err := os.Stat(path); err != nil {
		return nil, "", "", fmt.Errorf("npm pack %s: npm did not write %s: %w", spec, p.Filename, err)
	} else if fi.Size() > maxDownload {
		return nil, "", "", fmt.Errorf("npm pack %s: tarball is %d bytes, over the %d byte limit", spec, fi.Size(), maxDownload)
	}
	tgz, err = os.ReadFile(path)
	if err != nil {
		return nil, "", "", err
	}
	return tgz, p.Integrity, resolved, nil
}

// ErrNoSuchVersion is npm's answer for a version or package it does not
// have (ETARGET, E404).
var ErrNoSuchVersion = errors.New("no such version")

type noSuchVersion struct{ error }

func (noSuchVersion) Is(target error) bool { return target == ErrNoSuchVersion }

// npmError is npm's own account of a failure. With --json, npm writes it to
// stdout as {"error": {"code", "summary", "detail"}} and may leave stderr
// empty; older npm versions only write stderr.
func npmError(stdout, stderr []byte) string {
	var out struct {
		Error struct {
			Code    string `json:"code"`
			Summary string `json:"summary"`
			Detail  string `json:"detail"`
		} `json:"error"`
	}
	if json.Unmarshal(stdout, &out) == nil && (out.Error.Code != "" || out.Error.Summary != "") {
		msg := strings.TrimSpace(out.Error.Code + " " + firstLine(out.Error.Summary))
		switch out.Error.Code {
		case "ETARGET", "E404":
			return msg + "; check the version (npm view " + Package + " versions)"
		case "ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "ECONNRESET":
			return msg + "; npm cannot reach its registry: check its proxy settings, or use --from-url (schema.url)"
		}
		return msg
	}
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	lines = slices.DeleteFunc(lines, func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(lines) == 0 {
		return "npm printed no error; check that npm can reach its registry, or use --from-url (schema.url)"
	}
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, " | ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
