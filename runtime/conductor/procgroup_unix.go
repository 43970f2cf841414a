//go:build unix

package conductor

import (
	"os/exec"
	"syscall"
)

// inGroup starts a component in a process group of its own, so that
// stopping it also ends the processes it started (an npm wrapper's node
// child, say).
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends a component's whole process group.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
