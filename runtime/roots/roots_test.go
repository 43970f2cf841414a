package roots

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout builds, under a fresh temp dir:
//
//	work/                 cwd
//	  file.txt
//	  sub/inner.txt
//	  evil -> ../outside             link inside a root pointing outside
//	  evilabs -> <tmp>/outside       the same, absolute
//	  c1 -> c2, c2 -> c3, c3 -> ../outside   a chain ending outside
//	  k1 -> k2, k2 -> sub            a chain staying inside
//	  dangling -> ../outside/notyet  dangling link leading outside
//	  back -> ..                     link to the parent of the root
//	extra-real/lib.txt    an additional root, declared through
//	extra -> extra-real   a root that is itself a link
//	outside/secret.txt
//	work2/x.txt           shares a prefix with work, outside every root
func layout(t testing.TB) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p, content string) {
		p = filepath.Join(tmp, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(tmp, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("work/file.txt", "in cwd")
	mk("work/sub/inner.txt", "inner")
	mk("extra-real/lib.txt", "lib")
	mk("outside/secret.txt", "secret")
	mk("work2/x.txt", "neighbour")
	ln("../outside", "work/evil")
	ln(filepath.Join(tmp, "outside"), "work/evilabs")
	ln("c2", "work/c1")
	ln("c3", "work/c2")
	ln("../outside", "work/c3")
	ln("k2", "work/k1")
	ln("sub", "work/k2")
	ln("../outside/notyet", "work/dangling")
	ln("..", "work/back")
	ln("extra-real", "extra")
	return tmp
}

func newSet(t *testing.T, tmp string) *Set {
	t.Helper()
	s, err := New(filepath.Join(tmp, "work"), []string{filepath.Join(tmp, "extra")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContains(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	work, extra := filepath.Join(tmp, "work"), filepath.Join(tmp, "extra")
	j := func(parts ...string) string { return filepath.Join(append([]string{tmp}, parts...)...) }
	raw := func(parts ...string) string { // joined without cleaning, so ".." survives
		p := tmp
		for _, x := range parts {
			p += string(filepath.Separator) + x
		}
		return p
	}
	for _, c := range []struct {
		name, path, root string // root "" = not in scope
		unresolvable     bool
	}{
		{name: "cwd itself", path: work, root: work},
		{name: "file in cwd", path: j("work", "file.txt"), root: work},
		{name: "relative path against cwd", path: "sub/inner.txt", root: work},
		{name: "relative escape", path: "../outside/secret.txt"},
		{name: "dot-dot escape", path: raw("work", "..", "outside", "secret.txt")},
		{name: "dot-dot staying inside", path: raw("work", "sub", "..", "file.txt"), root: work},
		{name: "link inside pointing outside", path: j("work", "evil", "secret.txt")},
		{name: "absolute link pointing outside", path: j("work", "evilabs", "secret.txt")},
		{name: "link to the root's parent", path: raw("work", "back", "outside", "secret.txt")},
		// Lexically work/back/.. is work; on the filesystem it is tmp's parent.
		{name: "dot-dot after a link", path: raw("work", "back", "..")},
		{name: "chain ending outside", path: j("work", "c1", "secret.txt")},
		{name: "chain staying inside", path: j("work", "k1", "inner.txt"), root: work},
		{name: "root declared through a link", path: j("extra", "lib.txt"), root: extra},
		{name: "same file by its real path", path: j("extra-real", "lib.txt"), root: extra},
		{name: "shared prefix is not containment", path: j("work2", "x.txt")},
		{name: "outside", path: j("outside", "secret.txt")},
		{name: "does not exist yet", path: j("work", "new", "dir", "f.txt"), root: work},
		{name: "does not exist yet under a root link", path: j("extra", "new.txt"), root: extra},
		{name: "does not exist yet behind a link outside", path: j("work", "evil", "new.txt")},
		{name: "dot-dot in the missing part", path: raw("work", "missing", "..", "..", "outside", "x"), unresolvable: true},
		{name: "dot-dot in the missing part, even inside", path: raw("work", "missing", "..", "file.txt"), unresolvable: true},
		{name: "dangling link", path: j("work", "dangling"), unresolvable: true},
		{name: "below a dangling link", path: j("work", "dangling", "x"), unresolvable: true},
		{name: "below a regular file", path: j("work", "file.txt", "x"), unresolvable: true},
		{name: "a file with a trailing slash", path: j("work", "file.txt") + "/", unresolvable: true},
		{name: "a file followed by /.", path: j("work", "file.txt") + "/.", unresolvable: true},
		{name: "a file followed by /./", path: j("work", "file.txt") + "/./", unresolvable: true},
		{name: "a relative file with a trailing slash", path: "file.txt/", unresolvable: true},
		{name: "a directory with a trailing slash", path: j("work", "sub") + "/", root: work},
		{name: "a link to a directory with a trailing slash", path: j("work", "k1") + "/", root: work},
		{name: "missing, with a trailing slash", path: j("work", "newdir") + "/", root: work},
		{name: "empty path", path: "", unresolvable: true},
		{name: "NUL byte", path: j("work", "a\x00b"), unresolvable: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, ok, err := s.Contains(c.path)
			if c.unresolvable {
				if ok || !errors.Is(err, ErrUnresolvable) {
					t.Fatalf("Contains(%q) = %q, %v, %v; want refused as unresolvable", c.path, root, ok, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Contains(%q): %v", c.path, err)
			}
			if ok != (c.root != "") || root != c.root {
				t.Fatalf("Contains(%q) = %q, %v; want root %q", c.path, root, ok, c.root)
			}
		})
	}
}

func TestNew(t *testing.T) {
	tmp := layout(t)
	work := filepath.Join(tmp, "work")
	for _, c := range []struct {
		name       string
		cwd        string
		additional []string
	}{
		{"empty cwd", "", nil},
		{"relative cwd", "work", nil},
		{"relative additional", work, []string{"extra"}},
		{"empty additional", work, []string{""}},
		{"missing root", work, []string{filepath.Join(tmp, "nope")}},
		{"root is a file", work, []string{filepath.Join(work, "file.txt")}},
		{"dangling root link", work, []string{filepath.Join(work, "dangling")}},
	} {
		if s, err := New(c.cwd, c.additional); err == nil {
			s.Close()
			t.Errorf("%s: New accepted it", c.name)
		}
	}
	// Exact duplicates and entries equal to cwd are dropped, first occurrence kept.
	extra := filepath.Join(tmp, "extra")
	s, err := New(work, []string{extra, work, extra, filepath.Join(tmp, "outside")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for _, r := range s.Roots() {
		got = append(got, r.Path)
	}
	want := []string{work, extra, filepath.Join(tmp, "outside")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("roots %q, want %q", got, want)
	}
	if r := s.Roots()[1]; r.Real != filepath.Join(tmp, "extra-real") {
		t.Fatalf("real path of a linked root: %q", r.Real)
	}
}

func TestOpen(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	read := func(p string) (string, error) {
		f, err := s.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		return string(b), err
	}
	if got, err := read(filepath.Join(tmp, "work", "k1", "inner.txt")); err != nil || got != "inner" {
		t.Fatalf("inside through a link chain: %q %v", got, err)
	}
	if got, err := read(filepath.Join(tmp, "extra", "lib.txt")); err != nil || got != "lib" {
		t.Fatalf("under a linked root: %q %v", got, err)
	}
	for _, p := range []string{
		filepath.Join(tmp, "work", "evil", "secret.txt"),
		filepath.Join(tmp, "work", "c1", "secret.txt"),
		filepath.Join(tmp, "outside", "secret.txt"),
	} {
		if _, err := read(p); !errors.Is(err, ErrOutside) {
			t.Errorf("Open(%s): %v, want ErrOutside", p, err)
		}
	}
	// Creating a file that does not exist yet.
	f, err := s.OpenFile(filepath.Join(tmp, "work", "sub", "new.txt"), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := s.OpenFile(filepath.Join(tmp, "work", "dangling"), os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		t.Fatal("created through a dangling link")
	}
	if _, err := os.Stat(filepath.Join(tmp, "outside", "notyet")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a file appeared outside the roots")
	}
}

// TestOpenRace: the check passed, then a component is swapped for a link to
// outside before the open. The open goes through the root's handle, so it
// must fail rather than follow the link out.
func TestOpenRace(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	work := filepath.Join(tmp, "work")
	i, rel, err := s.locate(filepath.Join(work, "sub", "inner.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(work, "sub"), filepath.Join(tmp, "sub-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "outside", "inner.txt"), []byte("swapped"), 0o644)
	if err := os.Symlink("../outside", filepath.Join(work, "sub")); err != nil {
		t.Fatal(err)
	}
	if f, err := s.open[i].Open(rel); err == nil {
		b, _ := io.ReadAll(f)
		f.Close()
		t.Fatalf("opened %q through a swapped-in link: %q", rel, b)
	}
	// A fresh check sees the link and refuses too.
	if _, ok, _ := s.Contains(filepath.Join(work, "sub", "inner.txt")); ok {
		t.Fatal("Contains follows the swapped-in link")
	}
}

// TestRootReplaced: the root directory itself is moved away and replaced by
// a link to outside after New. Checks on paths now fail; opens stay in the
// original directory, which the Set holds open.
func TestRootReplaced(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Rename(work, filepath.Join(tmp, "work-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("outside", work); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Contains(filepath.Join(work, "secret.txt")); ok {
		t.Fatal("a root replaced by a link is followed")
	}
	f, err := s.open[0].Open("file.txt")
	if err != nil {
		t.Fatalf("pinned root: %v", err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "in cwd" {
		t.Fatalf("pinned root read %q", b)
	}
}

func TestResolve(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	real, root, err := s.Resolve(filepath.Join(tmp, "extra", "new", "x.txt"))
	if err != nil || real != filepath.Join(tmp, "extra-real", "new", "x.txt") || root != filepath.Join(tmp, "extra") {
		t.Fatalf("Resolve: %q %q %v", real, root, err)
	}
	if _, _, err := s.Resolve(filepath.Join(tmp, "work", "evil")); !errors.Is(err, ErrOutside) {
		t.Fatalf("Resolve outside: %v", err)
	}
}

// Resolving a path walks its components once: the steps (components walked
// and system calls) grow linearly with the number of components, for a path
// that does not exist below a deep existing prefix, where resolving each
// prefix in turn would take quadratic time.
func TestResolveLinear(t *testing.T) {
	tmp := layout(t)
	// An existing prefix 64 directories deep, entered through a link chain
	// and a "..".
	deep := filepath.Join(tmp, "work", "sub") + strings.Repeat("/d", 64)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(tmp, "work") + "/k1/../k1" + strings.Repeat("/d", 64)
	steps := func(n int) int {
		p := prefix + "/missing" + strings.Repeat("/a", n)
		count := 0
		real, err := resolve(p, &count)
		if err != nil {
			t.Fatalf("resolve: %v", err)
		}
		if want := deep + "/missing" + strings.Repeat("/a", n); real != want {
			t.Fatalf("resolve(%d components) = %.80s..., want %.80s...", n, real, want)
		}
		return count
	}
	const n = 16 << 10
	small, big := steps(n/4), steps(n)
	t.Logf("%d components: %d steps; %d components: %d steps", n/4, small, n, big)
	// Each missing component is one step; the existing prefix a fixed number.
	if big > 2*n+small || big-small > 2*(n-n/4) {
		t.Fatalf("not linear: %d steps for %d components, %d for %d", big, n, small, n/4)
	}
}

// A path of PATH_MAX bytes or more is refused with an error that says so,
// before any resolution; one byte less is judged as usual.
func TestPathMax(t *testing.T) {
	tmp := layout(t)
	s := newSet(t, tmp)
	build := func(size int) string {
		p := filepath.Join(tmp, "work", "new")
		p += strings.Repeat("/x", (size-len(p))/2)
		if len(p) < size {
			p += "/" + strings.Repeat("y", size-len(p)-1)
		}
		if len(p) != size {
			t.Fatalf("built %d bytes, want %d", len(p), size)
		}
		return p
	}
	if root, ok, err := s.Contains(build(PathMax - 1)); !ok || err != nil || root != filepath.Join(tmp, "work") {
		t.Fatalf("path of PATH_MAX-1 bytes: %q %v %v", root, ok, err)
	}
	for _, size := range []int{PathMax, PathMax + 1, 64 << 10} {
		_, ok, err := s.Contains(build(size))
		if ok || !errors.Is(err, ErrUnresolvable) || !strings.Contains(err.Error(), "PATH_MAX") || len(err.Error()) > 400 {
			t.Fatalf("path of %d bytes: %v %v", size, ok, err)
		}
		if _, err := s.Open(build(size)); !errors.Is(err, ErrUnresolvable) {
			t.Fatalf("Open of %d bytes: %v", size, err)
		}
	}
}
