package roots

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve resolves any path against the roots of layout (plus a symlink
// loop, a link to a file and a link to /): a path starting with "/" is taken
// below the layout's directory, any other relative to cwd. It checks: an
// error wraps ErrOutside or ErrUnresolvable; a resolved path is clean,
// absolute and inside the root Resolve names, and Contains agrees; when the
// kernel finds the path, the resolved path is the same file (so what a path
// reaches is inside a root), and a path ending in "/" is a directory; Open
// opens that same file or fails.
func FuzzResolve(f *testing.F) {
	tmp := layout(f)
	for target, name := range map[string]string{"loop2": "work/loop1", "loop1": "work/loop2", "file.txt": "work/flink", "/": "work/slash"} {
		if err := os.Symlink(target, filepath.Join(tmp, name)); err != nil {
			f.Fatal(err)
		}
	}
	s, err := New(filepath.Join(tmp, "work"), []string{filepath.Join(tmp, "extra")})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{
		"file.txt", "sub/inner.txt", "../outside/secret.txt", "evil/secret.txt", "back/outside/secret.txt",
		"back/..", "c1/secret.txt", "k1/inner.txt", "k1/../file.txt", "/extra/lib.txt", "/extra-real/lib.txt",
		"/work2/x.txt", "new/dir/f.txt", "missing/../file.txt", "dangling", "dangling/x", "file.txt/", "file.txt/.",
		"flink/", "flink", "loop1", "loop1/x", "slash" + tmp + "/outside/secret.txt", "slash" + tmp + "/work/file.txt",
		"sub/./inner.txt", ".", "./", "..", "//sub//inner.txt", "sub/inner.txt/..", "\x00", "",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.HasPrefix(p, "/") {
			p = tmp + p
		}
		real, root, err := s.Resolve(p)
		croot, ok, cerr := s.Contains(p)
		if err != nil {
			if !errors.Is(err, ErrOutside) && !errors.Is(err, ErrUnresolvable) {
				t.Fatalf("Resolve(%q): %v", p, err)
			}
			if ok || errors.Is(err, ErrOutside) != (cerr == nil) {
				t.Fatalf("Resolve(%q): %v; Contains: %v, %v", p, err, ok, cerr)
			}
			if f, err := s.Open(p); err == nil {
				f.Close()
				t.Fatalf("Open(%q) succeeded where Resolve failed", p)
			}
			return
		}
		if !ok || croot != root || cerr != nil {
			t.Fatalf("Resolve(%q) = %q in %q; Contains: %q, %v, %v", p, real, root, croot, ok, cerr)
		}
		inside := false
		for _, r := range s.Roots() {
			if _, in := within(r.Real, real); in && r.Path == root {
				inside = true
				break
			}
		}
		if !inside || filepath.Clean(real) != real || !filepath.IsAbs(real) {
			t.Fatalf("Resolve(%q) = %q, not a clean path inside root %q", p, real, root)
		}
		resolved, rerr := os.Stat(real)
		if rerr == nil && namesDir(p) && !resolved.IsDir() {
			t.Fatalf("%q ends in a separator but resolved to the file %q", p, real)
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(tmp, "work") + "/" + p
		}
		byKernel, kerr := os.Stat(abs)
		if kerr != nil {
			return
		}
		if rerr != nil || !os.SameFile(byKernel, resolved) {
			t.Fatalf("%q is %v; resolved to %q: %v, %v", p, byKernel, real, resolved, rerr)
		}
		if f, err := s.Open(p); err == nil {
			fi, err := f.Stat()
			f.Close()
			if err != nil || !os.SameFile(fi, resolved) {
				t.Fatalf("Open(%q) opened %v, not %q", p, fi, real)
			}
		}
	})
}
