package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fake schema bodies: any bytes do, the package only hashes them.
var (
	stableBody   = []byte(`{"title":"fake stable"}` + "\n")
	unstableBody = []byte(`{"title":"fake unstable"}` + "\n")
	oldBody      = []byte(`{"title":"fake old unstable"}` + "\n")
	v2Body       = []byte(`{"v2":true}`)
)

type entry struct {
	name     string
	body     []byte
	typeflag byte // 0 means a regular file
	linkname string
}

func manifest(version string) entry {
	return entry{name: "package/package.json", body: []byte(fmt.Sprintf(`{"name":%q,"version":%q}`, Package, version))}
}

// v1Tarball mimics a 2.x release: v1 and v2 schemas plus unrelated files.
func v1Tarball(t *testing.T, version string, extra ...entry) []byte {
	t.Helper()
	entries := []entry{
		manifest(version),
		{name: "package/README.md", body: []byte("readme")},
		{name: "package/schema/v1/schema.json", body: stableBody},
		{name: "package/schema/v1/schema.unstable.json", body: unstableBody},
		{name: "package/schema/v2/schema.json", body: v2Body},
	}
	return makeTarball(t, append(entries, extra...)...)
}

func makeTarball(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typeflag, Linkname: e.linkname}
		if e.typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serve serves body on loopback and returns its URL.
func serve(t *testing.T, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/pkg.tgz"
}

// listTree returns every file below root, relative and slash-separated.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func wantFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

// pinned writes a lock for tgz into dir, as a previous pull would have.
func pinned(t *testing.T, dir, version string, tgz []byte) *Lock {
	t.Helper()
	files, err := extractSchemas(tgz, "test", version)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lock{Package: Package, Version: version, Integrity: sri(tgz), Files: map[string]string{}}
	for name, data := range files {
		l.Files[name] = fileHash(data)
	}
	if err := l.Write(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLockWriteIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	l := &Lock{
		Package:   Package,
		Version:   "2.4.0",
		Integrity: sri([]byte("x")),
		Files:     map[string]string{UnstableFile: fileHash(unstableBody), StableFile: fileHash(stableBody)},
	}
	path := filepath.Join(dir, LockFile)
	if err := l.Write(path); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{
  "package": "@agentclientprotocol/sdk",
  "version": "2.4.0",
  "integrity": "%s",
  "files": {
    "schema.json": "%s",
    "schema.unstable.json": "%s"
  }
}
`, l.Integrity, fileHash(stableBody), fileHash(unstableBody))
	wantFile(t, path, []byte(want))
	back, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Write(path); err != nil {
		t.Fatal(err)
	}
	wantFile(t, path, []byte(want))
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile}) {
		t.Errorf("temp files left behind: %v", got)
	}
}

func TestReadLockRejectsBadLocks(t *testing.T) {
	good := fmt.Sprintf(`{"package":%q,"version":"2.4.0","integrity":%q,"files":{"schema.json":%q}}`,
		Package, sri(nil), fileHash(nil))
	cases := map[string]struct{ text, mention string }{
		"traversal":     {strings.Replace(good, `"schema.json"`, `"../evil.json"`, 1), "../evil.json"},
		"bad hash":      {strings.Replace(good, fileHash(nil), "sha256:abc", 1), "sha256:abc"},
		"other package": {strings.Replace(good, Package, "left-pad", 1), "left-pad"},
		"flag version":  {strings.Replace(good, "2.4.0", "--registry=x", 1), "--registry=x"},
		"unknown field": {strings.Replace(good, `"package"`, `"extra":1,"package"`, 1), "extra"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), LockFile)
			os.WriteFile(path, []byte(c.text), 0o644)
			_, err := ReadLock(path)
			wantErr(t, err, path, c.mention)
		})
	}
	path := filepath.Join(t.TempDir(), LockFile)
	os.WriteFile(path, []byte(good), 0o644)
	if _, err := ReadLock(path); err != nil {
		t.Errorf("good lock rejected: %v", err)
	}
}

func TestPullFromURLCreatesThenVerifies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "schema")
	tgz := v1Tarball(t, "2.0.0")
	url := serve(t, tgz)
	var log bytes.Buffer
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: url, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != "2.0.0" || l.Integrity != sri(tgz) || l.Files[StableFile] != fileHash(stableBody) || l.Files[UnstableFile] != fileHash(unstableBody) || l.Files[V2StableFile] != fileHash(v2Body) || len(l.Files) != 3 {
		t.Errorf("lock = %+v", l)
	}
	wantFile(t, filepath.Join(dir, StableFile), stableBody)
	wantFile(t, filepath.Join(dir, UnstableFile), unstableBody)
	wantFile(t, filepath.Join(dir, V2StableFile), v2Body)
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile, StableFile, UnstableFile, V2StableFile}) {
		t.Errorf("dir holds %v", got)
	}
	if !strings.Contains(log.String(), "created") {
		t.Errorf("log %q does not report the new lock", log.String())
	}

	// Again with the lock's version: a pure verification.
	os.Remove(filepath.Join(dir, StableFile))
	if _, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: url}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, StableFile), stableBody)
	if err := Verify(dir, l); err != nil {
		t.Error(err)
	}
}

func TestPullIntegrityMismatchWritesNothing(t *testing.T) {
	dir := t.TempDir()
	pinned(t, dir, "2.0.0", v1Tarball(t, "2.0.0"))
	// Same schemas, one extra file: the tarball is not the pinned one.
	other := v1Tarball(t, "2.0.0", entry{name: "package/extra.js", body: []byte("x")})
	url := serve(t, other)
	_, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: url})
	wantErr(t, err, url, "integrity", sri(other), "nothing was written")
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile}) {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullFileHashMismatchWritesNothing(t *testing.T) {
	dir := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	l := pinned(t, dir, "2.0.0", tgz)
	lie := fileHash([]byte("something else"))
	l.Files[StableFile] = lie
	if err := l.Write(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	_, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: serve(t, tgz)})
	wantErr(t, err, StableFile, lie, fileHash(stableBody), "nothing was written")
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile}) {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullWrongManifestVersion(t *testing.T) {
	dir := t.TempDir()
	url := serve(t, v1Tarball(t, "2.0.1"))
	_, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: url})
	wantErr(t, err, url, `"2.0.1"`, `"2.0.0"`)
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullSingleFile(t *testing.T) {
	dir := t.TempDir()
	l := pinned(t, dir, "2.0.0", v1Tarball(t, "2.0.0"))
	got, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: serve(t, unstableBody)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != l.Version {
		t.Errorf("lock changed: %+v", got)
	}
	wantFile(t, filepath.Join(dir, UnstableFile), unstableBody)
	if files := listTree(t, dir); !slices.Equal(files, []string{LockFile, UnstableFile}) {
		t.Errorf("dir holds %v, want only the lock and %s", files, UnstableFile)
	}

	stranger := []byte(`{"title":"not pinned"}`)
	url := serve(t, stranger)
	_, err = Pull(context.Background(), PullOptions{Dir: dir, FromURL: url})
	wantErr(t, err, url, fileHash(stranger), "matches no file")
	if files := listTree(t, dir); !slices.Equal(files, []string{LockFile, UnstableFile}) {
		t.Errorf("dir holds %v after a failed pull", files)
	}

	// A single file cannot establish a new pin.
	_, err = Pull(context.Background(), PullOptions{Dir: dir, Version: "3.0.0", FromURL: serve(t, unstableBody)})
	wantErr(t, err, "cannot re-pin")
}

func TestPullIgnoresTraversalAndLinks(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "repo", "schema")
	tgz := makeTarball(t,
		manifest("2.0.0"),
		entry{name: "../evil.json", body: []byte("evil")},
		entry{name: "package/../../evil2.json", body: []byte("evil")},
		entry{name: "package/schema/v1/../../../../evil3.json", body: []byte("evil")},
		entry{name: "/tmp/acpgen-evil4.json", body: []byte("evil")},
		// A link carrying a schema's name must not stand in for it.
		entry{name: "package/schema/v1/schema.json", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"},
		entry{name: "package/schema/v1/schema.unstable.json", typeflag: tar.TypeLink, linkname: "package/README.md"},
		entry{name: "package/schema/v1/", typeflag: tar.TypeDir},
		entry{name: "package/schema/v1/schema.json", body: stableBody},
		entry{name: "package/schema/v1/schema.unstable.json", body: unstableBody},
	)
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: serve(t, tgz)})
	if err != nil {
		t.Fatal(err)
	}
	if got := listTree(t, root); !slices.Equal(got, []string{"repo/schema/" + LockFile, "repo/schema/" + StableFile, "repo/schema/" + UnstableFile}) {
		t.Errorf("tree holds %v", got)
	}
	if _, err := os.Stat("/tmp/acpgen-evil4.json"); err == nil {
		t.Error("absolute entry was written")
	}
	wantFile(t, filepath.Join(dir, StableFile), stableBody)
	if l.Files[UnstableFile] != fileHash(unstableBody) {
		t.Errorf("lock = %+v", l)
	}
}

func TestPullRejectsDuplicateEntries(t *testing.T) {
	tgz := makeTarball(t, manifest("2.0.0"),
		entry{name: "package/schema/v1/schema.json", body: stableBody},
		entry{name: "package/schema/v1/schema.json", body: []byte("shadow")},
	)
	dir := t.TempDir()
	_, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: serve(t, tgz)})
	wantErr(t, err, "package/schema/v1/schema.json twice")
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullOldLayout(t *testing.T) {
	dir := t.TempDir()
	// Start from a 2.x pin so the switch must drop the stable file.
	if _, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: serve(t, v1Tarball(t, "2.0.0"))}); err != nil {
		t.Fatal(err)
	}
	old := makeTarball(t, manifest("1.9.0"),
		entry{name: "package/schema/schema.json", body: oldBody},
		entry{name: "package/schema/v2/schema.unstable.json", body: v2Body},
	)
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "1.9.0", FromURL: serve(t, old)})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 2 || l.Files[UnstableFile] != fileHash(oldBody) || l.Files[V2UnstableFile] != fileHash(v2Body) || l.Version != "1.9.0" {
		t.Errorf("lock = %+v", l)
	}
	wantFile(t, filepath.Join(dir, UnstableFile), oldBody)
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile, UnstableFile, V2UnstableFile}) {
		t.Errorf("dir holds %v", got)
	}
	back, err := ReadLock(filepath.Join(dir, LockFile))
	if err != nil || back.Version != "1.9.0" {
		t.Errorf("lock on disk = %+v, %v", back, err)
	}
}

// fakeNpm writes an npm stand-in that "downloads" tgz by copying it into
// --pack-destination and prints pack's JSON, reporting the given integrity.
// It records its arguments in the returned log file.
func fakeNpm(t *testing.T, tgz []byte, version, integrity string) (npm, argLog string) {
	t.Helper()
	dir := t.TempDir()
	fixture := filepath.Join(dir, "fixture.tgz")
	if err := os.WriteFile(fixture, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	argLog = filepath.Join(dir, "args.log")
	name := "agentclientprotocol-sdk-" + version + ".tgz"
	script := fmt.Sprintf(`#!/bin/sh
printf '%%s\n' "$@" > '%s'
dest=
while [ $# -gt 0 ]; do
  if [ "$1" = --pack-destination ]; then dest="$2"; fi
  shift
done
echo "npm warn config something noisy" >&2
cp '%s' "$dest/%s"
cat <<'EOF'
[
  {
    "id": "%s@%s",
    "name": "%s",
    "version": "%s",
    "integrity": "%s",
    "filename": "%s",
    "files": [{"path": "package.json", "size": 1, "mode": 420}]
  }
]
EOF
`, argLog, fixture, name, Package, version, Package, version, integrity, name)
	npm = filepath.Join(dir, "npm")
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, argLog
}

func TestPullWithNpm(t *testing.T) {
	dir := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	npm, argLog := fakeNpm(t, tgz, "2.0.0", sri(tgz))
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", Npm: npm})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(argLog)
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) < 3 || lines[0] != "pack" || lines[1] != Package+"@2.0.0" || !slices.Contains(lines, "--json") || !slices.Contains(lines, "--pack-destination") {
		t.Errorf("npm ran with %q", lines)
	}
	if l.Integrity != sri(tgz) || len(l.Files) != 3 {
		t.Errorf("lock = %+v", l)
	}
	if err := Verify(dir, l); err != nil {
		t.Error(err)
	}
	// Verification run from the lock alone.
	if _, err := Pull(context.Background(), PullOptions{Dir: dir, Npm: npm}); err != nil {
		t.Error(err)
	}
}

func TestPullWithNpmResolvesDistTag(t *testing.T) {
	dir := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	npm, argLog := fakeNpm(t, tgz, "2.0.0", sri(tgz))
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "latest", Npm: npm})
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != "2.0.0" {
		t.Errorf("pinned %q, want the resolved 2.0.0", l.Version)
	}
	if args, _ := os.ReadFile(argLog); !strings.Contains(string(args), Package+"@latest") {
		t.Errorf("npm ran with %q", args)
	}
}

func TestPullWithNpmIntegrityDisagreement(t *testing.T) {
	dir := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	npm, _ := fakeNpm(t, tgz, "2.0.0", sri([]byte("other")))
	_, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", Npm: npm})
	wantErr(t, err, "npm reports integrity", sri(tgz))
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullWithNpmLockMismatch(t *testing.T) {
	dir := t.TempDir()
	pinned(t, dir, "2.0.0", v1Tarball(t, "2.0.0"))
	other := v1Tarball(t, "2.0.0", entry{name: "package/extra.js", body: []byte("x")})
	npm, _ := fakeNpm(t, other, "2.0.0", sri(other))
	_, err := Pull(context.Background(), PullOptions{Dir: dir, Npm: npm})
	wantErr(t, err, "npm pack", "integrity", "nothing was written")
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile}) {
		t.Errorf("dir holds %v after a failed pull", got)
	}
}

func TestPullWithFailingNpm(t *testing.T) {
	npm := filepath.Join(t.TempDir(), "npm")
	os.WriteFile(npm, []byte("#!/bin/sh\necho 'npm error code E404' >&2\necho 'npm error 404 No match found for version 9.9.9' >&2\nexit 1\n"), 0o755)
	_, err := Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "9.9.9", Npm: npm})
	wantErr(t, err, Package+"@9.9.9", "No match found for version 9.9.9")
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	l := pinned(t, dir, "2.0.0", tgz)
	wantErr(t, Verify(dir, l), filepath.Join(dir, StableFile), filepath.Join(dir, UnstableFile), "missing")
	if _, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: serve(t, tgz)}); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, l); err != nil {
		t.Fatal(err)
	}
	// A changed file is reported with both hashes.
	edited := []byte(`{"edited":true}`)
	os.WriteFile(filepath.Join(dir, StableFile), edited, 0o644)
	wantErr(t, Verify(dir, l), filepath.Join(dir, StableFile), fileHash(edited), l.Files[StableFile])
}

// TestFetchCache: a release is fetched into its own cache folder once and
// then read from there; a damaged copy is fetched again; a download that
// is not the release a lock pins is refused and leaves the cache alone.
func TestFetchCache(t *testing.T) {
	cache := t.TempDir()
	tgz := v1Tarball(t, "2.0.0")
	npm, argLog := fakeNpm(t, tgz, "2.0.0", sri(tgz))
	o := FetchOptions{Cache: cache, Npm: npm}
	dir, l, err := Fetch(context.Background(), o, nil, "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if dir != VersionDir(cache, "2.0.0") || l.Version != "2.0.0" {
		t.Fatalf("fetched into %s: %+v", dir, l)
	}
	if got := listTree(t, cache); !slices.Equal(got, []string{"@agentclientprotocol/sdk@2.0.0/" + LockFile, "@agentclientprotocol/sdk@2.0.0/" + StableFile, "@agentclientprotocol/sdk@2.0.0/" + UnstableFile, "@agentclientprotocol/sdk@2.0.0/" + V2StableFile}) {
		t.Errorf("cache holds %v", got)
	}
	// Cached: npm does not run again, with or without the pinning lock.
	os.Remove(argLog)
	for _, want := range []*Lock{nil, l} {
		if d, _, err := Fetch(context.Background(), o, want, "2.0.0"); err != nil || d != dir {
			t.Fatalf("second fetch: %s, %v", d, err)
		}
	}
	if _, err := os.Stat(argLog); err == nil {
		t.Error("npm ran for a cached release")
	}
	// Damaged: fetched again.
	os.WriteFile(filepath.Join(dir, StableFile), []byte("{}"), 0o644)
	if _, _, err := Fetch(context.Background(), o, l, ""); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(dir, StableFile), stableBody)
	// A lock pinning other bytes for 2.0.0: the download does not match it.
	other := *l
	other.Files = map[string]string{StableFile: l.Files[StableFile], UnstableFile: fileHash([]byte("other"))}
	_, _, err = Fetch(context.Background(), o, &other, "")
	wantErr(t, err, UnstableFile, "lock pins", "nothing was written")
	wantFile(t, filepath.Join(dir, UnstableFile), unstableBody)
	if got := listTree(t, cache); len(got) != 4 {
		t.Errorf("cache holds %v after a refused fetch", got)
	}
}

func TestPinnedNeedsALock(t *testing.T) {
	_, _, err := Pinned(context.Background(), filepath.Join(t.TempDir(), LockFile), FetchOptions{Cache: t.TempDir()})
	wantErr(t, err, LockFile, "does not exist", "acpgen schema pull --version")
}

// TestNpmErrors: npm's own error code and summary reach the user, from its
// --json output on stdout or else its stderr; a missing npm points to the
// URL route.
func TestNpmErrors(t *testing.T) {
	script := func(body string) string {
		npm := filepath.Join(t.TempDir(), "npm")
		os.WriteFile(npm, []byte("#!/bin/sh\n"+body), 0o755)
		return npm
	}
	jsonErr := script(`echo '{"error": {"code": "ETARGET", "summary": "No matching version found for x@9.9.9.", "detail": "long text"}}'; exit 1` + "\n")
	_, err := Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "9.9.9", Npm: jsonErr})
	wantErr(t, err, "ETARGET No matching version found for x@9.9.9.", "npm view "+Package+" versions")
	offline := script(`echo '{"error": {"code": "ENOTFOUND", "summary": "request failed"}}'; exit 1` + "\n")
	_, err = Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "9.9.9", Npm: offline})
	wantErr(t, err, "ENOTFOUND", "--from-url (schema.url)")
	_, err = Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "9.9.9", Npm: filepath.Join(t.TempDir(), "no-npm")})
	wantErr(t, err, "not found", "--from-url", "schema.url")
}

// TestPullRealNpm pulls the committed pin from the real registry.
func TestPullRealNpm(t *testing.T) {
	if os.Getenv("ACPGEN_NETWORK_TESTS") != "1" {
		t.Skip("set ACPGEN_NETWORK_TESTS=1 to pull from the npm registry")
	}
	committed, err := ReadLock(filepath.Join("..", "..", "schema", LockFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := committed.Write(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Stderr: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if err := Verify(dir, l); err != nil {
		t.Fatal(err)
	}
	if got := listTree(t, dir); !slices.Equal(got, []string{LockFile, StableFile, UnstableFile}) {
		t.Errorf("dir holds %v", got)
	}
}

// A lock written before acpgen took the v2 files pins only the v1 ones. The
// tarball's integrity still matches, so the fetch succeeds, the cached copy
// holds every file, and the lock grows to pin the new ones.
func TestLockPredatingV2Grows(t *testing.T) {
	tgz := v1Tarball(t, "2.0.0")
	v1Only := &Lock{Package: Package, Version: "2.0.0", Integrity: sri(tgz), Files: map[string]string{
		StableFile: fileHash(stableBody), UnstableFile: fileHash(unstableBody)}}
	dir := t.TempDir()
	if err := v1Only.Write(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	l, err := Pull(context.Background(), PullOptions{Dir: dir, FromURL: serve(t, tgz), Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 3 || l.Files[V2StableFile] != fileHash(v2Body) || l.Files[StableFile] != v1Only.Files[StableFile] {
		t.Errorf("lock = %+v", l)
	}
	back, err := ReadLock(filepath.Join(dir, LockFile))
	if err != nil || len(back.Files) != 3 {
		t.Errorf("lock on disk = %+v, %v", back, err)
	}
	if !strings.Contains(log.String(), "also pins "+V2StableFile) {
		t.Errorf("log %q does not say what the lock gained", log.String())
	}

	// The cache serves the short lock without fetching again.
	cache := t.TempDir()
	npm, argLog := fakeNpm(t, tgz, "2.0.0", sri(tgz))
	o := FetchOptions{Cache: cache, Npm: npm}
	if _, _, err := Fetch(context.Background(), o, v1Only, ""); err != nil {
		t.Fatal(err)
	}
	os.Remove(argLog)
	if _, _, err := Fetch(context.Background(), o, v1Only, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(argLog); err == nil {
		t.Error("npm ran again for a cached release that covers the lock")
	}

	// Other bytes under the same integrity are still refused.
	forged := *v1Only
	forged.Files = map[string]string{StableFile: fileHash([]byte("forged"))}
	_, err = Pull(context.Background(), PullOptions{Dir: writeLock(t, &forged), FromURL: serve(t, tgz)})
	wantErr(t, err, StableFile, "lock pins", "nothing was written")
}

func writeLock(t *testing.T, l *Lock) string {
	t.Helper()
	dir := t.TempDir()
	if err := l.Write(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A folder given by hand may hold some of a release's files beside its lock:
// those present must match, and those needed must be there.
func TestVerifyPresent(t *testing.T) {
	tgz := v1Tarball(t, "2.0.0")
	dir := t.TempDir()
	l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: serve(t, tgz)})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, V2StableFile))
	if err := VerifyPresent(dir, l, []string{StableFile, UnstableFile}); err != nil {
		t.Errorf("v1 subset: %v", err)
	}
	wantErr(t, VerifyPresent(dir, l, []string{StableFile, V2StableFile}), V2StableFile, "is missing")
	os.WriteFile(filepath.Join(dir, UnstableFile), []byte("{}"), 0o644)
	wantErr(t, VerifyPresent(dir, l, []string{StableFile}), UnstableFile, "it was edited")
}

// A tarball on disk, as a file:// URL or a plain path, is read like a
// downloaded one: the lock is the same.
func TestPullFromLocalTarball(t *testing.T) {
	tgz := v1Tarball(t, "2.0.0")
	file := filepath.Join(t.TempDir(), "sdk-2.0.0.tgz")
	if err := os.WriteFile(file, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()
	for _, from := range []string{fileURL, file} {
		dir := filepath.Join(t.TempDir(), "schema")
		l, err := Pull(context.Background(), PullOptions{Dir: dir, Version: "2.0.0", FromURL: from})
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		if l.Integrity != sri(tgz) || l.Files[StableFile] != fileHash(stableBody) {
			t.Errorf("%s: lock = %+v", from, l)
		}
		wantFile(t, filepath.Join(dir, StableFile), stableBody)
	}
	_, err := Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "2.0.0", FromURL: filepath.Join(t.TempDir(), "missing.tgz")})
	if err == nil || !strings.Contains(err.Error(), "missing.tgz") {
		t.Errorf("a missing file: %v", err)
	}
	_, err = Pull(context.Background(), PullOptions{Dir: t.TempDir(), Version: "2.0.0", FromURL: "ftp://example.com/x.tgz"})
	if err == nil || !strings.Contains(err.Error(), "not an http(s) or file URL") {
		t.Errorf("an ftp URL: %v", err)
	}
}

// A release npm does not have, or a version that is no npm version, gets
// the nearest release in the cache suggested.
func TestFetchSuggestsACachedVersion(t *testing.T) {
	cache := t.TempDir()
	for _, v := range []string{"2.2.0", "2.4.0"} {
		os.MkdirAll(VersionDir(cache, v), 0o755)
	}
	npm := filepath.Join(t.TempDir(), "npm")
	os.WriteFile(npm, []byte("#!/bin/sh\necho 'npm error code ETARGET' >&2\necho 'npm error notarget No matching version found' >&2\nexit 1\n"), 0o755)
	_, _, err := Fetch(context.Background(), FetchOptions{Cache: cache, Npm: npm}, nil, "2.40")
	if err == nil || !strings.HasSuffix(err.Error(), "; did you mean 2.4.0?") {
		t.Errorf("2.40: %v", err)
	}
	_, _, err = Fetch(context.Background(), FetchOptions{Cache: cache, Npm: npm}, nil, "7.0.0")
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("7.0.0: %v, want no suggestion", err)
	}
	_, _, err = Fetch(context.Background(), FetchOptions{Cache: cache, Npm: npm}, nil, "=2.2.0")
	if err == nil || !strings.HasSuffix(err.Error(), "is not a plain npm version or dist-tag; did you mean 2.2.0?") {
		t.Errorf("=2.2.0: %v", err)
	}
}
