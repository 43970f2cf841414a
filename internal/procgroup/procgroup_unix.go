//go:build unix

// Package procgroup applies acpgen's process-group rule (ARCHITECTURE.md,
// "Child processes") to a child process: it starts in a process group of
// its own, which its parent ends as a whole, so that stopping an agent or
// a proxy also ends the processes it started (an npm wrapper's node child,
// say); on Linux the child is also killed when its parent dies.
package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd start in a process group of its own (a session leader's
// group is its own already) and, on Linux, be killed when the thread that
// starts it ends, which is when the parent dies. It keeps what else
// cmd.SysProcAttr holds.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	if !a.Setsid {
		a.Setpgid, a.Pgid = true, 0
	}
	setParentDeath(a)
}

// Kill ends the process group of cmd, started after Set.
func Kill(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
