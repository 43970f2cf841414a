package procgroup

import (
	"os"
	"syscall"
)

// ExitStatus is a process's exit status as a shell reports it: 128+N when
// signal N ended it, else its exit code. The one place acpgen computes it
// (the conductor's components, the inspected agent).
func ExitStatus(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
