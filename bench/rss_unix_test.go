//go:build unix

package bench

import (
	"os"
	"syscall"
)

// peakRSSKiB is the exited process's peak resident set (KiB on Linux).
func peakRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
