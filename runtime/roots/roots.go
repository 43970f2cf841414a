// Package roots decides whether a filesystem path is inside a session's root
// set, [cwd, ...additionalDirectories], the way the additionalDirectories RFD
// asks an agent to enforce it: containment is judged on real paths (symlinks
// and ".." resolved by the filesystem, never by lexical cleaning alone),
// escapes through symlinks are blocked, and whenever resolution fails the
// answer is "not in scope" together with the error (fail closed).
//
// A check answers for the filesystem as it was when it ran. To act on the
// answer without a window in which a path component is swapped for a symlink,
// open files with [Set.Open] or [Set.OpenFile]: they go through an [os.Root]
// opened on the root directory, so the kernel walk itself cannot leave the
// root.
//
// Path comparison is byte-wise on the real paths, as on Linux; case-folding
// file systems are not special-cased.
package roots

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Errors wrapped by the errors this package returns.
var (
	// ErrOutside: the path resolves outside every root.
	ErrOutside = errors.New("path is outside the session roots")
	// ErrUnresolvable: the path cannot be resolved safely, so it is refused.
	ErrUnresolvable = errors.New("path cannot be resolved safely")
)

// Root is one declared root.
type Root struct {
	Path string // as declared (cwd or an additionalDirectories entry)
	Real string // its real path when the Set was made
}

// Set is a session's ordered root set. Its methods are safe for concurrent use.
type Set struct {
	roots []Root
	open  []*os.Root // open[i] is roots[i].Real, pinned at New
}

// New resolves the session roots: cwd first, then the additional
// directories in order. Every root must be a non-empty absolute path to an
// existing directory; one that is not is an error rather than a smaller root
// set (the RFD forbids silently dropping a root). Exact duplicates, and
// entries equal to cwd, are dropped, keeping the first occurrence. The Set
// holds each root directory open; Close releases them.
func New(cwd string, additional []string) (*Set, error) {
	s := &Set{}
	seen := map[string]bool{}
	for i, p := range append([]string{cwd}, additional...) {
		what := "cwd"
		if i > 0 {
			what = fmt.Sprintf("additionalDirectories[%d]", i-1)
		}
		if err := checkSyntax(p); err != nil {
			s.Close()
			return nil, fmt.Errorf("roots: %s %q: %w", what, p, err)
		}
		if !filepath.IsAbs(p) {
			s.Close()
			return nil, fmt.Errorf("roots: %s %q: not an absolute path", what, p)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("roots: %s %q: %w", what, p, err)
		}
		r, err := os.OpenRoot(real)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("roots: %s %q: %w", what, p, err)
		}
		s.roots = append(s.roots, Root{Path: p, Real: real})
		s.open = append(s.open, r)
	}
	return s, nil
}

// Close releases the root directories. The Set must not be used afterwards.
func (s *Set) Close() error {
	var errs []error
	for _, r := range s.open {
		errs = append(errs, r.Close())
	}
	s.open = nil
	return errors.Join(errs...)
}

// Roots returns the roots in order, cwd first.
func (s *Set) Roots() []Root { return append([]Root(nil), s.roots...) }

// Contains reports whether path is in scope and, if so, the declared path of
// the first root containing it. A relative path is taken relative to cwd. A
// path that does not exist yet is judged by its longest existing ancestor,
// resolved, with the remaining components joined lexically; those components
// must not contain "..", and the first of them must really be absent (a
// dangling symlink there would redirect a later create). A path of PathMax
// bytes or more is refused. Resolution takes time linear in the path's
// length. Any failure to resolve yields ok == false and an error wrapping
// ErrUnresolvable.
func (s *Set) Contains(path string) (root string, ok bool, err error) {
	i, _, err := s.locate(path)
	if err != nil {
		if errors.Is(err, ErrOutside) {
			return "", false, nil
		}
		return "", false, err
	}
	return s.roots[i].Path, true, nil
}

// Resolve returns the real path that path refers to (or would refer to, once
// created) and the declared root containing it, or an error wrapping
// ErrOutside or ErrUnresolvable.
func (s *Set) Resolve(path string) (real, root string, err error) {
	i, rel, err := s.locate(path)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(s.roots[i].Real, rel), s.roots[i].Path, nil
}

// Open opens path for reading if it is in scope. The open is done relative
// to the root's directory handle, so a symlink swapped in after the check
// cannot lead outside the root.
func (s *Set) Open(path string) (*os.File, error) {
	return s.OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is Open with flags and permissions, as os.OpenFile; with
// os.O_CREATE it creates files that do not exist yet inside the roots.
func (s *Set) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	root, rel, err := s.at(path)
	if err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, flag, perm)
	if err != nil {
		return nil, fmt.Errorf("roots: %w", err)
	}
	return f, nil
}

// at returns the open root containing path and the path relative to it. A
// path ending in a separator or "/." keeps a trailing separator, so that the
// open, like the kernel's, takes it for a directory only.
func (s *Set) at(path string) (*os.Root, string, error) {
	i, rel, err := s.locate(path)
	if err != nil {
		return nil, "", err
	}
	if s.open == nil {
		return nil, "", errors.New("roots: Set is closed")
	}
	if namesDir(path) {
		rel += string(filepath.Separator)
	}
	return s.open[i], rel, nil
}

// namesDir reports a path that can only name a directory: one ending in a
// separator or in a "." component.
func namesDir(p string) bool {
	const sep = string(filepath.Separator)
	return strings.HasSuffix(p, sep) || strings.HasSuffix(p, sep+".") || p == "."
}

// locate resolves path and returns the index of the first root containing it
// and the path relative to that root's real path ("." for the root itself).
func (s *Set) locate(path string) (int, string, error) {
	if len(s.roots) == 0 {
		return 0, "", errors.New("roots: empty Set")
	}
	if err := checkSyntax(path); err != nil {
		return 0, "", fmt.Errorf("roots: %q: %w: %v", path, ErrUnresolvable, err)
	}
	if !filepath.IsAbs(path) {
		// Relative paths resolve against cwd only (RFD: "Relative paths MUST
		// continue to resolve only against cwd"). Joined without cleaning, so
		// ".." is left for the filesystem to resolve.
		path = s.roots[0].Path + string(filepath.Separator) + path
	}
	if len(path) >= PathMax {
		return 0, "", fmt.Errorf("roots: path of %d bytes starting %q: %w: longer than PATH_MAX allows (%d bytes with its terminating NUL)", len(path), path[:64], ErrUnresolvable, PathMax)
	}
	real, err := resolve(path, nil)
	if err != nil {
		return 0, "", fmt.Errorf("roots: %q: %w: %w", path, ErrUnresolvable, err)
	}
	for i, r := range s.roots {
		if rel, ok := within(r.Real, real); ok {
			return i, rel, nil
		}
	}
	return 0, "", fmt.Errorf("roots: %q (%s): %w", path, real, ErrOutside)
}

func checkSyntax(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.IndexByte(p, 0) >= 0:
		return errors.New("path contains NUL")
	}
	return nil
}

// within reports whether real is base or below it; both are clean absolute
// real paths, so a lexical comparison is exact here.
func within(base, real string) (string, bool) {
	rel, err := filepath.Rel(base, real)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// PathMax is Linux's PATH_MAX: the size of the longest path the kernel
// takes, its terminating NUL included. A path of PathMax bytes or more
// (relative paths once joined to cwd) is refused before any resolution.
const PathMax = 4096

// maxSymlinks bounds the symlinks followed while resolving one path, as
// Linux's MAXSYMLINKS does (ELOOP past it).
const maxSymlinks = 40

// resolve returns the real path of an absolute path, following symlinks and
// ".." as the filesystem does. For a path that does not exist, it resolves
// the longest existing ancestor and appends the missing components.
//
// It walks the components once, left to right, keeping the real path of
// what it has walked so far: an existing component is checked with one
// Lstat, a symlink is read with Readlink and its target's components are
// walked in its place (at most maxSymlinks of them), and ".." takes the
// parent of the real path walked so far, which has no symlinks left, so the
// filesystem's parent and the lexical one are the same directory. The work
// is linear in the number of components (plus those of the link targets).
// From the first component that does not exist, the rest is joined
// lexically; it must hold no "..", and that first missing component must not
// come from a symlink's target (a dangling symlink, which a later create
// would follow). steps, when not nil, counts the components walked and the
// system calls made.
func resolve(path string, steps *int) (string, error) {
	step := func() {
		if steps != nil {
			*steps++
		}
	}
	const sep = filepath.Separator
	vol := filepath.VolumeName(path)
	// todo holds the components still to walk, the next one last.
	todo := components(path[len(vol):])
	slices.Reverse(todo)
	fromLink := len(todo) // todo[fromLink:] came from symlink targets
	// real is the real path walked so far, grown in place: appending a
	// component costs its length, not the path's.
	real := append([]byte(vol), sep)
	top := len(real) // the length of the root, which ".." stays at
	join := func(c string) {
		if len(real) > top {
			real = append(real, sep)
		}
		real = append(real, c...)
	}
	links := 0
	missing := false // a component did not exist: the rest is lexical
	for len(todo) > 0 {
		step()
		c := todo[len(todo)-1]
		linked := len(todo)-1 >= fromLink
		todo = todo[:len(todo)-1]
		if !linked {
			fromLink = len(todo)
		}
		switch {
		case missing && c == "..":
			return "", errors.New(`".." after a component that does not exist`)
		case c == ".":
			// Only there to make the component before it a directory,
			// which walking that one checked.
			continue
		case missing:
			join(c)
			continue
		case c == "..":
			// real has no symlinks: its lexical parent is its real parent.
			real = real[:max(top, bytes.LastIndexByte(real, sep))]
			continue
		}
		n := len(real)
		join(c)
		next := string(real) // no longer than the kernel takes, or Lstat fails
		step()
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			if linked {
				// The first missing component must be absent, not the
				// target of a symlink: creating through the link would land
				// wherever it points.
				return "", fmt.Errorf("%s is a symlink to something that does not exist (dangling symlink)", next)
			}
			missing = true
			continue
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.IsDir() && len(todo) > 0 {
				return "", fmt.Errorf("%s: %w", next, syscall.ENOTDIR)
			}
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("%s: more than %d symlinks", path, maxSymlinks)
		}
		step()
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		real = real[:n] // the link is replaced by its target
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			real = append(append(real[:0], tv...), sep)
			top = len(real)
			target = target[len(tv):]
		}
		tc := components(target)
		fromLink = min(fromLink, len(todo))
		for i := len(tc) - 1; i >= 0; i-- {
			todo = append(todo, tc[i])
		}
	}
	return string(real), nil
}

// components splits a path on separators, dropping empty parts. A trailing
// separator becomes a last "." component: like "." anywhere, it makes the
// component before it a directory (ENOTDIR when it is a file, as in the
// kernel's own walk).
func components(p string) []string {
	out := strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) && r < 0x80 })
	if len(out) > 0 && os.IsPathSeparator(p[len(p)-1]) {
		out = append(out, ".")
	}
	return out
}
