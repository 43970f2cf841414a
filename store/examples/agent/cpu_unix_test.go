//go:build unix

package main

import "syscall"

// processCPU is the CPU time this process has used (user and system), in
// nanoseconds; ok is false where it cannot be read.
func processCPU() (ns int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
