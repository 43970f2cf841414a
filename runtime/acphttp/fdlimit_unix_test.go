//go:build unix

package acphttp

import (
	"syscall"
	"testing"
)

// raiseFDLimit makes room for n more file descriptors, or skips t.
func raiseFDLimit(t *testing.T, n uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("no file descriptor limit to read: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Skipf("needs %d file descriptors, the hard limit is %d", n, lim.Max)
	}
	old := lim.Cur
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("cannot raise the file descriptor limit to %d: %v", n, err)
	}
	t.Cleanup(func() {
		lim.Cur = old
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	})
}
