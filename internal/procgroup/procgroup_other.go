//go:build !unix

// Package procgroup applies acpgen's process-group rule (ARCHITECTURE.md,
// "Child processes") to a child process. Process groups are a Unix
// notion: elsewhere the child stays in its parent's group and Kill ends
// the process itself.
package procgroup

import "os/exec"

// Set leaves cmd as it is.
func Set(*exec.Cmd) {}

// Kill ends the process of cmd.
func Kill(cmd *exec.Cmd) error {
	return cmd.Process.Kill()
}
