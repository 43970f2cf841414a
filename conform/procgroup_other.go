//go:build !unix

package conform

import "os/exec"

// inGroup leaves the peer in the checker's group: process groups are a Unix
// notion, and killing the peer below ends only the process itself.
func inGroup(*exec.Cmd) {}

// killGroup ends the peer process.
func killGroup(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
}
