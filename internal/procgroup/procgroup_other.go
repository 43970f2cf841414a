//go:build !unix

// Package procgroup starts a child process in a process group of its own
// and ends the whole group, so that stopping an agent or a proxy also ends
// the processes it started. Process groups are a Unix notion: elsewhere
// the child stays in its parent's group and Kill ends the process itself.
package procgroup

import "os/exec"

// Set leaves cmd as it is.
func Set(*exec.Cmd) {}

// Kill ends the process of cmd.
func Kill(cmd *exec.Cmd) error {
	return cmd.Process.Kill()
}
