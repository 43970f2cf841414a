package roots

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// fileSet is a root set on a fresh directory holding the given files.
func fileSet(t *testing.T, files map[string]string) (*Set, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestReadTextLines(t *testing.T) {
	s, dir := fileSet(t, map[string]string{"a.txt": "one\r\ntwo\nthree", "empty.txt": ""})
	ctx := context.Background()
	for _, c := range []struct {
		file        string
		line, limit int
		want        string
	}{
		{"a.txt", 0, 0, "one\r\ntwo\nthree"},
		{"a.txt", 1, 0, "one\r\ntwo\nthree"},
		{"a.txt", 2, 0, "two\nthree"},
		{"a.txt", 2, 1, "two\n"},
		{"a.txt", 0, 1, "one\r\n"},
		{"a.txt", 3, 5, "three"},
		{"a.txt", 4, 0, ""},
		{"a.txt", 1 << 20, 1, ""},
		{"empty.txt", 0, 0, ""},
		{"empty.txt", 2, 1, ""},
	} {
		got, err := s.ReadText(ctx, filepath.Join(dir, c.file), ReadOptions{Line: c.line, Limit: c.limit})
		if err != nil || got != c.want {
			t.Errorf("%s line %d limit %d: %q, %v; want %q", c.file, c.line, c.limit, got, err, c.want)
		}
	}
}

// allocated returns the bytes f allocated (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A read is bounded by MaxBytes (DefaultMaxRead when unset): a file over it
// is refused by its size without being read, a read of a few lines of it
// succeeds, and a line over the bound is refused after reading no more than
// the bound. Lines before Line are skipped without being held.
func TestReadTextBound(t *testing.T) {
	s, dir := fileSet(t, map[string]string{"small.txt": "12345\n67890\n"})
	ctx := context.Background()
	small := filepath.Join(dir, "small.txt")
	if _, err := s.ReadText(ctx, small, ReadOptions{MaxBytes: 11}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("12 bytes with a bound of 11: %v", err)
	}
	if got, err := s.ReadText(ctx, small, ReadOptions{MaxBytes: 12}); err != nil || got != "12345\n67890\n" {
		t.Errorf("12 bytes with a bound of 12: %q, %v", got, err)
	}
	if got, err := s.ReadText(ctx, small, ReadOptions{Limit: 1, MaxBytes: 6}); err != nil || got != "12345\n" {
		t.Errorf("one line within the bound: %q, %v", got, err)
	}
	if _, err := s.ReadText(ctx, small, ReadOptions{Limit: 2, MaxBytes: 6}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("two lines over the bound: %v", err)
	}

	// 100 MiB of NULs (sparse), then a second line.
	nuls := filepath.Join(dir, "nuls")
	f, err := os.Create(nuls)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("\nsecond\n"), 100<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, o := range []ReadOptions{{}, {Limit: 1}, {Line: 1, Limit: 2}} {
		var err error
		if got := allocated(func() { _, err = s.ReadText(ctx, nuls, o) }); got > 3*DefaultMaxRead {
			t.Errorf("%+v: allocated %d bytes", o, got)
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: %v, want ErrTooLarge", o, err)
		}
	}
	var got string
	if n := allocated(func() { got, err = s.ReadText(ctx, nuls, ReadOptions{Line: 2}) }); n > 1<<20 {
		t.Errorf("skipping a 100 MiB line allocated %d bytes", n)
	}
	if err != nil || got != "second\n" {
		t.Errorf("the line after 100 MiB: %q, %v", got, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReadText(cancelled, nuls, ReadOptions{Line: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
}

// returns runs f and fails the test if it has not returned after a generous
// deadline: the operations it checks must not block.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// A trailing slash (or "/.") on a file is ENOTDIR, as the kernel has it, for
// reads, writes and Open; one on a missing name creates nothing.
func TestTrailingSlash(t *testing.T) {
	s, dir := fileSet(t, map[string]string{"file.txt": "text"})
	ctx := context.Background()
	for _, p := range []string{"file.txt/", "file.txt/.", filepath.Join(dir, "file.txt") + "/"} {
		if _, err := s.ReadText(ctx, p, ReadOptions{}); !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("ReadText(%q): %v, want ENOTDIR", p, err)
		}
		if err := s.WriteText(p, "x", 0o644); !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("WriteText(%q): %v, want ENOTDIR", p, err)
		}
		if _, err := s.Open(p); !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("Open(%q): %v, want ENOTDIR", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "file.txt")); string(b) != "text" {
		t.Errorf("file.txt holds %q", b)
	}
	if err := s.WriteText("new.txt/", "x", 0o644); err == nil {
		t.Error(`WriteText("new.txt/") succeeded`)
	}
	if f, err := s.OpenFile("new.txt/", os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		f.Close()
		t.Error(`OpenFile("new.txt/", O_CREATE) succeeded`)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt was created: %v", err)
	}
}

// WriteText replaces a file's text and creates a missing one.
func TestWriteText(t *testing.T) {
	s, dir := fileSet(t, map[string]string{"a.txt": "a longer old text"})
	for name, text := range map[string]string{"a.txt": "new", "b.txt": "created"} {
		if err := s.WriteText(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != text {
			t.Errorf("%s holds %q, %v; want %q", name, b, err, text)
		}
	}
	if err := s.WriteText(filepath.Join(filepath.Dir(dir), "outside.txt"), "x", 0o644); !errors.Is(err, ErrOutside) {
		t.Errorf("a write outside the root: %v", err)
	}
}
