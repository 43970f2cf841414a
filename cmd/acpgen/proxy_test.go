package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/generator/source"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// testVersion is the version the local module proxy serves this checkout
// as: a prerelease, so it sorts below any real release of the same number.
const testVersion = "v0.50.0-test"

// checkoutFile is one file of the checkout as golang.org/x/mod/zip reads it.
type checkoutFile struct {
	rel  string // slash-separated, relative to the repository root
	path string
	info os.FileInfo
}

func (f checkoutFile) Path() string                 { return f.rel }
func (f checkoutFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f checkoutFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// checkoutFiles lists the files a release of the checkout at repo would
// hold: every file git tracks or would track (`git ls-files --cached
// --others --exclude-standard`), so git-ignored files (interop/node_modules,
// the schema cache of older layouts, build output) stay out, and files
// deleted from the work tree are skipped.
func checkoutFiles(t *testing.T, repo string) []zip.File {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("listing the checkout's files needs git and a git work tree: %v", err)
	}
	var files []zip.File
	seen := map[string]bool{}
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" || seen[rel] {
			continue
		}
		seen[rel] = true // a file in conflict is listed once per stage
		p := filepath.Join(repo, filepath.FromSlash(rel))
		info, err := os.Lstat(p)
		if err != nil {
			continue
		}
		files = append(files, checkoutFile{rel: rel, path: p, info: info})
	}
	return files
}

// moduleProxy writes a module proxy folder (the layout GOPROXY=file://...
// reads) that serves the checkout at repo as acpgenModule@version, and
// returns its URL. The zip is made by golang.org/x/mod/zip, which leaves out
// the files of nested modules (bench/peer) as the go command does.
func moduleProxy(t *testing.T, repo, version string) string {
	t.Helper()
	dir := t.TempDir()
	escPath, err := module.EscapePath(acpgenModule)
	if err != nil {
		t.Fatal(err)
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := zip.Create(&z, module.Version{Path: acpgenModule, Version: version}, checkoutFiles(t, repo)); err != nil {
		t.Fatalf("zipping the checkout as %s@%s: %v", acpgenModule, version, err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct{ Version, Time string }{version, time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		escVersion + ".zip":  z.Bytes(),
		escVersion + ".mod":  gomod,
		escVersion + ".info": info,
		"list":               []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// downstream runs commands the way a module outside this repository runs
// them: every go command resolves github.com/acpgen/acpgen at testVersion
// from a local module proxy made from this checkout, and everything else
// from the environment's proxy, into a module cache and a schema cache of
// its own. Only the build cache is shared.
type downstream struct {
	t   *testing.T
	env []string
	ran *[]string // every command line run, shared with subtests' copies
}

func newDownstream(t *testing.T, repo string) *downstream {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env GOPROXY: %v", err)
	}
	goproxy := moduleProxy(t, repo, testVersion)
	if upstream := strings.TrimSpace(string(out)); upstream != "" {
		goproxy += "," + upstream
	}
	schemaCache := t.TempDir()
	if _, err := exec.LookPath("npm"); err != nil {
		seedSchemaCache(t, schemaCache, "2.2.0", "2.4.0")
	}
	return &downstream{t: t, ran: new([]string), env: append(os.Environ(),
		"GOPROXY="+goproxy,
		"GONOSUMDB="+acpgenModule, // the test version exists nowhere else
		"GOFLAGS=-modcacherw",     // so that the test can remove its module cache
		"GOMODCACHE="+t.TempDir(),
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"ACPGEN_CACHE="+schemaCache,
	)}
}

// hermetic is d with npm shadowed on the PATH by a command that records
// the call and fails, and an empty schema cache; check fails the test when
// either was touched.
func (d *downstream) hermetic() (h *downstream, check func()) {
	d.t.Helper()
	bin, cache := d.t.TempDir(), d.t.TempDir()
	called := filepath.Join(bin, "npm-called")
	stub := "#!/bin/sh\necho \"$@\" >> " + called + "\necho npm is off the PATH in this test >&2\nexit 127\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(stub), 0o755); err != nil {
		d.t.Fatal(err)
	}
	env := append(slices.Clone(d.env), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), source.CacheEnv+"="+cache)
	return &downstream{t: d.t, env: env, ran: d.ran}, func() {
		d.t.Helper()
		if args, err := os.ReadFile(called); err == nil {
			d.t.Errorf("npm was called: %s", args)
		}
		if entries, _ := os.ReadDir(cache); len(entries) > 0 {
			d.t.Errorf("the schema cache was written: %v", entries)
		}
	}
}

// seedSchemaCache copies releases from the schema caches on this machine
// (the test run's and the user's), for machines without npm; a release
// found in neither skips the test.
func seedSchemaCache(t *testing.T, cache string, versions ...string) {
	t.Helper()
	var from []string
	if c := os.Getenv(source.CacheEnv); c != "" {
		from = append(from, c)
	}
	if c, err := os.UserCacheDir(); err == nil {
		from = append(from, filepath.Join(c, "acpgen"))
	}
	for _, v := range versions {
		copied := false
		for _, c := range from {
			src := source.VersionDir(c, v)
			if _, err := os.Stat(filepath.Join(src, source.LockFile)); err != nil {
				continue
			}
			if err := os.CopyFS(source.VersionDir(cache, v), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			copied = true
			break
		}
		if !copied {
			t.Skipf("npm is not on the PATH and no schema cache on this machine holds %s@%s", source.Package, v)
		}
	}
}

// run runs a command line (split at spaces: no quoting) in dir and returns
// its combined output and error.
func (d *downstream) run(dir, line string) (string, error) {
	d.t.Helper()
	*d.ran = append(*d.ran, line)
	args := strings.Fields(line)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, d.env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d.t.Logf("%s$ %s (%s)", filepath.Base(dir), line, time.Since(start).Round(10*time.Millisecond))
	return string(out), err
}

// must runs a command line that must succeed and returns its output.
func (d *downstream) must(dir, line string) string {
	d.t.Helper()
	out, err := d.run(dir, line)
	if err != nil {
		d.t.Fatalf("in %s: %s: %v\n%s", dir, line, err, out)
	}
	return out
}

// exit runs a command line that must exit with the given status.
func (d *downstream) exit(dir, line string, status int) string {
	d.t.Helper()
	out, err := d.run(dir, line)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		d.t.Fatalf("in %s: %s: %v", dir, line, err)
	}
	if code != status {
		d.t.Fatalf("in %s: %s: exit status %d, want %d\n%s", dir, line, code, status, out)
	}
	return out
}

// nextSteps follows the steps `acpgen scaffold` printed, from dir: `cd`
// and the go commands (without what follows `&&`, which starts the program),
// and returns the folder they ended in.
func (d *downstream) nextSteps(dir, printed string) string {
	d.t.Helper()
	_, steps, ok := strings.Cut(printed, "next:\n")
	if !ok {
		d.t.Fatalf("no next steps in:\n%s", printed)
	}
	for _, line := range strings.Split(strings.TrimSpace(steps), "\n") {
		line, _, _ = strings.Cut(strings.TrimSpace(line), " && ")
		switch f := strings.Fields(line); {
		case len(f) == 2 && f[0] == "cd":
			if filepath.IsAbs(f[1]) {
				dir = f[1]
			} else {
				dir = filepath.Join(dir, f[1])
			}
		case len(f) > 1 && f[0] == "go":
			d.must(dir, line)
		default:
			d.t.Fatalf("unexpected next step %q in:\n%s", line, printed)
		}
	}
	return dir
}
