//go:build !unix

package conductor

import "os/exec"

// inGroup leaves a component in the conductor's group: process groups are
// a Unix notion, and stopping the component ends only the process itself.
func inGroup(*exec.Cmd) {}

// killGroup ends the component's process.
func killGroup(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
}
