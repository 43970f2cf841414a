//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/roots"
)

// Reads that runtime/roots refuses are answered -32602 at once: a FIFO
// (300 of them, more than the connection's requests in flight), a file or a
// line over the read bound, a trailing slash on a file, a directory; reads
// after them are served.
func TestFilesRefusedWithoutBlocking(t *testing.T) {
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fifo, big, file := filepath.Join(cwd, "fifo"), filepath.Join(cwd, "big"), filepath.Join(cwd, "file.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, nil, 0o644); err != nil || os.Truncate(big, roots.DefaultMaxRead+1) != nil {
		t.Fatal("creating a sparse file over the read bound")
	}
	set, err := roots.New(cwd, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler()
	h.roots.add("s1", set)
	ctx := context.Background()
	read := func(path string, limit *uint32) (string, error) {
		got, err := h.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: "s1", Path: path, Limit: limit})
		if err != nil {
			return "", err
		}
		return got.Content, nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 300; i++ {
			if _, err := read(fifo, nil); !isCode(err, -32602) {
				t.Errorf("read of a FIFO: %v, want -32602", err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("reads of a FIFO block")
	}
	one := uint32(1)
	for _, c := range []struct {
		path  string
		limit *uint32
	}{{big, nil}, {big, &one}, {file + "/", nil}, {cwd, nil}} {
		if _, err := read(c.path, c.limit); !isCode(err, -32602) {
			t.Errorf("read %s: %v, want -32602", c.path, err)
		}
	}
	if got, err := read(file, &one); err != nil || got != "one\n" {
		t.Errorf("a read after the refused ones: %q, %v", got, err)
	}
	zero := uint32(0)
	if got, err := read(file, &zero); err != nil || got != "" {
		t.Errorf("limit 0: %q, %v", got, err)
	}
	for _, p := range []string{fifo, file + "/"} {
		if _, err := h.FsWriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: "s1", Path: p, Content: "x"}); !isCode(err, -32602) {
			t.Errorf("write %s: %v, want -32602", p, err)
		}
	}
}

func isCode(err error, code int) bool {
	var re *acp.RPCError
	return errors.As(err, &re) && int(re.Code) == code
}
