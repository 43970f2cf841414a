//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inspect --trace never writes through a symbolic link and refuses a path
// that is not a regular file (a FIFO without blocking); a regular file is
// truncated and written, readable by its owner only when created.
func TestInspectTraceFileSafe(t *testing.T) {
	bin := acpgenBinary(t)
	root, _ := filepath.Abs("../..")
	config := filepath.Join(root, "acpgen.json")
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte("an older session's trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.jsonl")
	for _, c := range []struct {
		trace string
		code  int
		want  string
	}{
		{link, 1, "symbolic link"},
		{fifo, 1, "not a regular file"},
		{dir, 1, "not a regular file"},
		{old, 0, ""},
		{fresh, 0, ""},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, "inspect", "--config", config, "--trace", c.trace, "--", "true")
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if timedOut {
			t.Errorf("--trace %s: still running after a minute", filepath.Base(c.trace))
		} else if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("--trace %s: exit %d, want %d; output %q lacks %q", filepath.Base(c.trace), code, c.code, out, c.want)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if b, err := os.ReadFile(old); err != nil || len(b) != 0 {
		t.Errorf("an existing trace file holds %q after a session without frames (err %v), want it truncated", b, err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a new trace file: %v, %v; want mode 0600", fi, err)
	}
}
