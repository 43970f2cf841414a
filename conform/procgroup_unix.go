//go:build unix

package conform

import (
	"os/exec"
	"syscall"
)

// inGroup starts the peer in a process group of its own, so that killing it
// also ends the processes it started (an npm wrapper's node child, say).
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends the peer's whole process group.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
