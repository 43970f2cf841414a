//go:build unix

// Package procgroup starts a child process in a process group of its own
// and ends the whole group, so that stopping an agent or a proxy also ends
// the processes it started (an npm wrapper's node child, say).
package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd start in a process group of its own.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill ends the process group of cmd, started after Set.
func Kill(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
