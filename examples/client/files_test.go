package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/roots"
)

func TestFilesStayInsideRoots(t *testing.T) {
	base := t.TempDir()
	cwd, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{cwd, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(cwd, "link")); err != nil {
		t.Fatal(err)
	}
	set, err := roots.New(cwd, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler()
	h.roots.add("s1", set)
	ctx := context.Background()
	file := filepath.Join(cwd, "notes.txt")
	if _, err := h.FsWriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: "s1", Path: file, Content: "one\ntwo\nthree\n"}); err != nil {
		t.Fatal(err)
	}
	line, limit := uint32(2), uint32(1)
	for _, c := range []struct {
		line, limit *uint32
		want        string
	}{
		{nil, nil, "one\ntwo\nthree\n"},
		{&line, nil, "two\nthree\n"},
		{&line, &limit, "two\n"},
		{nil, &limit, "one\n"},
	} {
		got, err := h.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: "s1", Path: file, Line: c.line, Limit: c.limit})
		if err != nil || got.Content != c.want {
			t.Errorf("read line %v limit %v: %q, %v; want %q", c.line, c.limit, got, err, c.want)
		}
	}
	for _, c := range []struct {
		path string
		code int
	}{
		{filepath.Join(outside, "secret.txt"), -32602},
		{filepath.Join(cwd, "link", "secret.txt"), -32602},
		{filepath.Join(cwd, "missing.txt"), -32002},
	} {
		_, err := h.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: "s1", Path: c.path})
		var re *acp.RPCError
		if !errors.As(err, &re) || int(re.Code) != c.code {
			t.Errorf("read %s: %v, want error %d", c.path, err, c.code)
		}
	}
	if _, err := h.FsWriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: "s1", Path: filepath.Join(cwd, "link", "new.txt"), Content: "x"}); err == nil {
		t.Error("write through a link out of the root succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file appeared outside the root: %v", err)
	}
	if _, err := h.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: "other", Path: file}); err == nil {
		t.Error("read on an unknown session succeeded")
	}
}
