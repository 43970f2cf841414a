//go:build unix

package acphttp

import "syscall"

// fdBudget is the process's file descriptor limit (RLIMIT_NOFILE's soft
// limit, which Go raises to the hard limit at start), or 1024 when it
// cannot be read; at most 1<<20.
func fdBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 1024
	}
	return int(min(uint64(lim.Cur), 1<<20))
}
