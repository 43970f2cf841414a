//go:build unix

package roots

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO, a directory, a socket and a device are refused, without blocking,
// for reading and writing; a FIFO with a reader waiting is not written to.
func TestNonRegularRefused(t *testing.T) {
	s, dir := fileSet(t, nil)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// A socket path must be short: in a directory of its own under /tmp.
	sockDir, err := os.MkdirTemp("", "roots")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	l, err := net.Listen("unix", filepath.Join(sockDir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sockSet, err := New(sockDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sockSet.Close()
	devSet, err := New("/dev", nil)
	if err != nil {
		t.Skipf("no /dev: %v", err)
	}
	defer devSet.Close()
	ctx := context.Background()
	for _, c := range []struct {
		set  *Set
		path string
	}{{s, fifo}, {s, sub}, {s, dir}, {sockSet, filepath.Join(sockDir, "s")}, {devSet, "/dev/zero"}, {devSet, "/dev/null"}} {
		returns(t, "ReadText "+c.path, func() {
			if _, err := c.set.ReadText(ctx, c.path, ReadOptions{}); !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadText(%s): %v, want ErrNotRegular", c.path, err)
			}
		})
		returns(t, "WriteText "+c.path, func() {
			if err := c.set.WriteText(c.path, "x", 0o644); !errors.Is(err, ErrNotRegular) {
				t.Errorf("WriteText(%s): %v, want ErrNotRegular", c.path, err)
			}
		})
	}
	// With a reader waiting on the FIFO, a write would succeed if it were
	// attempted.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := s.WriteText(fifo, "x", 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteText to a FIFO with a reader: %v", err)
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		t.Error("WriteText wrote to the FIFO")
	}
}

// The opened file is checked, not only the path before the open: a FIFO
// swapped in after openRegular's Lstat is refused when opened, without
// blocking.
func TestOpenedFileChecked(t *testing.T) {
	s, dir := fileSet(t, nil)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, rel, err := s.at(fifo)
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_CREATE} {
		returns(t, "opening a FIFO", func() {
			if f, _, err := openChecked(root, rel, fifo, flag, 0o644); !errors.Is(err, ErrNotRegular) && !errors.Is(err, syscall.ENXIO) {
				f.Close()
				t.Errorf("flag %#x: %v, want ErrNotRegular or ENXIO", flag, err)
			}
		})
	}
}
