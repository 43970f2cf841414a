//go:build !windows

// Package atomicfile replaces one file so that a reader sees the old content
// or the new, never part of it: the one home of acpgen's single-file atomic
// writes (generator/output's all-or-nothing commit of many files is its own).
package atomicfile

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// Write replaces path with data through a temporary file beside it (same
// file system, so the rename is atomic), keeping an existing file's mode,
// else taking perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}
