package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/acpgen/acpgen/internal/atomicfile"
)

// benchstat compares the two sides of raw (columns by the side key, old the
// base) with the benchstat pinned in bench/peer's go.mod, in format (text
// or csv).
func benchstat(root string, raw []byte, format string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "acpgen-ab-stat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "ab.txt")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "tool", "benchstat", "-col", "/side", "-format", format, in)
	cmd.Dir = filepath.Join(root, "bench", "peer")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("benchstat: %w", err)
	}
	return out, nil
}

func writeFile(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o644)
}
